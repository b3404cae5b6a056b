"""Agreement speed on mammogram-sized masks (3 annotators × 4096 × 3328), against krippendorff.

The baseline is the ``krippendorff`` package called the way a user would: ``alpha`` on the
flattened masks as ``(raters, pixels)`` reliability data. For ``mask_alpha`` it is called once
on the same full 13.6 M pixels (several seconds, about 2 GB). For ``segmentation_agreement`` its
two image-level alphas are timed on the top quarter of the image and scaled ×4 (its cost is
linear in the number of units) to keep that test short. Our functions are timed on the full
image. Numbers are printed; run with ``-s`` to see them.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy import ndimage

from slicereview.engines.agreement import mask_alpha, segmentation_agreement

pytestmark = pytest.mark.benchmark

R, H, W = 3, 4096, 3328


def _best(fn, repeat: int = 5) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


@pytest.fixture(scope="module")
def labels() -> np.ndarray:
    """~50 jittered discs per annotator, certain or uncertain, some missed by one annotator."""
    rng = np.random.default_rng(2024)
    out = np.zeros((R, H, W), np.uint8)
    yy, xx = np.ogrid[-90:90, -90:90]
    for _ in range(50):
        cy, cx = int(rng.integers(100, H - 100)), int(rng.integers(100, W - 100))
        radius = int(rng.integers(8, 60))
        window = (slice(cy - 90, cy + 90), slice(cx - 90, cx + 90))
        for a in range(R):
            if rng.random() < 0.1:
                continue  # this annotator missed the region
            dy, dx, dr = rng.integers(-6, 7), rng.integers(-6, 7), rng.integers(-6, 7)
            disc = (yy - dy) ** 2 + (xx - dx) ** 2 <= (radius + dr) ** 2
            out[a][window][disc] = 1 if rng.random() < 0.7 else 2
    return out


def _krippendorff_seconds(masks: np.ndarray, rows: int, repeat: int = 1) -> tuple[float, float]:
    import krippendorff

    flat = masks[:, :rows].reshape(R, -1).astype(np.uint8)
    seconds, value = _best(
        lambda: krippendorff.alpha(reliability_data=flat, level_of_measurement="nominal"),
        repeat=repeat,
    )
    return seconds, float(value)


def test_mask_alpha_speed_against_krippendorff(labels):
    masks = labels != 0
    ours, alpha = _best(lambda: mask_alpha(masks))
    # The package on the same full-size data, called the way a user would (one call; it takes
    # seconds and about 2 GB, so once is enough to show the ratio).
    kripp_full, kripp_value = _krippendorff_seconds(masks, H, repeat=1)
    assert alpha == pytest.approx(kripp_value, rel=1e-9)
    ratio = kripp_full / ours
    print(
        f"\nmask_alpha {R}x{H}x{W}: {ours * 1e3:.1f} ms (alpha {alpha:.4f}); "
        f"krippendorff.alpha on the same data: {kripp_full:.2f} s; ratio {ratio:.0f}x"
    )
    assert ours <= 0.1
    assert ratio >= 50


def _naive_boxes(masks: np.ndarray) -> list[float]:
    """Baseline boxes: ndimage components, then krippendorff.alpha on each box's pixels."""
    import krippendorff

    labelled, _ = ndimage.label(masks.any(axis=0), structure=np.ones((3, 3)))
    out = []
    for box in ndimage.find_objects(labelled):
        flat = masks[(slice(None), *box)].reshape(R, -1).astype(np.uint8)
        out.append(float(krippendorff.alpha(reliability_data=flat,
                                            level_of_measurement="nominal")))
    return out


def test_segmentation_agreement_speed(labels):
    ours, result = _best(lambda: segmentation_agreement(labels), repeat=3)
    n_boxes = (result.strict.n_boxes, result.relaxed.n_boxes)

    strict, relaxed = labels == 1, labels != 0
    start = time.perf_counter()
    naive = [_naive_boxes(strict), _naive_boxes(relaxed)]
    boxes_seconds = time.perf_counter() - start
    for level, expected in zip((result.strict, result.relaxed), naive, strict=True):
        assert [b.alpha for b in level.boxes] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # The baseline's two image-level alphas, scaled from a quarter of the image as above.
    quarter = H // 4
    image_seconds = sum(_krippendorff_seconds(m, quarter)[0] for m in (strict, relaxed))
    baseline = boxes_seconds + image_seconds * H / quarter
    print(
        f"\nsegmentation_agreement {R}x{H}x{W} strict+relaxed, boxes {n_boxes}: "
        f"{ours * 1e3:.0f} ms; baseline (krippendorff per box {boxes_seconds:.2f} s + "
        f"2 image alphas scaled {image_seconds * H / quarter:.1f} s) {baseline:.1f} s; "
        f"ratio {baseline / ours:.0f}x"
    )
    assert 40 <= n_boxes[1] <= 50
    assert ours <= 0.5
