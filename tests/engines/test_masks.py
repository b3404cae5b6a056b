"""Rasterisation: golden pixel-centre tests, an exact reference, overlaps, agreement helpers."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.engines.geometry import contains_points
from slicereview.engines.masks import (
    BACKGROUND,
    CERTAIN,
    UNCERTAIN,
    binary_mask,
    polygon_mask,
    rasterize,
    stack_masks,
    union_boxes,
)
from slicereview.model import Certainty, Polygon


def box(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def reference(vertices, shape):
    """Exact even-odd test at every pixel centre (the definition of the convention)."""
    rows, cols = np.mgrid[0:shape[0], 0:shape[1]]
    centres = np.c_[cols.ravel() + 0.5, rows.ravel() + 0.5]
    return contains_points(vertices, centres).reshape(shape)


# -- golden tests ------------------------------------------------------------------------------
def test_unit_square_covers_exactly_one_pixel():
    labels = rasterize([Polygon(box(2, 3, 3, 4))], (8, 6))
    assert labels.dtype == np.uint8 and labels.shape == (8, 6)
    assert np.argwhere(labels).tolist() == [[3, 2]]
    assert labels[3, 2] == CERTAIN


def test_two_by_three_rectangle():
    labels = rasterize([Polygon(box(1, 2, 4, 4), Certainty.UNCERTAIN)], (6, 6))
    expected = np.zeros((6, 6), np.uint8)
    expected[2:4, 1:4] = UNCERTAIN
    np.testing.assert_array_equal(labels, expected)


def test_square_shifted_by_less_than_half_a_pixel_keeps_its_pixels():
    for d in (-0.49, -0.25, 0.25, 0.49):
        np.testing.assert_array_equal(
            np.argwhere(polygon_mask(box(2 + d, 3 + d, 3 + d, 4 + d), (8, 6))), [[3, 2]])


def test_triangle_through_pixel_centres_uses_the_half_open_rule():
    # Vertices on pixel centres: the ones exactly on the outline follow contains_points.
    tri = np.array([[0.5, 0.5], [4.5, 0.5], [0.5, 4.5]])
    got = polygon_mask(tri, (6, 6))
    np.testing.assert_array_equal(got, reference(tri, (6, 6)))
    assert got.sum() == 10  # rows 0..3 hold 4, 3, 2, 1 pixels


def test_tiles_sharing_edges_on_pixel_centres_cover_each_pixel_once():
    # Cut lines at half-integers pass through pixel centres: each centre belongs to one tile.
    xs, ys = [0, 2.5, 3.5, 7.5, 10], [0, 1.5, 4.5, 8]
    count = np.zeros((8, 10), int)
    for x0, x1 in zip(xs[:-1], xs[1:], strict=True):
        for y0, y1 in zip(ys[:-1], ys[1:], strict=True):
            count += polygon_mask(box(x0, y0, x1, y1), (8, 10))
    np.testing.assert_array_equal(count, 1)


# -- exactness against references --------------------------------------------------------------
half_grid = st.integers(-8, 48).map(lambda k: k / 2)  # integers and half-integers: boundary cases
anywhere = st.floats(-10, 50, allow_nan=False)


@given(st.lists(st.tuples(st.one_of(half_grid, anywhere), st.one_of(half_grid, anywhere)),
                min_size=3, max_size=25))
def test_matches_the_exact_reference_at_every_pixel_centre(pts):
    v = np.array(pts)
    np.testing.assert_array_equal(polygon_mask(v, (40, 37)), reference(v, (40, 37)))


@pytest.mark.slow  # 14 s
def test_large_random_polygons_match_reference_and_skimage():
    from skimage.draw import polygon as sk_polygon

    rng = np.random.default_rng(7)
    shape = (300, 260)
    for _ in range(20):
        t = np.sort(rng.uniform(0, 2 * np.pi, 200))
        r = rng.uniform(20, 120) * rng.uniform(0.5, 1.0, 200)
        v = np.c_[rng.uniform(0, 260) + r * np.cos(t), rng.uniform(0, 300) + r * np.sin(t)]
        got = polygon_mask(v, shape)
        np.testing.assert_array_equal(got, reference(v, shape))
        # skimage samples pixel centres at integer coordinates: shift by half a pixel.
        rr, cc = sk_polygon(v[:, 1] - 0.5, v[:, 0] - 0.5, shape)
        sk = np.zeros(shape, bool)
        sk[rr, cc] = True
        np.testing.assert_array_equal(got, sk)


def test_clipping_at_every_image_border():
    v = np.array([[-30.3, -20.7], [50.2, -10.1], [44.9, 60.6], [-5.5, 40.0]])
    for shape in [(10, 10), (30, 20), (100, 100)]:
        np.testing.assert_array_equal(polygon_mask(v, shape), reference(v, shape))


def test_polygon_outside_or_degenerate_covers_nothing():
    shape = (10, 10)
    for v in (box(20, 20, 30, 30), box(-5, -5, -1, -1), box(2, 2, 2, 8),
              np.array([[1.0, 1.0], [5.0, 5.0]]), np.zeros((0, 2)), box(2.6, 2.6, 3.4, 3.4)):
        assert not polygon_mask(v, shape).any()
    assert rasterize([], shape).sum() == 0
    assert rasterize([Polygon(box(0, 0, 1, 1))], (0, 0)).shape == (0, 0)


def test_far_away_vertices_do_not_overflow():
    v = np.array([[1.5, 1.5], [1e300, 1.5], [1e300, 1e300], [1.5, -1e300]])
    np.testing.assert_array_equal(polygon_mask(v, (6, 7)), reference(v, (6, 7)))
    assert polygon_mask(v, (6, 7)).sum() > 0


def test_polygon_mask_ors_into_out():
    out = polygon_mask(box(0, 0, 1, 1), (3, 3))
    same = polygon_mask(box(2, 2, 3, 3), (3, 3), out=out)
    assert same is out and np.argwhere(out).tolist() == [[0, 0], [2, 2]]


def test_self_intersecting_polygon_even_odd():
    # A pentagram: the central pentagon is crossed twice and stays empty.
    t = np.pi / 2 + np.arange(5) * 4 * np.pi / 5
    star = np.c_[50 + 40 * np.cos(t), 50 + 40 * np.sin(t)]
    got = polygon_mask(star, (100, 100))
    assert not got[50, 50] and got[85, 49]  # the centre is empty, a tip (y = 90) is full
    np.testing.assert_array_equal(got, reference(star, (100, 100)))


# -- labels ------------------------------------------------------------------------------------
def test_certain_wins_over_uncertain_in_any_order():
    a = Polygon(box(0, 0, 4, 2), Certainty.UNCERTAIN)
    b = Polygon(box(2, 0, 6, 2), Certainty.CERTAIN)
    for polys in ([a, b], [b, a]):
        labels = rasterize(polys, (2, 7))
        np.testing.assert_array_equal(labels[0], [2, 2, 1, 1, 1, 1, 0])


def test_same_certainty_polygons_form_a_union():
    a = Polygon(box(0, 0, 3, 1))
    b = Polygon(box(2, 0, 5, 1))
    np.testing.assert_array_equal(rasterize([a, b], (1, 6))[0], [1, 1, 1, 1, 1, 0])


def test_accepts_duck_typed_polygons_and_str_enums():
    class Sure:  # a str-valued enum-like object from someone else's script
        value = "uncertain"

    items = [SimpleNamespace(vertices=[[0, 0], [1, 0], [1, 1], [0, 1]], certainty="certain"),
             SimpleNamespace(vertices=box(1, 0, 2, 1).tolist(), certainty=Certainty.UNCERTAIN),
             SimpleNamespace(vertices=box(2, 0, 3, 1), certainty=Sure())]
    np.testing.assert_array_equal(rasterize(items, (1, 4))[0], [1, 2, 2, BACKGROUND])
    with pytest.raises(ValueError, match="certainty"):
        rasterize([SimpleNamespace(vertices=box(0, 0, 1, 1), certainty="maybe")], (2, 2))


def test_vertices_survive_float64_without_drift():
    # Vertices that are not exactly representable in float32 rasterise the same after a
    # round trip through the little-endian float64 bytes the project file stores.
    v = box(2.0000001, 3.0000001, 2.9999999, 3.9999999) + 1e-9
    back = np.frombuffer(np.asarray(v, "<f8").tobytes(), "<f8").reshape(-1, 2)
    np.testing.assert_array_equal(polygon_mask(back, (8, 6)), polygon_mask(v, (8, 6)))


# -- agreement helpers -------------------------------------------------------------------------
def test_binary_masks_and_stack():
    a = np.array([[0, 1], [2, 1]], np.uint8)
    b = np.array([[2, 2], [0, 0]], np.uint8)
    np.testing.assert_array_equal(binary_mask(a, "strict"), [[0, 1], [0, 1]])
    np.testing.assert_array_equal(binary_mask(a, "relaxed"), [[0, 1], [1, 1]])
    s = stack_masks([a, b], "relaxed")
    assert s.shape == (2, 2, 2) and s.dtype == bool
    np.testing.assert_array_equal(s[1], [[1, 1], [0, 0]])
    assert stack_masks([], "strict").shape == (0, 0, 0)
    with pytest.raises(ValueError):
        stack_masks([a, np.zeros((3, 3), np.uint8)])
    with pytest.raises(ValueError):
        binary_mask(a, "loose")  # type: ignore[arg-type]


def test_union_boxes():
    m = np.zeros((2, 6, 6), bool)
    m[0, 0:2, 0:2] = True
    m[1, 1:3, 1:3] = True  # overlaps the first: one component
    m[1, 5, 5] = True
    assert union_boxes(m) == [(slice(0, 3), slice(0, 3)), (slice(5, 6), slice(5, 6))]
    diag = np.eye(3, dtype=bool)
    assert len(union_boxes(diag, connectivity=2)) == 1
    assert len(union_boxes(diag, connectivity=1)) == 3
    assert union_boxes(np.zeros((4, 4), bool)) == []
