"""Scale of one project: a project of 20,000 images must open (almost) as fast as one of 1,000.

The projects (:mod:`tests.benchmarks.scale_project`, built by this benchmark and cached between
runs in the temp folder): ``N`` small PNGs, each image rated in five sort sessions (~5.4
answers per image), every tenth annotated by three annotators, half of those reviewed, the
review queue's features cached. Each command runs in fresh subprocesses on both projects,
taking turns (so a busy spell on the shared machine slows both alike), and the growth for 20×
the data -- the best 20,000-image time over the best 1,000-image time, the 1,000-image project
being the floor measured in the same run -- is asserted:

=====================  ========  ==========================================================
command                growth    what bounds it
=====================  ========  ==========================================================
``info``               ≤ 2 ×     counts from aggregate queries; each folder of files listed
``queue`` (cache)      ≤ 3 ×     the cached features read, ranked and explained
``open --screenshot``  ≤ 1.5 ×   the window reads and shows what fits the screen
``report``             ≤ 8 ×     per-image rows cached; sparse Bradley–Terry fits
window's peak RSS      ≤ 1.5 ×   the same, in memory
=====================  ========  ==========================================================

Every growth is asserted. ``info`` measured 1.79× before its last change (the opening's
whole-file checks run once per file stamp, store/verdicts.py: the first opening after a change
still scans the file, ~0.8 s at 20,000 images, and the best of the rounds is the steady state;
the imported files are found by listing each folder once), ``queue`` 1.25× (it prints every
annotated image's row: 2,000 at 20,000 images). ``open`` measured 0.84–1.49× and the RSS
1.03–1.08×. Run with ``-m benchmark -s`` to see the numbers; docs/performance.md has them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.benchmarks.scale_project import project, working_copy

pytestmark = pytest.mark.benchmark

SMALL, LARGE = 1000, 20000
ROUNDS = {"info": 5, "queue": 3, "open": 3}


@pytest.fixture(scope="module")
def projects():
    """Working copies of the two cached projects (removed afterwards)."""
    copies = {n: working_copy(project(n, quiet=False), "bench") for n in (SMALL, LARGE)}
    yield copies
    for path in copies.values():
        path.unlink(missing_ok=True)


#: ``python -m slicereview ARGS`` that writes its peak resident memory (``VmHWM``, KiB) to the
#: file named by ``SLICEREVIEW_BENCH_PEAK`` at exit. Not ``ru_maxrss`` from ``wait4``: that
#: counts the forked copy of this test process before the ``exec``.
RUNNER = """
import atexit, os, sys

def peak():
    with open("/proc/self/status") as status:
        kib = next(line for line in status if line.startswith("VmHWM:")).split()[1]
    with open(os.environ["SLICEREVIEW_BENCH_PEAK"], "w") as out:
        out.write(kib)

atexit.register(peak)
from slicereview.launcher import main
raise SystemExit(main(sys.argv[1:]))
"""


def run(args: list[str], cwd: Path) -> tuple[float, int]:
    """Wall time (s) and peak resident memory (KiB, the process itself) of one command."""
    peak = cwd / "peak.txt"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SLICEREVIEW_BENCH_PEAK": str(peak)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNNER, *args], cwd=cwd, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=900)
    seconds = time.perf_counter() - t0
    assert done.returncode == 0, f"{args}: {done.stderr.decode(errors='replace')[-2000:]}"
    return seconds, int(peak.read_text())


def growth(projects, command: str, tmp_path: Path) -> dict[str, float]:
    """Best time and peak RSS of ``command`` on each project over its rounds, and the growth
    (large / small)."""
    best: dict[int, tuple[float, int]] = {}
    for k in range(ROUNDS[command]):
        for n, path in projects.items():
            if command == "open":
                args = ["open", str(path), "--screenshot", str(tmp_path / f"{n}-{k}.png")]
            else:
                args = [command, str(path)]
            t, rss = run(args, tmp_path)
            old = best.get(n, (float("inf"), 0))
            best[n] = (min(old[0], t), max(old[1], rss))
    (ts, rs), (tl, rl) = best[SMALL], best[LARGE]
    print(f"\n{command}: {SMALL:,} images {ts:.2f} s {rs / 1024:.0f} MiB; {LARGE:,} images "
          f"{tl:.2f} s {rl / 1024:.0f} MiB; growth {tl / ts:.2f}× time, {rl / rs:.2f}× RSS")
    return {"time": tl / ts, "rss": rl / rs}


def test_info_grows_at_most_2x(projects, tmp_path):
    ratio = growth(projects, "info", tmp_path)["time"]
    print(f"\ninfo: 20k/1k = {ratio:.2f}x (target 2x)")
    assert ratio <= 2.0


def test_queue_from_cache_grows_at_most_3x(projects, tmp_path):
    ratio = growth(projects, "queue", tmp_path)["time"]
    print(f"\nqueue from cache: 20k/1k = {ratio:.2f}x (target 3x)")
    assert ratio <= 3.0


@pytest.fixture(scope="module")
def opened(projects, tmp_path_factory):
    """The growth of ``open --screenshot`` (time and peak RSS), measured once."""
    folder = tmp_path_factory.mktemp("open")
    measured = growth(projects, "open", folder)
    shutil.rmtree(folder, ignore_errors=True)
    return measured


def test_open_screenshot_grows_at_most_1_5x(opened):
    assert opened["time"] <= 1.5


def test_window_memory_grows_at_most_1_5x(opened):
    assert opened["rss"] <= 1.5


def test_report_grows_at_most_8x(projects, tmp_path):
    """``slicereview report`` (the HTML file), its per-image rows cached as the queue's
    features are: what grows is the rating part (five sort sessions over every image: the
    pooled Bradley–Terry fit and Crowd-BT by sparse Newton steps), the queue evaluation and
    the per-image table. Two rounds each (a report takes seconds)."""
    best: dict[int, float] = {}
    for k in range(2):
        for n, path in projects.items():
            t, _ = run(["report", str(path), "--out", str(tmp_path / f"{n}-{k}.html")],
                       tmp_path)
            best[n] = min(best.get(n, float("inf")), t)
    ratio = best[LARGE] / best[SMALL]
    print(f"\nreport: {SMALL:,} images {best[SMALL]:.2f} s; {LARGE:,} images "
          f"{best[LARGE]:.2f} s; growth {ratio:.2f}× (target 8×)")
    assert ratio <= 8.0
