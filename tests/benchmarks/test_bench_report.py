"""The owner's report of 1,200 images × 3 annotators (features cached) must take ≤ 10 s.

Images are 256 × 256 with one to three blob-like polygons per annotation (mammograms would be
far larger: the agreement pass rasterises every annotation once, so its cost grows with the
pixels). The floor, measured in the same run, is reading the cached features (one SELECT and
a ``json.loads`` per row); the report does much more (rasterises 3,600 annotations, image and
box α at two levels, pairwise and leave-one-out α, the queue evaluation, plots), so the ratio
is large — it is printed and bounded loosely, the 10 s target is asserted. A second report
takes its per-image rows from the cache (edit times unchanged): it must be faster and the
same file.
Run with ``-m benchmark -s`` to see the numbers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.report.owner_report import _STEPS, write_report
from slicereview.app.review.decisions import decide
from slicereview.app.review.queue import QueueSpec, compute_features
from slicereview.demo.annotators import blob
from slicereview.model import NewImage, Polygon
from slicereview.store import Project

pytestmark = pytest.mark.benchmark

IMAGES, SIZE = 1200, 256
TARGET_S = 10.0
MAX_RATIO = 2000.0


@pytest.fixture(scope="module")
def cached_project(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bench_report")
    (folder / "x.png").write_bytes(b"png")
    path = folder / "p.srproj"
    rng = np.random.default_rng(0)
    with Project.create(path) as p:
        ids = p.images.add_source(folder / "x.png", "0" * 64, "png",
                                  [NewImage(SIZE, SIZE, frame=k) for k in range(IMAGES)])
        raters = [p.raters.add(f"ann{k}", group="AB"[k % 2]) for k in range(3)]
        boss = p.raters.add("boss", "reviewer")
        with p.transaction():
            for image in ids:
                centres = rng.uniform(40, SIZE - 40, (int(rng.integers(1, 4)), 2))
                for rater in raters:
                    ann = p.annotations.for_image(rater, image)
                    polys = [Polygon(blob(c + rng.normal(0, 3, 2), rng.uniform(8, 20), rng),
                                     "certain" if rng.random() < 0.8 else "uncertain")
                             for c in centres]
                    p.polygons.replace(ann.id, polys)
                    p.annotations.add_active_time(ann.id, int(rng.gamma(2, 30) * 1000))
                    p.annotations.set_status(ann.id, "submitted")
                    if rng.random() < 0.5:
                        decide(p, boss, ann.id, "accept" if rng.random() < 0.7 else "reject",
                               ["outline too loose"])
        assert len(compute_features(p, QueueSpec()).computed) == IMAGES
    return path


def test_report_speed(cached_project: Path, tmp_path: Path) -> None:
    with Project.open(cached_project) as project:
        t0 = time.perf_counter()
        rows = project.db.execute("SELECT image_id, features FROM review_features").fetchall()
        assert len([json.loads(r[1]) for r in rows]) == IMAGES
        floor = time.perf_counter() - t0
        calls: list[int] = []
        t0 = time.perf_counter()
        out = write_report(project, tmp_path / "r.html",
                           progress=lambda d, t: calls.append(d))
        took = time.perf_counter() - t0
        t0 = time.perf_counter()
        write_report(project, tmp_path / "again.html")  # the per-image rows from the cache
        again = time.perf_counter() - t0
    assert out.stat().st_size > 10_000 and calls[-1] == IMAGES + _STEPS
    assert (tmp_path / "again.html").read_text() == out.read_text()
    print(f"\nreport of {IMAGES} images × 3 annotators ({SIZE}×{SIZE}): {took:.2f} s; floor "
          f"(cached features read) {floor * 1000:.1f} ms; ratio {took / floor:.0f}; again, "
          f"per-image rows cached: {again:.2f} s")
    assert took <= TARGET_S
    assert took / floor <= MAX_RATIO
    assert again < took
