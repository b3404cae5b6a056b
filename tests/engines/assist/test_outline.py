"""Masks to outlines: exact at tolerance 0, within the tolerance otherwise, holes bridged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from slicereview.engines.assist import label_outlines, model_polygons, outlines
from slicereview.engines.masks import rasterize
from slicereview.model import Certainty


def _raster(polys, shape):
    return rasterize(model_polygons(polys), shape)


def _random_mask(seed: int, shape=(40, 50), density=0.45, smooth=1.5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return ndimage.gaussian_filter(rng.random(shape), smooth) > np.quantile(
        ndimage.gaussian_filter(rng.random(shape), smooth), 1 - density)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_tolerance_zero_reproduces_any_mask_exactly(seed):
    mask = _random_mask(seed)
    labels = _raster([(True, v) for v in outlines(mask, tolerance=0)], mask.shape)
    assert np.array_equal(labels == 1, mask)


def test_pixel_noise_with_diagonal_contacts_is_exact():
    rng = np.random.default_rng(3)
    mask = rng.random((30, 30)) > 0.5  # many single pixels touching at corners
    labels = _raster([(True, v) for v in outlines(mask, tolerance=0)], mask.shape)
    assert np.array_equal(labels == 1, mask)


@pytest.mark.parametrize("seed", range(8))
def test_simplified_outlines_change_pixels_only_within_the_tolerance(seed):
    mask = _random_mask(seed, shape=(80, 90), density=0.4, smooth=3.0)
    for tol in (0.5, 1.0, 2.0):
        labels = _raster([(True, v) for v in outlines(mask, tolerance=tol)], mask.shape)
        changed = (labels == 1) != mask
        # A changed pixel's centre lies within `tol` of the unsimplified outline, which runs
        # half a pixel from the boundary pixels: so within ceil(tol + 0.5) pixels of a pixel
        # on the other side.
        edge = mask ^ ndimage.binary_erosion(mask, np.ones((3, 3)), border_value=0)
        edge |= ~mask & ndimage.binary_dilation(mask, np.ones((3, 3)))
        reach = int(np.ceil(tol + 0.5))
        near = ndimage.binary_dilation(edge, np.ones((3, 3)), iterations=reach)
        assert not (changed & ~near).any()


def test_a_ring_becomes_one_outline_whose_hole_stays_empty():
    ring = np.zeros((30, 30), bool)
    ring[3:27, 3:27] = True
    ring[10:20, 9:21] = False
    polys = outlines(ring, tolerance=0)
    assert len(polys) == 1
    labels = _raster([(True, polys[0])], ring.shape)
    assert np.array_equal(labels == 1, ring)
    # The bridge: some vertex is visited twice (the outline goes in and comes back out)...
    v = polys[0]
    assert len({tuple(p) for p in v.tolist()}) < len(v)
    # ...along a row, from the hole's right side to the outline's (geometry.bridge_holes, as
    # the brush's and the eraser's holes)
    edges = list(zip(v, np.roll(v, -1, axis=0), strict=True))
    on_no_ring = [(a, b) for a, b in edges if a[0] == b[0] and abs(a[1] - b[1]) > 1]
    assert len(on_no_ring) == 2
    assert all(10 < a[0] < 20 and sorted([a[1], b[1]]) == [21.0, 27.0] for a, b in on_no_ring)


def test_holes_islands_and_nested_rings():
    m = np.zeros((60, 60), bool)
    m[2:58, 2:58] = True
    m[8:52, 8:52] = False      # a hole
    m[14:46, 14:46] = True     # an island in the hole
    m[20:40, 20:40] = False    # with its own hole
    m[27:33, 27:33] = True     # and an island in that
    m[4:6, 20:24] = False      # a small hole in the outer ring
    polys = outlines(m, tolerance=0)
    assert len(polys) == 3     # outer ring, middle ring, innermost square
    assert np.array_equal(_raster([(True, v) for v in polys], m.shape) == 1, m)
    simplified = outlines(m)
    got = _raster([(True, v) for v in simplified], m.shape) == 1
    assert (got != m).sum() <= 0.02 * m.sum()


def test_label_outlines_give_the_label_image_back():
    lab = np.zeros((40, 40), np.uint8)
    lab[5:35, 5:35] = 2
    lab[10:30, 10:30] = 1
    lab[15:20, 15:20] = 0      # a hole through both
    lab[36:39, 2:6] = 1        # a certain part with no uncertain margin
    polys = label_outlines(lab, tolerance=0)
    assert [c for c, _ in polys] == [False, True, True]  # no uncertain copy of the lone part
    assert np.array_equal(_raster(polys, lab.shape), lab)


def test_offset_places_a_crop_in_the_image():
    m = np.zeros((5, 5), bool)
    m[1:3, 2:4] = True
    [v] = outlines(m, tolerance=0, offset=(100, 7))
    full = np.zeros((110, 20), bool)
    full[101:103, 9:11] = True
    assert np.array_equal(_raster([(True, v)], full.shape) == 1, full)


def test_model_polygons_swap_to_x_y_with_certainty():
    v = np.array([[1.0, 2.0], [1.0, 6.0], [5.0, 6.0]])
    a, b = model_polygons([(True, v), (False, v)])
    assert a.certainty is Certainty.CERTAIN and b.certainty is Certainty.UNCERTAIN
    assert a.vertices.tolist() == [[2.0, 1.0], [6.0, 1.0], [6.0, 5.0]]


def test_degenerate_masks():
    assert outlines(np.zeros((5, 5), bool)) == []
    one = np.zeros((5, 5), bool)
    one[2, 3] = True
    [v] = outlines(one)  # a single pixel survives simplification as its diamond
    assert len(v) == 4
    assert np.array_equal(_raster([(True, v)], one.shape) == 1, one)
    full = np.ones((4, 6), bool)  # touching every side of the array
    assert np.array_equal(_raster([(True, v) for v in outlines(full)], full.shape) == 1, full)


def test_thin_tubes_stay_valid_after_simplification():
    # A 2 px wide wavy tube: its two sides are 2 px apart, closer than twice the tolerance.
    rr, cc = np.mgrid[:40, :200] + 0.5
    tube = np.abs(rr - (20 + 10 * np.sin(cc / 20))) <= 1.0
    [v] = outlines(tube)
    got = _raster([(True, v)], tube.shape) == 1
    dice = 2 * (got & tube).sum() / (got.sum() + tube.sum())
    assert dice > 0.9
    import shapely

    assert shapely.Polygon(v).is_valid  # no side crosses the other


def test_blob_sized_objects_take_at_most_40_vertices_and_lose_at_most_001_dice():
    from slicereview.demo.annotators import blob
    from slicereview.engines.masks import polygon_mask

    rng = np.random.default_rng(7)
    for radius in (8, 16, 24, 32, 40):
        truth = polygon_mask(blob((60, 60), radius, rng), (120, 120))
        [v] = outlines(truth)
        got = _raster([(True, v)], truth.shape) == 1
        dice = 2 * (got & truth).sum() / (got.sum() + truth.sum())
        assert len(v) <= 40, (radius, len(v))
        assert dice >= 0.99, (radius, dice)


def test_bad_input():
    with pytest.raises(ValueError, match="tolerance"):
        outlines(np.ones((3, 3), bool), tolerance=-1)
    with pytest.raises(ValueError, match="rows, cols"):
        outlines(np.ones((3, 3, 3), bool))
    with pytest.raises(ValueError, match="0 .background., 1 .certain. and 2"):
        label_outlines(np.full((3, 3), 5, np.uint8))
