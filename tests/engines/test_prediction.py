"""Tiles, blending weights and label images shared by the model engines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.engines.prediction import (
    Cancelled,
    Prediction,
    blend_weights,
    check,
    check_thresholds,
    label_image,
    margin_tiles,
    overlapping_tiles,
)

shapes = st.tuples(st.integers(1, 300), st.integers(1, 300))


@given(shapes, st.integers(16, 128), st.data())
def test_overlapping_tiles_cover_the_image_with_full_tiles(shape, size, data):
    overlap = data.draw(st.integers(0, size // 2))
    boxes = overlapping_tiles(shape, size, overlap)
    covered = np.zeros(shape, int)
    for r0, c0, r1, c1 in boxes:
        assert 0 <= r0 < r1 <= shape[0] and 0 <= c0 < c1 <= shape[1]
        assert r1 - r0 == min(size, shape[0]) and c1 - c0 == min(size, shape[1])
        covered[r0:r1, c0:c1] += 1
    assert covered.min() >= 1
    assert len(set(boxes)) == len(boxes)


@given(shapes, st.integers(16, 128), st.data())
def test_blended_weights_are_positive_and_sum_to_one_where_tiles_meet_evenly(shape, size,
                                                                          data):
    overlap = data.draw(st.integers(0, size // 2))
    total = np.zeros(shape)
    for box in overlapping_tiles(shape, size, overlap):
        w = blend_weights(box, shape, overlap)
        assert w.dtype == np.float32 and w.shape == (box[2] - box[0], box[3] - box[1])
        assert w.min() > 0 and w.max() <= 1
        total[box[0]:box[2], box[1]:box[3]] += w
    assert total.min() > 0
    # A blend of constant tiles is that constant wherever the weights are divided by the sum.
    assert np.allclose((total * 0.7) / total, 0.7)


def test_evenly_spaced_ramps_sum_to_one():
    shape = (1, 112)  # tiles 64 with overlap 16: starts 0 and 48, exactly 16 apart
    boxes = overlapping_tiles(shape, 64, 16)
    assert [b[1] for b in boxes] == [0, 48]
    total = np.zeros(shape)
    for box in boxes:
        total[:, box[1]:box[3]] += blend_weights(box, shape, 16)
    np.testing.assert_allclose(total, 1.0, atol=1e-6)


@given(shapes, st.integers(12, 100), st.integers(0, 40))
def test_margin_tiles_are_disjoint_cores_in_clipped_spans(shape, size, margin):
    covered = np.zeros(shape, int)
    for tile in margin_tiles(shape, size, margin):
        r0, c0, r1, c1 = tile.core
        covered[r0:r1, c0:c1] += 1
        w0, wc0, w1, wc1 = tile.span
        assert (w0, wc0) == (max(r0 - margin, 0), max(c0 - margin, 0))
        assert (w1, wc1) == (min(r1 + margin, shape[0]), min(c1 + margin, shape[1]))
        span = np.zeros((w1 - w0, wc1 - wc0), bool)
        span[tile.inner] = True
        assert span.sum() == (r1 - r0) * (c1 - c0)
    assert (covered == 1).all()


def test_degenerate_tilings():
    assert overlapping_tiles((0, 10), 16) == []
    assert margin_tiles((0, 10), 16, 2) == []
    with pytest.raises(ValueError):
        overlapping_tiles((10, 10), 16, 16)
    with pytest.raises(ValueError):
        margin_tiles((10, 10), 0, 2)


def test_label_image_and_thresholds():
    p = np.array([[0.0, 0.29, 0.3, 0.49], [0.5, 0.99, 1.0, 0.3]], np.float32)
    assert label_image(p, 0.5, 0.3).tolist() == [[0, 0, 2, 2], [1, 1, 1, 2]]
    assert label_image(p, 0.5, 0.5).tolist() == [[0, 0, 0, 0], [1, 1, 1, 0]]
    for certain, uncertain in [(0.3, 0.5), (0.5, 0.0), (1.5, 0.5), (float("nan"), 0.2)]:
        with pytest.raises(ValueError, match="thresholds"):
            check_thresholds(certain, uncertain)
    prediction = Prediction.of(p.astype(np.float64), 0.5, 0.3)
    assert prediction.probability.dtype == np.float32
    assert prediction.labels.tolist() == label_image(p, 0.5, 0.3).tolist()


def test_check_raises_cancelled_only_when_asked():
    check(None)
    check(lambda: False)
    with pytest.raises(Cancelled):
        check(lambda: True)


@given(shapes, st.integers(16, 128), st.data())
def test_summed_weights_are_the_outer_product_of_summed_ramps(shape, size, data):
    from slicereview.engines.prediction import blend_ramps

    overlap = data.draw(st.integers(0, size // 2))
    boxes = overlapping_tiles(shape, size, overlap)
    total = np.zeros(shape)
    rows, cols = np.zeros(shape[0]), np.zeros(shape[1])
    for box in boxes:
        total[box[0]:box[2], box[1]:box[3]] += blend_weights(box, shape, overlap)
        wr, wc = blend_ramps(box, shape, overlap)
        if box[1] == boxes[0][1]:
            rows[box[0]:box[2]] += wr
        if box[0] == boxes[0][0]:
            cols[box[1]:box[3]] += wc
    np.testing.assert_allclose(total, np.outer(rows, cols), rtol=1e-5)
