"""Print the assisted-annotation tables of docs/performance.md: NoC@90 per set and method.

    python tests/benchmarks/assist_table.py [--quick]

The three sets of :mod:`slicereview.demo.assist_objects` (white matter of the ICBM template,
blobs and tubes in the demo mammograms, default seeds), the simulated manual annotator's
vertices, the points tool and every candidate of ``points_candidates.py`` driven by the
standard clicker, and the tracer's clicks with the trace tool. ``--quick`` leaves out the
candidates. Takes ~10 minutes on 2 cores. Not collected by pytest (no ``test_`` prefix).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from points_candidates import CANDIDATES, run

from slicereview.demo import assist_effort, assist_objects
from slicereview.demo.clicker import click_session

BLOBS_PER_IMAGE, TUBES_PER_IMAGE = 4, 3


def sets() -> dict[str, list]:
    return {
        "(a) white matter": assist_objects.white_matter(),
        "(b) blobs": assist_objects.blobs(per_image=BLOBS_PER_IMAGE),
        "(c) tubes": assist_objects.tubes(per_image=TUBES_PER_IMAGE),
    }


def _cell(values: list[int]) -> str:
    reached = sum(v < 20 for v in values)
    return f"{np.mean(values):.2f} ({reached}/{len(values)})"


def main(quick: bool = False) -> None:
    data = sets()
    names = list(data)
    print("| method | " + " | ".join(f"{n} ({len(data[n])})" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    row = [np.mean(assist_effort.manual_vertices(data[n])) for n in names]
    print("| manual (vertices) | " + " | ".join(f"{v:.1f}" for v in row) + " |")
    t0 = time.perf_counter()
    print("| **points** | " + " | ".join(_cell(assist_effort.noc(data[n])) for n in names)
          + f" |  <!-- {time.perf_counter() - t0:.0f} s -->")
    if not quick:
        for label, method in CANDIDATES.items():
            t0 = time.perf_counter()
            cells = []
            for n in names:
                nocs = [click_session(o.truth, lambda p, o=o, m=method: run(m, o.image, p)).noc
                        for o in data[n]]
                cells.append(_cell(nocs))
            print(f"| {label} | " + " | ".join(cells)
                  + f" |  <!-- {time.perf_counter() - t0:.0f} s -->", flush=True)
    tubes = assist_effort.trace_clicks(data["(c) tubes"])
    clicks = [s.noc for s in tubes]
    print(f"\ntrace on {names[2]}: mean {np.mean(clicks):.2f} clicks to Dice 0.80, "
          f"{sum(s.reached and s.noc <= 4 for s in tubes)}/{len(tubes)} within 4 clicks, "
          f"final Dice {np.mean([s.dice[-1] for s in tubes]):.3f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
