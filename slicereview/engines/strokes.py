"""Brush and eraser strokes on polygons: a round brush swept along a path, painted onto or
erased from ``float64 (N, 2)`` ``(x, y)`` polygons by polygon booleans (shapely 2, GEOS).

A *stroke* is one press–drag–release of the brush or the eraser: the region within ``radius``
image pixels of the path (its buffer with round caps and joins; a click is a disc).
:func:`apply_stroke` says what the stroke does to an annotation's polygons; the caller stores
the answer as one undo step. The rules:

* **painting** adds the stroke to the *selected* polygon (union); with none selected the
  stroke becomes a new polygon of the certainty new polygons are drawn with;
* **erasing** removes the stroke from the selected polygon; with none selected, from every
  polygon it touches;
* **pieces** — a result in several pieces (an erase cutting a polygon in two, paint that does
  not reach the polygon) becomes several polygons: the piece that overlaps most of the
  polygon before keeps its id (and so its place in the drawing order), the others are new;
  every piece keeps the polygon's certainty, label and classification answers;
* **erased away** — a polygon with no piece left is deleted; a piece the stroke touches that
  covers no pixel (no pixel centre inside: a sliver the mask does not show) is dropped, while a
  piece it does not touch stays whatever its size;
* **holes** — a polygon here is one closed outline filled by the even–odd rule, and several
  polygons are united (:func:`slicereview.engines.masks.rasterize`), so a separate hole
  polygon would add pixels instead of removing them. A stroke that makes a hole (erasing
  inside a polygon, painting a closed loop) keeps it in the same outline: the hole's ring is
  joined to the outer ring by a *bridge*, a horizontal cut run once in and once out. The
  bridge is two coincident horizontal edges, which the even–odd crossing test never counts,
  so the mask is exactly the region with its hole; on screen it shows as a thin line from the
  hole to the outline;
* **reading a polygon** — an outline is read as the region the mask shows (even–odd: a
  self-crossing outline gives its pieces, which the stroke then writes as polygons of their
  own; a bridged outline gives its hole), so a stroke never changes pixels it does not cover;
* **vertices** — the stroke's outline deviates at most ``tolerance`` image pixels from the
  exact round brush (the path is simplified within half of it [DouglasPeucker1973], the arcs
  are polygons straddling the circle within an eighth of it), with at least eight vertices
  per full circle; the polygons' own vertices are kept as they are.

A stroke that changes nothing (an erase beside every polygon, paint inside the selected one)
gives an empty result.

Example
-------
>>> import numpy as np
>>> from slicereview.model import Polygon
>>> square = Polygon(np.array([[0, 0], [20, 0], [20, 20], [0, 20]], float), id=7)
>>> cut = apply_stroke([square], [[10, -5], [10, 25]], radius=2, erase=True, selected=7)
>>> [p.id for p in cut.before], [p.id for p in cut.after]       # split in two
([7], [7, None])
>>> [round(area_of(p.vertices)) for p in cut.after]
[158, 158]
>>> dot = apply_stroke([], [[50, 50]], radius=3, certainty="uncertain")
>>> dot.after[0].certainty.value, round(area_of(dot.after[0].vertices))
('uncertain', 27)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import shapely
from numpy.typing import ArrayLike

from slicereview.engines import geometry
from slicereview.model import Certainty, Polygon, Tool

#: Default largest deviation of a stroke's outline from the round brush, image pixels.
TOLERANCE = 1.0
#: Areas below this (square image pixels) count as no change.
_EPS = 1e-6


@dataclass(frozen=True)
class StrokeResult:
    """What a stroke changes: ``before`` the stored polygons it changes (with their ids),
    ``after`` what replaces them — a polygon with one of those ids is that polygon changed,
    one without an id is new; a ``before`` id missing from ``after`` is deleted. Both empty:
    the stroke changed nothing."""

    before: tuple[Polygon, ...] = ()
    after: tuple[Polygon, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.before or self.after)

    @property
    def deleted(self) -> list[int]:
        """Ids of the polygons the stroke erased away."""
        kept = {p.id for p in self.after}
        return [p.id for p in self.before if p.id is not None and p.id not in kept]


def area_of(vertices: ArrayLike) -> float:
    """The area (square image pixels) of the region an outline fills by the even–odd rule:
    a bridged hole is left out, a self-crossing outline counts each piece once.

    >>> area_of([[0, 0], [4, 0], [4, 4], [0, 4]])
    16.0
    """
    return float(region(vertices).area)


def region(vertices: ArrayLike) -> shapely.Geometry:
    """The region an outline fills by the even–odd rule, as a shapely geometry (empty for
    fewer than 3 distinct vertices).

    A simple outline is its own polygon. Any other (crossing itself, or bridged) is noded,
    cut into faces, and the faces whose inner point the even–odd test of
    :func:`slicereview.engines.geometry.contains_points` calls inside are united — the very
    test the rasteriser uses.

    >>> bow = [[0, 0], [4, 4], [4, 0], [0, 4]]           # a bow tie: two triangles
    >>> region(bow).geom_type, region(bow).area
    ('MultiPolygon', 8.0)
    """
    v = geometry.remove_duplicates(vertices)
    if len(v) < geometry.MIN_VERTICES:
        return shapely.Polygon()
    simple = shapely.Polygon(v)
    if simple.is_valid:
        return simple
    lines = shapely.union_all(shapely.LineString(np.vstack([v, v[:1]])))  # noded
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(lines)))
    if len(faces) == 0:
        return shapely.Polygon()
    inner = shapely.get_coordinates(shapely.point_on_surface(faces))
    inside = geometry.contains_points(v, inner)
    return shapely.union_all(faces[inside])


def stroke_region(path: ArrayLike, radius: float, tolerance: float = TOLERANCE
                  ) -> shapely.Geometry:
    """The region a round brush of ``radius`` covers along ``path`` (``(N, 2)`` ``(x, y)``;
    one point: a disc), its outline within ``tolerance`` image pixels of the exact one.

    >>> round(stroke_region([[0, 0], [10, 0]], 1.0, 0.01).area, 2)   # 10 × 2 plus a disc
    23.16
    """
    if not radius > 0:
        raise ValueError(f"a brush needs a positive radius, got {radius}")
    points = geometry.as_vertices(path)
    if len(points) == 0:
        raise ValueError("a stroke needs at least one point")
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.any(points[1:] != points[:-1], axis=1)
    points = points[keep]
    half = max(float(tolerance), 1e-3) / 2
    # Arcs: a chord of angle a lies e = r (1 - cos(a / 2)) inside its arc. A quarter circle in
    # q segments keeps e within a quarter of the tolerance, and the buffer's radius grows by
    # e / 2, so the polygon straddles the circle (within e / 2 either way) instead of losing
    # area; the path is simplified within the other half.
    angle = 2 * math.acos(max(-1.0, 1 - half / 2 / radius))
    quads = int(min(64, max(2, math.ceil((math.pi / 2) / angle))))
    grown = radius + radius * (1 - math.cos(math.pi / (4 * quads))) / 2
    if len(points) == 1:
        return shapely.Point(points[0]).buffer(grown, quad_segs=quads)
    line = shapely.simplify(shapely.LineString(points), half, preserve_topology=False)
    return line.buffer(grown, quad_segs=quads)


def outline(piece: shapely.Polygon) -> np.ndarray:
    """One closed outline ``float64 (N, 2)`` whose even–odd region is ``piece``: the outer
    ring with each hole joined to it by a horizontal bridge
    (:func:`slicereview.engines.geometry.bridge_holes`; see the module docstring).

    >>> ring = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
    ...                        [[(4, 4), (6, 4), (6, 6), (4, 6)]])
    >>> v = outline(ring)
    >>> area_of(v), bool(geometry.contains(v, (5, 5))), bool(geometry.contains(v, (2, 5)))
    (96.0, False, True)
    """
    return geometry.bridge_holes(shapely.get_coordinates(piece.exterior)[:-1],
                                 [shapely.get_coordinates(h)[:-1] for h in piece.interiors])


def _pieces(geom: shapely.Geometry, brush: shapely.Geometry) -> list[shapely.Polygon]:
    """The polygons of ``geom``, largest first, without those the ``brush`` touches that cover
    no pixel centre (a piece it does not touch is kept: the stroke changes nothing there)."""
    found = [g for g in _flat(geom) if g.distance(brush) > _EPS or covers_a_pixel(g)]
    return sorted(found, key=lambda g: -g.area)


def covers_a_pixel(piece: shapely.Polygon) -> bool:
    """Whether a pixel centre ``(c + 0.5, r + 0.5)`` lies inside ``piece`` (so the mask shows
    it): the centres next to an inner point first, else the piece cut along every row of
    centres it spans.

    >>> covers_a_pixel(shapely.box(2.2, 3.2, 2.8, 3.8)), covers_a_pixel(shapely.box(2, 3, 2.4, 9))
    (True, False)
    """
    inner = shapely.get_coordinates(piece.point_on_surface())[0]
    near = np.floor(inner - 0.5)[None, :] + 0.5 + np.array(
        [[dx, dy] for dx in (0, 1) for dy in (0, 1)])
    if shapely.contains_xy(piece, near[:, 0], near[:, 1]).any():
        return True
    x0, y0, x1, y1 = piece.bounds
    rows = np.arange(math.ceil(y0 - 0.5), math.floor(y1 - 0.5) + 1) + 0.5
    if len(rows) == 0:
        return False
    lines = shapely.MultiLineString([[(x0 - 1, y), (x1 + 1, y)] for y in rows])
    for part in shapely.get_parts(piece.intersection(lines)):
        xs = shapely.get_coordinates(part)[:, 0]
        if len(xs) and math.floor(xs.max() - 0.5) >= math.ceil(xs.min() - 0.5):
            return True
    return False


def _flat(geom: shapely.Geometry) -> Iterator[shapely.Polygon]:
    for part in shapely.get_parts(geom):
        if isinstance(part, shapely.Polygon):
            if not part.is_empty:
                yield part
        elif isinstance(part, (shapely.MultiPolygon, shapely.GeometryCollection)):
            yield from _flat(part)


def _result(polygon: Polygon, before: shapely.Geometry, after: shapely.Geometry,
            brush: shapely.Geometry) -> list[Polygon]:
    """``polygon`` made into the pieces of ``after``; the one overlapping ``before`` most
    keeps its id, every piece its certainty, label and answers."""
    pieces = _pieces(after, brush)
    if not pieces:
        return []
    overlaps = [p.intersection(before).area for p in pieces]
    first = int(np.argmax(overlaps))
    pieces.insert(0, pieces.pop(first))
    kept = replace(polygon, vertices=outline(pieces[0]))
    return [kept] + [replace(polygon, vertices=outline(p), id=None,
                             classifications=dict(polygon.classifications))
                     for p in pieces[1:]]


def apply_stroke(polygons: Sequence[Polygon], path: ArrayLike, radius: float, *,
                 erase: bool = False, selected: int | None = None,
                 certainty: Certainty | str = Certainty.CERTAIN,
                 tolerance: float = TOLERANCE) -> StrokeResult:
    """What a brush (``erase=False``) or eraser stroke along ``path`` (``(N, 2)`` ``(x, y)``
    image pixels) with ``radius`` does to ``polygons`` (an annotation's, with their ids);
    ``selected`` is the selected polygon's id (``None``: none), ``certainty`` that of a new
    polygon painted with none selected. The rules are in the module docstring.

    Raises :class:`ValueError` for a ``selected`` id not among ``polygons``, a radius that is
    not positive or an empty path.
    """
    brush = stroke_region(path, radius, tolerance)
    if selected is not None:
        targets = [p for p in polygons if p.id == selected]
        if not targets:
            raise ValueError(f"polygon {selected} is not among the polygons given")
    elif erase:
        targets = [p for p in polygons if p.id is not None]
    else:  # a new polygon
        pieces = _pieces(brush, brush)
        return StrokeResult((), tuple(Polygon(outline(p), Certainty(certainty), tool=Tool.BRUSH)
                                      for p in pieces))
    before: list[Polygon] = []
    after: list[Polygon] = []
    for polygon in targets:
        shape = region(polygon.vertices)
        if erase:
            if shape.intersection(brush).area <= _EPS:
                continue  # untouched
            changed = shape.difference(brush)
        else:
            if brush.difference(shape).area <= _EPS:
                continue  # nothing new
            changed = shape.union(brush)
        before.append(polygon)
        after += _result(polygon, shape, changed, brush)
    return StrokeResult(tuple(before), tuple(after))
