"""Scale of one project on the team server: the scale benchmark's commands against PostgreSQL.

The same two projects as test_bench_scale.py (:mod:`tests.benchmarks.scale_project`: 1,000 and
20,000 small PNGs, five sort sessions, every tenth image annotated by three annotators, the
review queue's features cached), each copied into its own database of the session's throwaway
cluster (:func:`slicereview.store.copying.copy_project`, what ``slicereview copy FILE URL``
runs; ~0.4 s and ~2.5 s, once per run). The copies keep the images' absolute paths, so every
file is found where the scale benchmark wrote it. Each command runs on the two URLs in fresh
subprocesses, taking turns, best of its rounds (:func:`tests.benchmarks.test_bench_scale.growth`,
the same code as on project files), and the growth (20,000 / 1,000) is asserted against the
same targets:

=====================  ========  ==========================================================
command                growth    what bounds it
=====================  ========  ==========================================================
``info``               ≤ 2 ×     counts from aggregate queries; each folder of files listed
``queue`` (cache)      ≤ 3 ×     the copied features read, ranked and explained
``open --screenshot``  ≤ 1.5 ×   the window reads and shows what fits the screen
``report``             ≤ 8 ×     per-image rows copied with the cache; sparse Bradley–Terry
window's peak RSS      ≤ 1.5 ×   the same, in memory
=====================  ========  ==========================================================

``queue`` must run from the copied cache: before timing it, one run on each URL is checked to
say ``0 computed`` (the copy carries ``review_features`` row for row, and the cache key -- the
features' version and each annotation's edit stamp -- is the same on both backends).

Measured on the shared 2-core machine: see docs/performance.md ("Scale of one project", the
server paragraph). Run with ``-m benchmark -s`` to see the numbers. CI cost: 70–90 s with the
scale projects cached (they are built by this benchmark when not), half of it the reports.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.benchmarks.scale_project import project
from tests.benchmarks.test_bench_scale import LARGE, SMALL, growth, run

pytestmark = pytest.mark.benchmark


@pytest.fixture(scope="module")
def servers(postgres_cluster):
    """The two scale projects copied to two databases of the session's cluster (dropped
    afterwards): ``{images: url}``."""
    from slicereview.store.copying import copy_project

    urls: dict[int, str] = {}
    try:
        for n in (SMALL, LARGE):
            urls[n] = postgres_cluster.new_database(f"scale{n}_")
            copy_project(project(n, quiet=False), urls[n])
        yield urls
    finally:
        for url in urls.values():
            postgres_cluster.drop_database(url)


def test_queue_on_the_server_runs_from_the_copied_cache(servers):
    """The features cache came with the copy: ``queue`` computes nothing on either database."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for n, url in servers.items():
        done = subprocess.run([sys.executable, "-m", "slicereview", "queue", url],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        head = re.search(r"(\d+) images ranked by .*\((\d+) computed, (\d+) cached\)",
                         done.stdout)
        assert head, done.stdout[:500]
        assert (int(head[1]), int(head[2]), int(head[3])) == (n // 10, 0, n // 10)


def test_info_on_the_server_grows_at_most_2x(servers, tmp_path):
    ratio = growth(servers, "info", tmp_path)["time"]
    print(f"\nserver info: 20k/1k = {ratio:.2f}x (target 2x)")
    assert ratio <= 2.0


def test_queue_from_cache_on_the_server_grows_at_most_3x(servers, tmp_path):
    ratio = growth(servers, "queue", tmp_path)["time"]
    print(f"\nserver queue from cache: 20k/1k = {ratio:.2f}x (target 3x)")
    assert ratio <= 3.0


@pytest.fixture(scope="module")
def opened(servers, tmp_path_factory):
    """The growth of ``open --screenshot`` on the server (time and peak RSS), measured once."""
    return growth(servers, "open", tmp_path_factory.mktemp("open-server"))


def test_open_screenshot_on_the_server_grows_at_most_1_5x(opened):
    assert opened["time"] <= 1.5


def test_window_memory_on_the_server_grows_at_most_1_5x(opened):
    assert opened["rss"] <= 1.5


def test_report_on_the_server_grows_at_most_8x(servers, tmp_path):
    """``slicereview report`` on the two databases, two rounds each (as on files): its
    per-image rows came with the copied cache, so no report writes a cache row (none newer
    than the transaction id taken before)."""
    import psycopg

    def newest_xid(url: str) -> int:
        with psycopg.connect(url) as conn:
            return conn.execute("SELECT txid_current() % 4294967296").fetchone()[0]

    before = {n: newest_xid(url) for n, url in servers.items()}
    best: dict[int, float] = {}
    for k in range(2):
        for n, url in servers.items():
            t, _ = run(["report", url, "--out", str(tmp_path / f"{n}-{k}.html")], tmp_path)
            best[n] = min(best.get(n, float("inf")), t)
    ratio = best[LARGE] / best[SMALL]
    print(f"\nserver report: {SMALL:,} images {best[SMALL]:.2f} s; {LARGE:,} images "
          f"{best[LARGE]:.2f} s; growth {ratio:.2f}× (target 8×)")
    for n, url in servers.items():
        with psycopg.connect(url) as conn:
            written = conn.execute("SELECT count(*) FROM review_features WHERE "
                                   "xmin::text::bigint > %s", (before[n],)).fetchone()[0]
        assert written == 0, f"{n:,} images: the report computed {written} cached rows again"
    assert ratio <= 8.0
