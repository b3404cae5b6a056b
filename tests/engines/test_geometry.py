"""Polygon operations: examples and hypothesis properties (matplotlib is an independent oracle)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from slicereview.engines import geometry as g

SQUARE = np.array([[0, 0], [4, 0], [4, 4], [0, 4]], dtype=float)

coord = st.floats(-500, 500, allow_nan=False, allow_infinity=False)


@st.composite
def polygons(draw, min_size=3, max_size=30):
    n = draw(st.integers(min_size, max_size))
    pts = draw(st.lists(st.tuples(coord, coord), min_size=n, max_size=n))
    return np.array(pts, dtype=float)


@st.composite
def star_polygons(draw):
    """Simple (non-self-intersecting) polygons: vertices at increasing angles round a centre."""
    n = draw(st.integers(3, 40))
    cx, cy = draw(coord), draw(coord)
    angles = np.sort(np.array(draw(st.lists(st.floats(0, 2 * math.pi, exclude_max=True),
                                            min_size=n, max_size=n, unique=True))))
    radii = np.array(draw(st.lists(st.floats(1, 100), min_size=n, max_size=n)))
    return np.c_[cx + radii * np.cos(angles), cy + radii * np.sin(angles)]


# -- edits -------------------------------------------------------------------------------------
def test_edits_return_new_arrays_and_leave_input_alone():
    v = SQUARE.copy()
    for out in (g.move_vertex(v, 0, (1, 1)), g.insert_vertex(v, 0, (2, 0)),
                g.delete_vertex(v, 0), g.translate(v, 1, 1), g.simplify(v, 1.0)):
        assert not np.shares_memory(out, v)
        assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(v, SQUARE)


def test_insert_on_closing_edge_appends():
    out = g.insert_vertex(SQUARE, 3, (0, 2))
    np.testing.assert_array_equal(out[-1], [0, 2])
    np.testing.assert_array_equal(out[:4], SQUARE)


def test_insert_into_empty_polygon_starts_it():
    np.testing.assert_array_equal(g.insert_vertex(np.zeros((0, 2)), 0, (1, 2)), [[1, 2]])


def test_delete_vertex_of_triangle_refused():
    with pytest.raises(ValueError, match="delete the polygon"):
        g.delete_vertex(SQUARE[:3], 0)


@pytest.mark.parametrize("index", [4, -5])
def test_vertex_index_out_of_range(index):
    with pytest.raises(IndexError):
        g.move_vertex(SQUARE, index, (0, 0))


@pytest.mark.parametrize("bad", [[[0, np.nan]], [[0, np.inf]], [1, 2, 3], [[1, 2, 3]]])
def test_bad_vertices_rejected(bad):
    with pytest.raises(ValueError):
        g.as_vertices(bad)


def test_bad_point_rejected():
    with pytest.raises(ValueError):
        g.move_vertex(SQUARE, 0, (np.nan, 1))


@given(polygons(min_size=4), st.data())
def test_insert_then_delete_is_identity(v, data):
    edge = data.draw(st.integers(0, len(v) - 1))
    xy = data.draw(st.tuples(coord, coord))
    out = g.insert_vertex(v, edge, xy)
    assert len(out) == len(v) + 1
    np.testing.assert_array_equal(out[(edge + 1) % len(out)], xy)
    np.testing.assert_array_equal(g.delete_vertex(out, edge + 1), v)


@given(polygons(), st.data())
def test_move_vertex_changes_only_that_vertex(v, data):
    i = data.draw(st.integers(-len(v), len(v) - 1))
    xy = data.draw(st.tuples(coord, coord))
    out = g.move_vertex(v, i, xy)
    np.testing.assert_array_equal(out[i], xy)
    np.testing.assert_array_equal(np.delete(out, i % len(v), 0), np.delete(v, i % len(v), 0))


@given(polygons(), coord, coord)
def test_translate_keeps_area_and_shape(v, dx, dy):
    out = g.translate(v, dx, dy)
    np.testing.assert_allclose(out - v, np.broadcast_to([dx, dy], v.shape), atol=1e-9)
    assert g.signed_area(out) == pytest.approx(g.signed_area(v), rel=1e-9, abs=1e-6)


# -- area --------------------------------------------------------------------------------------
def test_area_examples():
    assert g.area(SQUARE) == 16.0
    assert g.signed_area(SQUARE) == 16.0  # clockwise on screen (y down)
    assert g.signed_area(SQUARE[::-1]) == -16.0
    assert g.area(SQUARE[:2]) == 0.0 and g.area(np.zeros((0, 2))) == 0.0
    bowtie = [[0, 0], [2, 2], [2, 0], [0, 2]]  # the two lobes cancel
    assert g.area(bowtie) == 0.0


def test_area_of_regular_polygon_far_from_origin():
    n, r = 200, 50.0
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    v = np.c_[1e6 + r * np.cos(t), 1e6 + r * np.sin(t)]
    assert g.area(v) == pytest.approx(0.5 * n * r * r * np.sin(2 * np.pi / n), rel=1e-9)


@given(polygons(), st.integers(0, 50))
def test_area_invariant_under_rotation_and_flips_on_reversal(v, k):
    a = g.signed_area(v)
    assert g.signed_area(np.roll(v, k, axis=0)) == pytest.approx(a, rel=1e-9, abs=1e-6)
    assert g.signed_area(v[::-1]) == pytest.approx(-a, rel=1e-9, abs=1e-6)


def test_bounds():
    assert g.bounds(SQUARE) == (0.0, 0.0, 4.0, 4.0)
    with pytest.raises(ValueError):
        g.bounds(np.zeros((0, 2)))


# -- simplify ----------------------------------------------------------------------------------
def test_simplify_noisy_circle_stroke():
    rng = np.random.default_rng(1)
    t = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    stroke = np.c_[100 + 40 * np.cos(t), 80 + 40 * np.sin(t)] + rng.normal(0, 0.2, (2000, 2))
    out = g.simplify(stroke, 1.0)
    assert 10 < len(out) < 100
    assert g.area(out) == pytest.approx(np.pi * 40**2, rel=0.03)


def test_simplify_collinear_keeps_three_vertices():
    thin = np.array([[0, 0], [1, 0], [2, 0], [3, 0], [2, 0.001], [1, 0.001]], dtype=float)
    out = g.simplify(thin, 5.0)
    assert len(out) == 3
    assert all(any(np.array_equal(p, q) for q in thin) for p in out)


def test_simplify_zero_tolerance_only_drops_duplicates():
    v = np.array([[0, 0], [0, 0], [1, 0], [1, 0.5], [1, 1], [0, 0]], dtype=float)
    np.testing.assert_array_equal(g.simplify(v, 0), [[0, 0], [1, 0], [1, 0.5], [1, 1]])


@given(star_polygons(), st.floats(0.01, 20))
def test_simplify_keeps_a_subset_within_tolerance(v, tol):
    assume(len(np.unique(v, axis=0)) == len(v))
    out = g.simplify(v, tol)
    assert len(out) >= 3
    assert len(out) <= len(v)
    # Each output vertex is an input vertex, in the same cyclic order.
    idx = [int(np.flatnonzero((v == p).all(axis=1))[0]) for p in out]
    start = idx.index(min(idx))
    assert idx[start:] + idx[:start] == sorted(idx)
    if len(out) > 3 or len(v) == 3:
        # Every dropped vertex lies within tol of the simplified outline.
        d = g._distance_to_segments(v, out, np.roll(out, -1, axis=0)).min(axis=1)
        assert (d <= tol + 1e-9).all()


# -- hit testing -------------------------------------------------------------------------------
def test_hit_vertex_and_edge():
    assert g.hit_vertex(SQUARE, (4.3, 4.3), tol=0.5) == 2
    assert g.hit_vertex(SQUARE, (2, 2), tol=0.5) is None
    assert g.hit_vertex(np.zeros((0, 2)), (0, 0), 1) is None
    assert g.hit_edge(SQUARE, (4.4, 2), tol=0.5) == 1
    assert g.hit_edge(SQUARE, (2, 2), tol=0.5) is None
    assert g.hit_edge(SQUARE[:1], (0, 0), 1) is None


def test_tolerance_in_screen_pixels():
    # 6 screen pixels at 300 % zoom are 2 image pixels: a click 1.5 px away hits, 2.5 px misses.
    tol = g.image_tolerance(6, zoom=3.0)
    assert g.hit_vertex(SQUARE, (5.5, 4), tol) == 2
    assert g.hit_vertex(SQUARE, (6.5, 4), tol) is None
    with pytest.raises(ValueError):
        g.image_tolerance(6, zoom=0)


def test_nearest_edge_with_degenerate_edge():
    v = np.array([[0, 0], [0, 0], [4, 0], [4, 4]], dtype=float)
    e, d, foot = g.nearest_edge(v, (0, -1))
    assert d == 1.0 and foot.tolist() == [0.0, 0.0] and e == 0
    with pytest.raises(ValueError):
        g.nearest_edge(v[:1], (0, 0))


@given(polygons(min_size=2), st.tuples(coord, coord))
def test_nearest_edge_foot_is_on_edge_and_no_farther_than_vertices(v, xy):
    e, d, foot = g.nearest_edge(v, xy)
    assert d <= np.hypot(*(v - xy).T).min() + 1e-9
    a, b = v[e], v[(e + 1) % len(v)]
    # foot lies on segment a-b
    assert np.hypot(*(foot - a)) + np.hypot(*(foot - b)) == pytest.approx(
        np.hypot(*(b - a)), rel=1e-9, abs=1e-7)
    assert d == pytest.approx(np.hypot(*(foot - np.asarray(xy))), abs=1e-9)


@given(star_polygons(), st.tuples(coord, coord))
def test_inserting_at_nearest_foot_keeps_area(v, xy):
    e, _, foot = g.nearest_edge(v, xy)
    assert g.area(g.insert_vertex(v, e, foot)) == pytest.approx(g.area(v), rel=1e-7, abs=1e-6)


# -- point in polygon --------------------------------------------------------------------------
def test_contains_examples():
    assert g.contains(SQUARE, (1, 1))
    assert not g.contains(SQUARE, (5, 1))
    assert not g.contains(SQUARE[:2], (0, 0))
    bowtie = [[0, 0], [4, 4], [4, 0], [0, 4]]
    assert g.contains(bowtie, (3.5, 2)) and not g.contains(bowtie, (2, 0.5))


def test_contains_half_open_rule_on_shared_edges():
    left = [[0, 0], [2, 0], [2, 4], [0, 4]]
    right = [[2, 0], [4, 0], [4, 4], [2, 4]]
    top = [[0, 0], [4, 0], [4, 2], [0, 2]]
    bottom = [[0, 2], [4, 2], [4, 4], [0, 4]]
    on_vertical, on_horizontal = (2, 1), (1, 2)
    assert g.contains(left, on_vertical) + g.contains(right, on_vertical) == 1
    assert g.contains(top, on_horizontal) + g.contains(bottom, on_horizontal) == 1


@given(polygons(max_size=15), st.lists(st.tuples(coord, coord), min_size=1, max_size=30))
def test_contains_points_matches_matplotlib_off_the_boundary(v, pts):
    from matplotlib.path import Path as MplPath

    pts = np.array(pts)
    d = g._distance_to_segments(pts, v, np.roll(v, -1, axis=0)).min(axis=1)
    pts = pts[d > 1e-6]
    assume(len(pts) > 0)
    # matplotlib's even-odd rule, used here as an independent oracle.
    codes = [MplPath.MOVETO] + [MplPath.LINETO] * (len(v) - 1) + [MplPath.CLOSEPOLY]
    expected = MplPath(np.vstack([v, v[:1]]), codes).contains_points(pts)
    np.testing.assert_array_equal(g.contains_points(v, pts), expected)


def test_pick_topmost():
    a = SQUARE
    b = SQUARE + 2
    assert g.pick([a, b], (3, 3), tol=0.1) == 1
    assert g.pick([a, b], (1, 1), tol=0.1) == 0
    assert g.pick([a, b], (6.3, 3), tol=0.5) == 1  # near b's edge, outside both
    assert g.pick([a, b], (9, 9), tol=0.5) is None
    assert g.pick([np.zeros((0, 2))], (0, 0), 1) is None


# -- holes ---------------------------------------------------------------------------------------
def _bridges(ring: np.ndarray, rings: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The edges of ``ring`` that lie on none of ``rings`` (the outer ring and the holes)."""
    import shapely

    boundary = shapely.union_all([shapely.LinearRing(r) for r in rings])
    return [(a, b) for a, b in zip(ring, np.roll(ring, -1, axis=0), strict=True)
            if not boundary.covers(shapely.LineString([a, b]))]


