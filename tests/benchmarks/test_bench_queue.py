"""Reopening a project whose review features are cached: the queue must come back fast.

1,000 images, three annotators each, features computed once and cached. After reopening the
file, :func:`slicereview.app.review.queue.queue` must take ≤ 1 s. The floor, measured in the
same run, is the least any cache must do: one SELECT of the 1,000 cache rows and a
``json.loads`` of each. The queue does more (selects the annotations and checks each image's
source key, ranks, explains every rank, reads the decisions), so it costs a few floors; the
ratio is asserted (measured: ~180 ms, ~8 floors), and the 1 s target.
Run with ``-m benchmark -s`` to see the numbers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.review.queue import QueueSpec, compute_features, queue
from slicereview.model import NewImage, Polygon
from slicereview.store import Project

pytestmark = pytest.mark.benchmark

IMAGES = 1000
TARGET_S = 1.0
MAX_RATIO = 20.0


def _best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


@pytest.fixture(scope="module")
def cached_project(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bench_queue")
    (folder / "x.png").write_bytes(b"png")
    path = folder / "p.srproj"
    rng = np.random.default_rng(0)
    with Project.create(path) as p:
        ids = p.images.add_source(folder / "x.png", "0" * 64, "png",
                                  [NewImage(24, 24, frame=k) for k in range(IMAGES)])
        raters = [p.raters.add(f"ann{k}") for k in range(3)]
        with p.transaction():
            for image in ids:
                for rater in raters:
                    x, y = rng.uniform(2, 10, 2)
                    s = rng.uniform(4, 10)
                    ann = p.annotations.for_image(rater, image)
                    square = np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]])
                    p.polygons.replace(ann.id, [Polygon(square)])
                    p.annotations.set_status(ann.id, "submitted")
        assert len(compute_features(p, QueueSpec(), workers=1).computed) == IMAGES
    return path


def test_queue_from_cache(cached_project: Path):
    with Project.open(cached_project) as project:
        def floor() -> None:
            rows = project.db.execute("SELECT image_id, features FROM review_features").fetchall()
            assert len([json.loads(r[1]) for r in rows]) == IMAGES

        def from_cache() -> None:
            rows = queue(project, QueueSpec())
            assert len(rows) == IMAGES

        result = compute_features(project, QueueSpec())
        assert result.computed == ()  # every image came from the cache
        base = _best(floor)
        took = _best(from_cache)
    ratio = took / base
    print(f"\nqueue of {IMAGES} cached images: {took * 1000:.0f} ms; floor (one SELECT + "
          f"json.loads) {base * 1000:.1f} ms; ratio {ratio:.1f}")
    assert ratio <= MAX_RATIO
    assert took <= TARGET_S
