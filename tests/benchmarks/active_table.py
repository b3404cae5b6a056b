"""Print the comparison of pair-choice methods behind docs/rate.md ("Rating to a stated
accuracy"): Kendall τ of ``ranking()`` against the truth, n = 100, mean over SEEDS seeds, for
the reliable (T = 0.15) and noisy (T = 0.5) simulated raters of tests/benchmarks/
test_bench_active.py, at 5, 10, 15 and 20 comparisons per image; the session's own expected τ in
brackets (the confidence meter). Usage::

    python tests/benchmarks/active_table.py [SEEDS]

About ten minutes on 2 cores with the default 10 seeds.
"""

from __future__ import annotations

import statistics
import sys
import time

from slicereview.engines.ranking.plan import simulate

BUDGETS = (5, 10, 15, 20)
METHODS = (("active", "misorder"), ("active", "information"), ("active", "proxy"),
           ("resort", "misorder"))


def main(seeds: int = 10) -> None:
    for noise in (0.15, 0.5):
        print(f"\nT = {noise}, n = 100, {seeds} seeds")
        print("| method | sort pass (answers/image, τ of its tiers → of ranking()) | "
              + " | ".join(f"{b}/image" for b in BUDGETS) + " |")
        print("|---|---|" + "---|" * len(BUDGETS))
        for method, criterion in METHODS:
            start = time.perf_counter()
            sim = simulate(100, noise, BUDGETS, seeds, method=method, criterion=criterion)
            name = "repeated sorts pooled" if method == "resort" else criterion
            cells = []
            for k, (tau, expected) in enumerate(zip(sim.tau, sim.expected_tau, strict=True)):
                spread = statistics.stdev(t[k] for t in sim.taus) / seeds ** 0.5
                extra = "" if expected != expected else f" ({expected:.3f})"
                cells.append(f"{tau:.4f} ± {spread:.4f}{extra}")
            print(f"| {name} | {sim.sort_answers / 100:.2f}, {sim.sort_pass_tau:.4f} → "
                  f"{sim.sort_tau:.4f} | " + " | ".join(cells) + f" |  <!-- "
                  f"{time.perf_counter() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
