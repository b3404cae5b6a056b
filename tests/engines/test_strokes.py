"""Brush and eraser strokes (engines/strokes.py): each rule of the module docstring on a case
whose answer is known, and the masks of random strokes on random polygons against an
independent oracle — a pixel is under a round brush when its centre lies within the radius of
the path (plain numpy distances), away from a band of the outline tolerance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from slicereview.engines import geometry
from slicereview.engines.masks import polygon_mask, rasterize
from slicereview.engines.strokes import (
    apply_stroke,
    area_of,
    outline,
    region,
    stroke_region,
)
from slicereview.model import Certainty, Polygon

SHAPE = (120, 160)  # rows, cols


def _square(x0, y0, x1, y1, **kw) -> Polygon:
    return Polygon(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float), **kw)


def _distance_to_path(path: np.ndarray, shape=SHAPE) -> np.ndarray:
    """``(rows, cols)`` distances of the pixel centres to the polyline ``path`` (the oracle)."""
    rows, cols = shape
    y, x = np.mgrid[0:rows, 0:cols] + 0.5
    p = np.c_[x.ravel(), y.ravel()]
    path = np.asarray(path, float).reshape(-1, 2)
    if len(path) == 1:
        d = np.hypot(*(p - path[0]).T)
    else:
        a, b = path[:-1], path[1:]
        ab = b - a
        t = ((p[:, None, :] - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-300)
        foot = a + np.clip(t, 0, 1)[..., None] * ab
        d = np.hypot(*(p[:, None, :] - foot).transpose(2, 0, 1)).min(axis=1)
    return d.reshape(shape)


def _mask(polygons) -> np.ndarray:
    return rasterize(list(polygons), SHAPE) > 0


def _agree_outside_band(got: np.ndarray, want: np.ndarray, d: np.ndarray, r: float,
                        tol: float) -> None:
    """``got`` equals ``want`` wherever the pixel centre is farther than ``tol`` from the
    brush's edge (distance ``r`` from the path)."""
    sure = np.abs(d - r) > tol
    wrong = (got != want) & sure
    assert not wrong.any(), np.argwhere(wrong)[:10].tolist()


# -- painting ----------------------------------------------------------------------------------
def test_paint_with_nothing_selected_is_a_new_polygon_of_the_given_certainty() -> None:
    path = np.array([[20.0, 30.0], [60.0, 35.0], [90.0, 80.0]])
    result = apply_stroke([], path, 6.0, certainty=Certainty.UNCERTAIN)
    assert result.before == () and len(result.after) == 1
    new = result.after[0]
    assert new.id is None and new.certainty is Certainty.UNCERTAIN
    d = _distance_to_path(path)
    _agree_outside_band(polygon_mask(new.vertices, SHAPE), d <= 6.0, d, 6.0, 1.0)


def test_paint_adds_to_the_selected_polygon_and_keeps_what_it_was() -> None:
    base = _square(20, 20, 60, 60, id=3, certainty="uncertain", label="calc",
                   classifications={"kind": "vessel"})
    other = _square(100, 20, 140, 60, id=4)
    path = np.array([[55.0, 40.0], [80.0, 40.0]])  # out of the right side
    result = apply_stroke([base, other], path, 5.0, selected=3)
    assert [p.id for p in result.before] == [3]
    [after] = result.after
    assert after.id == 3 and after.certainty is Certainty.UNCERTAIN
    assert after.label == "calc" and after.classifications == {"kind": "vessel"}
    d = _distance_to_path(path)
    _agree_outside_band(_mask([after]), _mask([base]) | (d <= 5.0), d, 5.0, 1.0)


def test_paint_beside_the_selected_polygon_gives_it_a_second_piece() -> None:
    base = _square(20, 20, 60, 60, id=3, classifications={"kind": "vessel"})
    result = apply_stroke([base], [[100.0, 90.0], [120.0, 90.0]], 4.0, selected=3)
    kept, new = result.after
    assert kept.id == 3 and new.id is None
    assert area_of(kept.vertices) == pytest.approx(1600)  # the polygon itself, unchanged
    assert new.classifications == {"kind": "vessel"} and new.certainty is base.certainty
    assert new.classifications is not base.classifications


def test_paint_inside_the_selected_polygon_changes_nothing() -> None:
    base = _square(20, 20, 60, 60, id=3)
    result = apply_stroke([base], [[30.0, 30.0], [50.0, 50.0]], 3.0, selected=3)
    assert not result.changed and result.after == ()


