"""Review features of mammogram-sized images, from polygons to ImageFeatures.

One 4500 × 2900 image, three annotators of ~50 polygons each (30–200 vertices, lobed outlines
around shared findings, jittered per annotator, some missed, some uncertain): target ≤ 0.3 s.
The floor, measured in the same run, is what any implementation must do at least: rasterise
the same polygons and compute one image-level α. Features add the strict α, both sets of boxes
and their α, so they cost a few floors.

A set of 24 such images is then computed with ``workers=1`` and ``workers=2``, once with a
new pool (spawn start-up, i.e. importing numpy and scipy in each worker, included) and once with
a warm pool; the speed-ups are printed, only identical results are asserted (shared machine).
Run with ``-m benchmark -s`` to see the numbers.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from slicereview.engines.agreement import mask_alpha
from slicereview.engines.masks import rasterize
from slicereview.engines.review.parallel import (
    FeatureTask,
    PolygonSpec,
    features_of_images,
    make_pool,
)

pytestmark = pytest.mark.benchmark

SHAPE = (4500, 2900)
TARGET_S = 0.3
MAX_RATIO = 4.0
IMAGES = 24


def _outline(cx: float, cy: float, radius: float, rng: np.random.Generator) -> np.ndarray:
    """A lobed closed outline of 30–200 vertices around ``(cx, cy)``, ``(x, y)`` float64."""
    n = int(rng.integers(30, 201))
    t = np.sort(rng.uniform(0, 2 * np.pi, n))
    lobes = 1 + 0.2 * np.sin(int(rng.integers(2, 6)) * t + rng.uniform(0, 2 * np.pi))
    r = radius * lobes * rng.uniform(0.92, 1.0, n)
    return np.c_[cx + r * np.cos(t), cy + r * np.sin(t)]


def _task(image_id: int, raters: int = 3, findings: int = 52) -> FeatureTask:
    rng = np.random.default_rng(image_id)
    h, w = SHAPE
    sites = [(rng.uniform(150, w - 150), rng.uniform(150, h - 150), rng.uniform(12, 110))
             for _ in range(findings)]
    annotations = []
    for _ in range(raters):
        polygons = []
        for cx, cy, radius in sites:
            if rng.random() < 0.08:
                continue  # this annotator missed the finding
            jitter = rng.normal(0, 0.05 * radius, 2)
            vertices = _outline(cx + jitter[0], cy + jitter[1],
                                radius * rng.uniform(0.85, 1.15), rng)
            polygons.append(PolygonSpec(vertices, "certain" if rng.random() < 0.7
                                        else "uncertain"))
        annotations.append(tuple(polygons))
    return FeatureTask(image_id, SHAPE, tuple(annotations))


def _best(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _floor(job: FeatureTask) -> float:
    labels = np.stack([rasterize(a, SHAPE) for a in job.annotations])
    return mask_alpha(labels != 0)


def test_features_of_one_mammogram_from_polygons():
    job = _task(0)
    counts = [len(a) for a in job.annotations]
    vertices = sum(len(p.vertices) for a in job.annotations for p in a)
    job.features()  # warm-up
    ours, feats = _best(job.features, 5)
    floor, alpha = _best(lambda: _floor(job), 5)
    ratio = ours / floor
    print(f"\nfeatures of one {SHAPE[0]}x{SHAPE[1]} image, polygons per annotator {counts} "
          f"({vertices} vertices): {ours * 1e3:.0f} ms; floor (rasterise + one mask_alpha) "
          f"{floor * 1e3:.0f} ms; ratio {ratio:.2f}; {feats.n_boxes} relaxed boxes, "
          f"strict α {feats.strict_alpha:.3f}, relaxed α {feats.relaxed_alpha:.3f}; "
          f"target {TARGET_S} s {'met' if ours <= TARGET_S else 'MISSED'}")
    assert feats.relaxed_alpha == pytest.approx(alpha, rel=1e-12)
    assert 40 <= feats.n_boxes <= 60
    # The ratio is asserted, the absolute target only printed: other jobs share these cores.
    assert ratio <= MAX_RATIO


def test_batch_with_two_workers():
    tasks = [_task(i) for i in range(IMAGES)]
    start = time.perf_counter()
    inline = features_of_images(tasks, workers=1)
    one = time.perf_counter() - start
    start = time.perf_counter()
    cold = features_of_images(tasks, workers=2)
    two_cold = time.perf_counter() - start
    with make_pool(2) as pool:
        features_of_images([_task(1000 + k, findings=1) for k in range(2)], executor=pool)
        start = time.perf_counter()
        warm = features_of_images(tasks, executor=pool)
        two_warm = time.perf_counter() - start
    print(f"\n{IMAGES} images: workers=1 {one:.2f} s ({one / IMAGES * 1e3:.0f} ms/image); "
          f"workers=2 new pool {two_cold:.2f} s (spawn start-up included, speed-up "
          f"{one / two_cold:.2f}x); workers=2 warm pool {two_warm:.2f} s (speed-up "
          f"{one / two_warm:.2f}x)")
    for pooled in (cold, warm):
        assert list(pooled) == list(inline)
        assert {i: f.to_dict() for i, f in pooled.items()} == {
            i: f.to_dict() for i, f in inline.items()}
