"""Print the README's ranking table: mean (max) comparisons per algorithm and n.

    python tests/benchmarks/ranking_table.py [ORDERS]

Distinct items and four severity levels with a perfect simulated rater, over ORDERS random
orders (default 300; "timsort" at n = 200 uses a sixth of them because CPython's sort runs in a
helper thread there), and "top-k" (k = 10). Not collected by pytest (no ``test_`` prefix).
"""

from __future__ import annotations

import math
import statistics
import sys

from slicereview.demo.raters import comparison_counts
from slicereview.engines.ranking import ALGORITHMS

SIZES = (30, 50, 70, 200)


def main(orders: int = 300) -> None:
    header = "| algorithm | items | " + " | ".join(f"n = {n}" for n in SIZES) + " |"
    print(header)
    print("|" + "---|" * (len(SIZES) + 2))
    bounds = [math.ceil(math.log2(math.factorial(n))) for n in SIZES]
    print("| ⌈log₂ n!⌉ (lower bound) | distinct | " + " | ".join(map(str, bounds)) + " |")
    print("| exhaustive | any | " + " | ".join(str(n * (n - 1) // 2) for n in SIZES) + " |")
    for levels in (None, 4):
        for algorithm in ALGORITHMS:
            k = 10 if algorithm == "top-k" else None
            cells = []
            for n in SIZES:
                m = orders // 6 if algorithm == "timsort" and n >= 200 else orders
                q, _ = comparison_counts(algorithm, n, m, levels=levels, k=k)
                cells.append(f"{statistics.fmean(q):.1f} ({max(q)})")
            name = f"{algorithm} (k = 10)" if k else algorithm
            items = "distinct" if levels is None else f"{levels} levels"
            print(f"| {name} | {items} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