def test_painting_a_closed_loop_makes_a_ring_with_its_hole() -> None:
    t = np.linspace(0, 2 * math.pi, 200)
    path = np.c_[80 + 30 * np.cos(t), 60 + 30 * np.sin(t)]
    [ring] = apply_stroke([], path, 5.0).after
    assert not geometry.contains(ring.vertices, (80, 60))  # the hole is out of the mask
    d = _distance_to_path(path)
    _agree_outside_band(polygon_mask(ring.vertices, SHAPE), d <= 5.0, d, 5.0, 1.0)
    assert len(ring.vertices) < 150  # 200 mouse samples make no 400-vertex outline


# -- erasing -----------------------------------------------------------------------------------
def test_erasing_across_a_polygon_splits_it_in_two() -> None:
    base = _square(20, 20, 100, 60, id=5, label="x", classifications={"a": 1})
    path = np.array([[70.0, 0.0], [70.0, 100.0]])  # the right piece is the smaller one
    result = apply_stroke([base], path, 3.0, erase=True, selected=5)
    kept, new = result.after
    assert kept.id == 5 and new.id is None  # the larger piece keeps the id
    assert area_of(kept.vertices) > area_of(new.vertices)
    assert (new.label, new.classifications, new.certainty) == ("x", {"a": 1}, base.certainty)
    d = _distance_to_path(path)
    _agree_outside_band(_mask(result.after), _mask([base]) & (d > 3.0), d, 3.0, 1.0)


def test_erasing_a_polygon_away_deletes_it() -> None:
    small = _square(40, 40, 44, 44, id=9)
    result = apply_stroke([small], [[42.0, 42.0]], 10.0, erase=True, selected=9)
    assert [p.id for p in result.before] == [9] and result.after == ()
    assert result.deleted == [9]


def test_erasing_inside_a_polygon_makes_a_hole_bridged_to_the_outline() -> None:
    base = _square(20, 20, 140, 100, id=1)
    result = apply_stroke([base], [[80.0, 60.0]], 15.0, erase=True, selected=1)
    [holed] = result.after
    assert holed.id == 1
    assert not geometry.contains(holed.vertices, (80, 60))
    assert geometry.contains(holed.vertices, (30, 60))
    d = _distance_to_path(np.array([[80.0, 60.0]]))
    _agree_outside_band(polygon_mask(holed.vertices, SHAPE), _mask([base]) & (d > 15.0), d,
                        15.0, 1.0)
    assert area_of(holed.vertices) == pytest.approx(120 * 80 - math.pi * 15 ** 2, rel=0.01)
    # the outline read back is the holed region (an erase next to it changes only its pixels)
    again = apply_stroke([holed], [[30.0, 30.0]], 4.0, erase=True, selected=1)
    assert area_of(again.after[0].vertices) == pytest.approx(
        area_of(holed.vertices) - math.pi * 16, rel=0.01)


def test_erasing_with_nothing_selected_takes_from_every_polygon_it_touches() -> None:
    certain = _square(20, 20, 60, 60, id=1)
    uncertain = _square(10, 10, 70, 70, id=2, certainty="uncertain")
    far = _square(100, 20, 140, 60, id=3)
    path = np.array([[40.0, 0.0], [40.0, 100.0]])
    result = apply_stroke([certain, uncertain, far], path, 2.0, erase=True)
    assert [p.id for p in result.before] == [1, 2]  # the far one is untouched
    assert sorted(p.id or 0 for p in result.after) == [0, 0, 1, 2]
    only = apply_stroke([certain, uncertain], path, 2.0, erase=True, selected=1)
    assert [p.id for p in only.before] == [1]  # with a selection: only the selected one


def test_an_erase_beside_every_polygon_changes_nothing() -> None:
    result = apply_stroke([_square(20, 20, 60, 60, id=1)], [[100.0, 100.0]], 5.0, erase=True)
    assert not result.changed


def test_a_small_piece_that_covers_a_pixel_is_kept() -> None:
    # an erase leaves a corner of about 0.2 px² just around the centre of pixel (20, 20)
    base = _square(20.2, 20.2, 30, 30, id=1)
    result = apply_stroke([base], [[30.0, 30.0]], math.hypot(9.5, 9.5) - 0.02, erase=True,
                          selected=1)
    kept = [p for p in result.after if geometry.contains(p.vertices, (20.5, 20.5))]
    assert kept and area_of(kept[0].vertices) < 0.5


def test_a_sliver_left_by_an_erase_is_dropped() -> None:
    base = _square(20, 20, 30, 60.15, id=1)  # erasing to y ≈ 60.1 leaves 10 × 0.03 px
    result = apply_stroke([base], [[0.0, 40.0], [80.0, 40.0]], 20.0, erase=True, selected=1)
    assert result.after == () and result.deleted == [1]


