"""Notify → visible in the other window, on a server project (issue 31: a submitted annotation
took 9-13 s to appear in the reviewer's window, a decision about 3 s; docs/server.md promises
"within a second").

A loopback PostgreSQL cluster holds the Review tab's five photographs with three simulated
annotators each. One main window shows the Review tab; another connection -- another person's
machine -- commits, in turns, (a) a new annotator's submitted annotation on one image and (b) a
reviewer's decisions on that image (accept all: one transaction). Each is timed from its commit
(the notice goes out as it commits) until the window shows it: the queue row of that image
lists the new annotation, or its status says "reviewed". Goal, asserted: p95 ≤ 1 s for each
kind. The window's re-reads after notices are at least
:data:`~slicereview.gui.gateway.server_watch.MIN_GAP_S` apart, so the steps are spaced by more.
Of the ~0.3 s that remain, nearly all is the queue's features worker (its own connection, the
cached features, the changed image's); before the Review tab refreshed at once on another
connection's commits it waited 250 ms more (median 669 → 378 ms, p95 971 → 493 ms for a submit).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.annotating import finish
from slicereview.app.review.decisions import accept_all
from slicereview.demo.annotators import random_regions, simulate_annotators
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project
from slicereview.store.copying import copy_project
from tests.gui.review.review_fixture import build_review_project

pytestmark = pytest.mark.benchmark

ROUNDS = 10


def _row(page, image_id: int):
    return next((r for r in page.state.rows if r.image_id == image_id), None)


def test_a_commit_elsewhere_is_visible_within_a_second(qtbot, tmp_path: Path,
                                                       postgres_cluster) -> None:
    url = postgres_cluster.new_database("live")
    copy_project(build_review_project(tmp_path), url)
    try:
        w = MainWindow()
        qtbot.addWidget(w)
        w.resize(1500, 900)
        w.show()
        qtbot.waitExposed(w)
        assert w.open_project(url)
        page = w.review_page
        w.tabs.setCurrentWidget(page)
        qtbot.waitUntil(lambda: page.state.review is not None and page.loader.worker is None,
                        timeout=60000)
        qtbot.waitUntil(lambda: w.gateway.watch.server.is_listening, timeout=30000)
        times: dict[str, list[float]] = {"submit": [], "decision": []}
        with Project.open(url) as other:
            images = [i.id for i in other.images.all()]
            reviewer = other.raters.ensure("Dr Elsewhere", "reviewer")
            for k in range(ROUNDS):
                image = images[k % len(images)]
                qtbot.wait(700)  # (more than the gap between two re-reads)
                shown = _row(page, image)
                before = len(shown.annotation_ids)
                im = other.images.get(image)
                shape = (im.rows, im.cols)
                polygons = next(iter(simulate_annotators(
                    shape, random_regions(shape, 3, seed=100 + k), seed=100 + k).values()))
                rater = other.raters.ensure(f"late {k}")
                ann = other.annotations.for_image(rater, image)
                other.polygons.replace(ann.id, polygons)
                t0 = time.perf_counter()
                finish(other, ann.id, "submitted")
                qtbot.waitUntil(lambda image=image, before=before: (
                    _row(page, image) is not None
                    and len(_row(page, image).annotation_ids) > before), timeout=60000)
                times["submit"].append(time.perf_counter() - t0)

                qtbot.wait(700)
                row = _row(page, image)
                status = row.status  # (an annotation just submitted is undecided)
                t0 = time.perf_counter()
                accept_all(other, reviewer, image, row.annotation_ids)
                qtbot.waitUntil(lambda image=image, status=status: (
                    _row(page, image).status != status), timeout=60000)
                times["decision"].append(time.perf_counter() - t0)
        for kind, found in times.items():
            print(f"\n{kind} elsewhere → visible: median {1000 * np.median(found):.0f} ms, "
                  f"p95 {1000 * np.percentile(found, 95):.0f} ms, max "
                  f"{1000 * max(found):.0f} ms ({len(found)} rounds)")
        for kind, found in times.items():
            assert np.percentile(found, 95) <= 1.0, (kind, found)
        w.close()
    finally:
        postgres_cluster.drop_database(url)
