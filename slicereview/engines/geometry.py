"""Pure polygon operations on ``float64 (N, 2)`` vertex arrays in ``(x, y)`` pixel coordinates.

Conventions (docs/design.md, "Conventions"): ``x`` is the column axis and ``y`` the row axis
(pointing *down*); pixel ``(row r, col c)`` covers ``[c, c+1) x [r, r+1)``. A polygon is closed
implicitly: edge ``i`` runs from vertex ``i`` to vertex ``(i + 1) % N``. Every function returns a
*new* array and never changes its input, so the values can go straight into undo commands.

Tolerances are in *image* units (pixels of the image). A drawing tool that wants "5 screen
pixels" converts with :func:`image_tolerance` (``screen_px / zoom``, where ``zoom`` is screen
pixels per image pixel).

Inside-ness uses the even-odd rule with the half-open crossing test of
:func:`contains_points`; :func:`slicereview.engines.masks.rasterize` uses the very same test at
pixel centres, so what the drawing tool hit-tests is what the mask contains.

Example
-------
>>> import numpy as np
>>> from slicereview.engines import geometry as g
>>> square = np.array([[0, 0], [4, 0], [4, 4], [0, 4]], dtype=float)
>>> g.area(square)
16.0
>>> g.insert_vertex(square, 1, (4, 2)).shape
(5, 2)
>>> g.hit_vertex(square, (4.2, 3.9), tol=0.5)
2
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

#: Fewest vertices of a polygon that encloses area.
MIN_VERTICES = 3


def as_vertices(vertices: ArrayLike) -> np.ndarray:
    """``vertices`` as a new C-contiguous ``float64 (N, 2)`` array; raises on bad shape or NaN/inf.

    >>> as_vertices([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    v = np.array(vertices, dtype=np.float64, copy=True)
    if v.size == 0:
        return np.zeros((0, 2), dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 2:
        raise ValueError(f"polygon vertices must have shape (N, 2), got {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError("polygon vertices must be finite (no NaN or infinity)")
    return np.ascontiguousarray(v)


def image_tolerance(screen_px: float, zoom: float) -> float:
    """Convert a tolerance in screen pixels to image pixels.

    ``zoom`` is screen pixels per image pixel (2.0 when the image is shown at 200 %).

    >>> image_tolerance(6, zoom=2.0)
    3.0
    """
    if zoom <= 0 or not np.isfinite(zoom):
        raise ValueError(f"zoom must be a positive number, got {zoom}")
    return float(screen_px) / float(zoom)


# -- edits -------------------------------------------------------------------------------------
def move_vertex(vertices: ArrayLike, index: int, xy: Sequence[float]) -> np.ndarray:
    """A copy with vertex ``index`` (negative counts from the end) moved to ``xy``.

    >>> move_vertex([[0, 0], [1, 0], [0, 1]], 1, (2, 0))[1].tolist()
    [2.0, 0.0]
    """
    v = as_vertices(vertices)
    _check_index(v, index)
    v[index] = _point(xy)
    return v


def insert_vertex(vertices: ArrayLike, edge: int, xy: Sequence[float]) -> np.ndarray:
    """A copy with ``xy`` inserted on edge ``edge`` (between vertex ``edge`` and the next one).

    The new vertex gets index ``edge + 1``; on the closing edge (``edge == N - 1``) it becomes the
    last vertex. Use :func:`nearest_edge` to find the edge under the cursor.

    >>> insert_vertex([[0, 0], [2, 0], [0, 2]], 0, (1, 0)).tolist()
    [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.0, 2.0]]
    """
    v = as_vertices(vertices)
    if len(v) == 0:
        return _point(xy)[None, :].copy()
    _check_index(v, edge)
    edge %= len(v)
    return np.insert(v, edge + 1, _point(xy), axis=0)


def delete_vertex(vertices: ArrayLike, index: int) -> np.ndarray:
    """A copy without vertex ``index``.

    Raises ``ValueError`` when the polygon would keep fewer than :data:`MIN_VERTICES`
    vertices: deleting a vertex of a triangle means deleting the polygon, which the caller
    decides.

    >>> delete_vertex([[0, 0], [1, 0], [1, 1], [0, 1]], 2).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    """
    v = as_vertices(vertices)
    _check_index(v, index)
    if len(v) <= MIN_VERTICES:
        raise ValueError(
            f"a polygon needs at least {MIN_VERTICES} vertices; delete the polygon instead"
        )
    return np.delete(v, index, axis=0)


def translate(vertices: ArrayLike, dx: float, dy: float) -> np.ndarray:
    """A copy moved by ``(dx, dy)`` image pixels.

    >>> translate([[0, 0], [1, 1]], 2, -1).tolist()
    [[2.0, -1.0], [3.0, 0.0]]
    """
    v = as_vertices(vertices)
    v += np.array([dx, dy], dtype=np.float64)
    return v


def remove_duplicates(vertices: ArrayLike) -> np.ndarray:
    """A copy without consecutive repeated vertices (including last == first).

    >>> remove_duplicates([[0, 0], [0, 0], [1, 0], [0, 1], [0, 0]]).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    """
    v = as_vertices(vertices)
    if len(v) < 2:
        return v
    keep = np.ones(len(v), dtype=bool)
    keep[1:] = np.any(v[1:] != v[:-1], axis=1)
    v = v[keep]
    # A closed ring drawn back onto its start repeats vertex 0 at the end.
    end = len(v)
    while end > 1 and np.array_equal(v[end - 1], v[0]):
        end -= 1
    return np.ascontiguousarray(v[:end])


def simplify(vertices: ArrayLike, tolerance: float) -> np.ndarray:
    """Douglas-Peucker simplification [DouglasPeucker1973] of a *closed* polygon (freehand strokes).

    Every removed vertex lies within ``tolerance`` image pixels of the simplified outline.
    Uses :func:`skimage.measure.approximate_polygon` on the closed ring (it works on any 2-D
    coordinates, so ``(x, y)`` order is kept). ``tolerance <= 0`` only removes consecutive
    duplicates. The result keeps at least :data:`MIN_VERTICES` vertices when the input had
    that many distinct ones (the vertices farthest from each other are kept).

    >>> ring = [[0, 0], [1, 0.01], [2, 0], [2, 2], [0, 2]]
    >>> simplify(ring, 0.1).tolist()
    [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]]
    """
    from skimage.measure import approximate_polygon

    v = remove_duplicates(vertices)
    if len(v) <= MIN_VERTICES or tolerance <= 0:
        return v
    ring = np.vstack([v, v[:1]])
    out = approximate_polygon(ring, tolerance=float(tolerance))[:-1]
    if len(out) >= MIN_VERTICES:
        return np.ascontiguousarray(out, dtype=np.float64)
    # Douglas-Peucker on a ring anchored at v[0] can collapse a thin shape to two points; keep
    # v[0], the vertex farthest from it and the vertex farthest from that chord instead.
    far = int(np.argmax(np.hypot(*(v - v[0]).T)))
    d = _distance_to_segments(v, v[0][None, :], v[far][None, :])[:, 0]
    d[[0, far]] = -1.0  # a collinear ring still yields a third (distinct) vertex
    third = int(np.argmax(d))
    keep = sorted({0, far, third})
    return np.ascontiguousarray(v[keep])


# -- measures ----------------------------------------------------------------------------------
def signed_area(vertices: ArrayLike) -> float:
    """Shoelace area. Positive when the vertices run clockwise *on screen* (y points down),
    i.e. counter-clockwise in the mathematical ``(x, y)`` frame. Fewer than 3 vertices: 0.0.

    >>> signed_area([[0, 0], [2, 0], [2, 1]])
    1.0
    """
    v = as_vertices(vertices)
    if len(v) < MIN_VERTICES:
        return 0.0
    # Shifting by the first vertex keeps precision for polygons far from the origin.
    x, y = (v - v[0]).T
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def area(vertices: ArrayLike) -> float:
    """Absolute shoelace area in square image pixels (self-intersecting parts may cancel).

    >>> area([[0, 0], [0, 3], [3, 3], [3, 0]])
    9.0
    """
    return abs(signed_area(vertices))


def bounds(vertices: ArrayLike) -> tuple[float, float, float, float]:
    """``(xmin, ymin, xmax, ymax)`` of the vertices; raises ``ValueError`` when empty."""
    v = as_vertices(vertices)
    if len(v) == 0:
        raise ValueError("an empty polygon has no bounds")
    (xmin, ymin), (xmax, ymax) = v.min(axis=0), v.max(axis=0)
    return float(xmin), float(ymin), float(xmax), float(ymax)


# -- hit testing -------------------------------------------------------------------------------
def hit_vertex(vertices: ArrayLike, xy: Sequence[float], tol: float) -> int | None:
    """Index of the vertex nearest to ``xy`` if it lies within ``tol`` image pixels, else None.

    Ties go to the lowest index.

    >>> hit_vertex([[0, 0], [10, 0], [0, 10]], (9.5, 0.5), tol=1.0)
    1
    """
    v = as_vertices(vertices)
    if len(v) == 0:
        return None
    d = np.hypot(*(v - _point(xy)).T)
    i = int(np.argmin(d))
    return i if d[i] <= tol else None


def nearest_edge(vertices: ArrayLike, xy: Sequence[float]) -> tuple[int, float, np.ndarray]:
    """``(edge, distance, foot)``: the edge nearest to ``xy``, the distance to it and the
    nearest point on it (``float64 (2,)``), for inserting a vertex where the user clicked.

    Needs at least 2 vertices. Ties go to the lowest edge index.

    >>> e, d, foot = nearest_edge([[0, 0], [4, 0], [4, 4], [0, 4]], (2, -1))
    >>> e, d, foot.tolist()
    (0, 1.0, [2.0, 0.0])
    """
    v = as_vertices(vertices)
    if len(v) < 2:
        raise ValueError("a polygon needs at least 2 vertices to have an edge")
    p = _point(xy)
    a, b = v, np.roll(v, -1, axis=0)
    t = _projection(p[None, :], a, b)[0]
    foot = a + t[:, None] * (b - a)
    d = np.hypot(*(foot - p).T)
    i = int(np.argmin(d))
    return i, float(d[i]), foot[i].copy()


def hit_edge(vertices: ArrayLike, xy: Sequence[float], tol: float) -> int | None:
    """Index of the edge nearest to ``xy`` if within ``tol`` image pixels, else None.

    >>> hit_edge([[0, 0], [4, 0], [4, 4], [0, 4]], (2, 0.3), tol=0.5)
    0
    """
    v = as_vertices(vertices)
    if len(v) < 2:
        return None
    i, d, _ = nearest_edge(v, xy)
    return i if d <= tol else None


def contains_points(vertices: ArrayLike, points: ArrayLike) -> np.ndarray:
    """Even-odd point-in-polygon test, vectorised: ``bool (M,)`` for ``points`` ``(M, 2)``.

    An edge from ``a`` to ``b`` is crossed by the horizontal ray to the right of ``p`` when
    ``(a.y > p.y) != (b.y > p.y)`` and ``p.x`` is strictly left of the edge's crossing point
    (the classic half-open rule: of two polygons sharing an edge, exactly one contains a point on
    it, unless the point is a vertex). Fewer than 3 vertices contain nothing.

    >>> contains_points([[2, 3], [3, 3], [3, 4], [2, 4]], [[2.5, 3.5], [3.5, 3.5]]).tolist()
    [True, False]
    """
    v = as_vertices(vertices)
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    inside = np.zeros(len(pts), dtype=bool)
    if len(v) < MIN_VERTICES:
        return inside
    a, b = v, np.roll(v, -1, axis=0)
    px, py = pts[:, 0:1], pts[:, 1:2]  # (M, 1) against (N,) edges
    crosses = (a[:, 1] > py) != (b[:, 1] > py)
    # Same expression as the rasteriser (slicereview.engines.masks), so both agree bit for bit;
    # the fraction first keeps it in [0, 1] where the edge is crossed (no overflow).
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x_cross = a[:, 0] + (py - a[:, 1]) / (b[:, 1] - a[:, 1]) * (b[:, 0] - a[:, 0])
    hit = crosses & (px < x_cross)
    return np.bitwise_xor.reduce(hit, axis=1) if hit.shape[1] else inside


def contains(vertices: ArrayLike, xy: Sequence[float]) -> bool:
    """True when ``xy`` is inside (even-odd rule of :func:`contains_points`).

    >>> contains([[0, 0], [4, 0], [4, 4], [0, 4]], (1, 1))
    True
    """
    return bool(contains_points(vertices, [_point(xy)])[0])


def pick(polygons: Sequence[ArrayLike], xy: Sequence[float], tol: float) -> int | None:
    """Index of the top-most polygon (the last in drawing order) under ``xy``: ``xy`` is inside it
    or within ``tol`` image pixels of its outline. None when nothing is hit.

    >>> a = [[0, 0], [4, 0], [4, 4], [0, 4]]
    >>> b = [[2, 2], [6, 2], [6, 6], [2, 6]]
    >>> pick([a, b], (3, 3), tol=0.5), pick([a, b], (1, 1), tol=0.5), pick([a, b], (9, 9), 0.5)
    (1, 0, None)
    """
    for k in range(len(polygons) - 1, -1, -1):
        v = as_vertices(polygons[k])
        if len(v) == 0:
            continue
        if contains(v, xy) or (len(v) >= 2 and nearest_edge(v, xy)[1] <= tol):
            return k
    return None


# -- holes -------------------------------------------------------------------------------------
def bridge_holes(outer: ArrayLike, holes: Sequence[ArrayLike]) -> np.ndarray:
    """One outline whose even-odd region is ``outer`` less ``holes`` (rings inside it that do
    not touch each other): each hole is joined to the outline by a *bridge*, a horizontal cut
    from the hole's rightmost vertex to the first edge on its right, run once in and once out.

    The bridge's two edges coincide and are horizontal, so the half-open crossing test of
    :func:`contains_points` never counts them: the region is exactly ``outer`` less the holes.
    The holes are joined rightmost first, so a bridge meets only the outline or a hole already
    joined to it and crosses nothing [Eberly2002]. The outline runs counter-clockwise in the
    ``(x, y)`` frame (:func:`signed_area` positive), each hole the other way. The one hole
    bridging of the project: brush strokes' results and assisted outlines both use it.

    >>> ring = bridge_holes([[0, 0], [10, 0], [10, 10], [0, 10]],
    ...                     [[[4, 4], [6, 4], [6, 6], [4, 6]]])
    >>> ring.tolist()[:4], area(ring), contains(ring, (5, 5)), contains(ring, (2, 5))
    ([[0.0, 0.0], [10.0, 0.0], [10.0, 6.0], [6.0, 6.0]], 96.0, False, True)
    """
    ring = as_vertices(outer)
    if signed_area(ring) < 0:
        ring = ring[::-1]
    oriented = [h[::-1] if signed_area(h) > 0 else h for h in map(as_vertices, holes)]
    for hole in sorted(oriented, key=lambda h: -h[:, 0].max()):
        k = int(np.argmax(hole[:, 0]))
        hx, hy = hole[k]
        a, b = ring, np.roll(ring, -1, axis=0)
        crosses = (a[:, 1] > hy) != (b[:, 1] > hy)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = a[:, 0] + (hy - a[:, 1]) / (b[:, 1] - a[:, 1]) * (b[:, 0] - a[:, 0])
        candidates = np.flatnonzero(crosses & (x >= hx))
        if len(candidates) == 0:
            raise ValueError("a hole outside its polygon's outer ring")
        edge = int(candidates[np.argmin(x[candidates])])
        foot = np.array([[x[edge], hy]])
        around = np.vstack([hole[k:], hole[:k + 1]])  # from its rightmost vertex, closed
        ring = np.vstack([ring[:edge + 1], foot, around, foot, ring[edge + 1:]])
    return remove_duplicates(ring)


# -- helpers -----------------------------------------------------------------------------------
def _point(xy: Sequence[float]) -> np.ndarray:
    p = np.asarray(xy, dtype=np.float64).reshape(-1)
    if p.shape != (2,) or not np.isfinite(p).all():
        raise ValueError(f"a point is two finite numbers (x, y), got {xy!r}")
    return p


def _check_index(v: np.ndarray, index: int) -> None:
    if not -len(v) <= index < len(v):
        raise IndexError(f"vertex {index} out of range for a polygon of {len(v)} vertices")


def _projection(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Clamped parameter ``t`` in [0, 1] of the projection of points ``p`` (M, 2) on the
    segments ``a -> b`` (N, 2); shape ``(M, N)``. Degenerate segments give ``t = 0``."""
    ab = b - a
    denom = np.einsum("ij,ij->i", ab, ab)
    num = (p[:, None, 0] - a[:, 0]) * ab[:, 0] + (p[:, None, 1] - a[:, 1]) * ab[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), 0.0)
    return np.clip(t, 0.0, 1.0)


def _distance_to_segments(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances ``(M, N)`` from points ``p`` (M, 2) to segments ``a -> b`` (N, 2)."""
    t = _projection(p, a, b)
    fx = a[:, 0] + t * (b[:, 0] - a[:, 0])
    fy = a[:, 1] + t * (b[:, 1] - a[:, 1])
    return np.hypot(fx - p[:, None, 0], fy - p[:, None, 1])