# -- reading polygons and writing outlines -----------------------------------------------------
def test_a_self_crossing_outline_is_read_as_the_mask_shows_it() -> None:
    bow = np.array([[20.0, 20.0], [60.0, 60.0], [60.0, 20.0], [20.0, 60.0]])
    assert region(bow).area == pytest.approx(800)
    twice = np.vstack([_square(20, 20, 60, 60).vertices] * 2)  # wound twice: even, empty
    assert region(twice).is_empty and not _mask([Polygon(twice)]).any()
    # painting far from the bow tie keeps its two triangles pixel for pixel
    result = apply_stroke([Polygon(bow, id=1)], [[120.0, 90.0]], 5.0, selected=1)
    d = _distance_to_path(np.array([[120.0, 90.0]]))
    _agree_outside_band(_mask(result.after), _mask([Polygon(bow)]) | (d <= 5), d, 5.0, 1.0)


def test_outlines_bridge_several_holes_and_read_back_as_the_same_region() -> None:
    import shapely

    holes = [[(30, 30), (40, 30), (40, 40), (30, 40)], [(60, 30), (70, 30), (70, 40)],
             [(30, 60), (45, 55), (40, 70)], [(90, 30), (100, 35), (90, 40), (80, 35)]]
    piece = shapely.Polygon([(10, 10), (120, 10), (120, 90), (60, 75), (10, 90)], holes)
    assert piece.is_valid
    v = outline(piece)
    assert region(v).symmetric_difference(piece).area < 1e-9
    rows, cols = SHAPE
    y, x = np.mgrid[0:rows, 0:cols] + 0.5
    oracle = shapely.contains_xy(piece, x, y)
    on_edge = shapely.distance(piece.boundary, shapely.points(x, y)) < 1e-9
    # (a pixel centre on an edge belongs to one side by the half-open rule; shapely says out)
    assert ((polygon_mask(v, SHAPE) == oracle) | on_edge).all()
    bridges = [(a, b) for a, b in zip(v, np.roll(v, -1, axis=0), strict=True)
               if not piece.boundary.covers(shapely.LineString([a, b]))]
    assert len(bridges) == 2 * len(holes)  # each hole: one cut, in and out...
    assert all(a[1] == b[1] for a, b in bridges)  # ...horizontal


@given(st.integers(0, 10_000), st.booleans(), st.floats(1.0, 12.0))
@example(19, False, 1.0)  # a sliver face of a self-crossing outline, far from the brush
@example(397, True, 1.0)  # one the eraser touches that covers a pixel centre
@settings(max_examples=40, deadline=None)
def test_random_strokes_change_exactly_the_pixels_under_the_brush(seed: int, erase: bool,
                                                                  radius: float) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))  # random outlines, self-crossing ones included
    polygon = Polygon(rng.uniform([10, 10], [150, 110], size=(n, 2)), id=1)
    path = np.cumsum(rng.normal(0, 6, size=(int(rng.integers(1, 30)), 2)), axis=0)
    path += rng.uniform([20, 20], [140, 100])
    result = apply_stroke([polygon], path, radius, erase=erase, selected=1)
    d = _distance_to_path(path)
    brush = d <= radius
    before = _mask([polygon])
    want = before & ~brush if erase else before | brush
    got = _mask(result.after) if result.changed else before
    _agree_outside_band(got, want, d, radius, 1.0)
    for p in result.after:  # outlines stay a sensible size
        assert len(p.vertices) <= 4 * n + 12 * len(path) + 64


def test_the_stroke_outline_stays_within_the_tolerance_of_the_round_brush() -> None:
    path = np.c_[np.linspace(10, 150, 400), 60 + 20 * np.sin(np.linspace(0, 6, 400))]
    for radius, tol in ((2.0, 1.0), (8.0, 1.0), (40.0, 1.0), (8.0, 0.25)):
        shape = stroke_region(path, radius, tol)
        v = shapely_coords(shape)
        seg = _distance_to_points(v, path)
        assert np.abs(seg - radius).max() <= tol, (radius, tol)
        assert len(v) < 700  # 400 mouse samples, simplified


def shapely_coords(shape) -> np.ndarray:
    import shapely

    return shapely.get_coordinates(shape.exterior)


def _distance_to_points(points: np.ndarray, path: np.ndarray) -> np.ndarray:
    a, b = path[:-1], path[1:]
    ab = b - a
    t = ((points[:, None, :] - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-300)
    foot = a + np.clip(t, 0, 1)[..., None] * ab
    return np.hypot(*(points[:, None, :] - foot).transpose(2, 0, 1)).min(axis=1)


def test_bad_input_is_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="positive radius"):
        apply_stroke([], [[1.0, 1.0]], 0.0)
    with pytest.raises(ValueError, match="at least one point"):
        apply_stroke([], np.zeros((0, 2)), 3.0)
    with pytest.raises(ValueError, match="not among"):
        apply_stroke([_square(0, 0, 5, 5, id=1)], [[1.0, 1.0]], 3.0, selected=2)