@given(st.integers(0, 10_000))
def test_bridged_holes_fill_exactly_the_region_and_the_bridges_cross_nothing(seed: int) -> None:
    import shapely

    rng = np.random.default_rng(seed)
    outer = np.array([[0, 0], [200, 0], [200, 120], [100, 90], [0, 120]], float)
    holes: list[np.ndarray] = []
    # random squares and triangles, apart, no pixel centre on an edge
    for _ in range(int(rng.integers(1, 6))):
        x, y, s = rng.integers(10, 170), rng.integers(10, 60), rng.integers(4, 20)
        h = np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float) + 0.3
        if rng.random() < 0.5:
            h = h[[0, 1, 3]]
        if rng.random() < 0.5:
            h = h[::-1]  # either orientation is accepted
        if all(shapely.Polygon(h).buffer(1).disjoint(shapely.Polygon(o)) for o in holes):
            holes.append(h)
    ring = g.bridge_holes(outer, holes)
    piece = shapely.Polygon(outer, holes)
    y, x = np.mgrid[0:125, 0:205] + 0.5
    inside = g.contains_points(ring, np.c_[x.ravel(), y.ravel()]).reshape(x.shape)
    assert np.array_equal(inside, shapely.contains_xy(piece, x, y))
    bridges = _bridges(ring, [outer] + holes)
    assert len(bridges) == 2 * len(holes)
    assert all(a[1] == b[1] for a, b in bridges)  # horizontal
    closed = piece.buffer(1e-9)
    for a, b in bridges:  # a bridge runs inside the region: through no hole, never outside
        assert closed.covers(shapely.LineString([a, b]))
    assert g.signed_area(ring) > 0


def test_a_bridge_whose_row_runs_through_a_vertex_of_the_outline() -> None:
    outer = np.array([[0, 0], [10, 0], [12, 5], [10, 10], [0, 10]], float)  # vertex at y = 5
    ring = g.bridge_holes(outer, [np.array([[3, 3], [6, 5], [3, 7]], float)])
    assert g.area(ring) == pytest.approx(g.area(outer) - 6.0)
    assert not g.contains(ring, (4, 5)) and g.contains(ring, (9, 5))
    assert len(ring) == len(outer) + 3 + 2  # the foot is the vertex: it is not repeated


def test_a_hole_outside_the_outline_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        g.bridge_holes(SQUARE, [SQUARE + 10])
