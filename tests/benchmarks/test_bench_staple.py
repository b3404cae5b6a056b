"""STAPLE of 3 annotators on a mammogram-sized 2900 × 4500 image: the vote-pattern EM
(:mod:`slicereview.engines.agreement.staple_em`, what ``staple()`` runs) against SimpleITK's
``STAPLEImageFilter`` in the same run (same numbers; the ratio is asserted, not a time).
Run with ``-m benchmark -s`` to see the numbers."""

from __future__ import annotations

import time

import numpy as np
import pytest

from slicereview.engines.agreement import staple

pytestmark = pytest.mark.benchmark

SHAPE = (2900, 4500)
MIN_SPEEDUP = 5.0


def _masks() -> np.ndarray:
    yy, xx = np.mgrid[:SHAPE[0], :SHAPE[1]]
    rng = np.random.default_rng(0)
    out = np.zeros((3, *SHAPE), bool)
    for k in range(3):   # three outlines of the same two lesions, each a little off
        for cy, cx, r in ((900, 1500, 300), (2000, 3200, 180)):
            dy, dx = rng.normal(0, 12, 2)
            out[k] |= (yy - cy - dy) ** 2 + (xx - cx - dx) ** 2 < (r + rng.normal(0, 15)) ** 2
    return out


def test_staple_speed_against_simpleitk() -> None:
    import SimpleITK as sitk

    masks = _masks()
    labels = masks.astype(np.uint8)
    t0 = time.perf_counter()
    f = sitk.STAPLEImageFilter()
    f.SetForegroundValue(1.0)
    prob = sitk.GetArrayFromImage(f.Execute([sitk.GetImageFromArray(m) for m in labels]))
    baseline = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = staple(labels)
    took = time.perf_counter() - t0
    np.testing.assert_allclose(result.sensitivity, f.GetSensitivity(), atol=1e-6)
    np.testing.assert_allclose(result.probability, prob, atol=1e-6)
    print(f"\nSTAPLE 3 × {SHAPE[0]} × {SHAPE[1]}: vote patterns {took * 1000:.0f} ms, "
          f"SimpleITK {baseline * 1000:.0f} ms ({f.GetElapsedIterations()} iterations); "
          f"speed-up {baseline / took:.1f}×")
    assert baseline / took >= MIN_SPEEDUP
