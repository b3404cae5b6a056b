"""Masks to simplified outlines in the project's polygon model, holes included.

The one conversion from pixels to polygons: the assisted tools use it for their results, and
it is public so that other code can turn a mask into polygons the same way — e.g. importing a
model's predictions (a ``bool`` mask, or a label image 0/1/2): :func:`outlines`,
:func:`label_outlines`, then :func:`model_polygons`.

**Vertices** are ``float64 (n, 2)`` ``(row, col)`` in the continuous pixel frame of
docs/design.md, "Conventions" (``(row, col) = (y, x)``; pixel ``(r, c)`` covers
``[r, r+1) x [c, c+1)``). A :class:`slicereview.model.Polygon` stores ``(x, y)``, so the
conversion is a swap of the two columns (:func:`model_polygons`), nothing else: rasterising
the converted polygons with :func:`slicereview.engines.masks.rasterize` gives the mask back,
exactly for ``tolerance=0`` and up to the simplification otherwise (a pixel can change only
where the simplified outline moved past its centre, so within ``tolerance`` pixels of the
unsimplified outline).

**How an outline is found.** Each 8-connected component of the mask is traced by marching
squares (:func:`skimage.measure.find_contours` at level 0.5, diagonal neighbours joined): the
outline runs through the midpoints between a pixel centre inside and one outside, so every
pixel centre lies strictly on its own side and the even-odd pixel-centre rule reproduces the
component exactly. The rings are simplified by Douglas–Peucker [DouglasPeucker1973] with
topology kept (shapely 2's ``simplify(tolerance, preserve_topology=True)``: no ring crosses
itself or another, which matters for 2 px wide tubes). The simplified outline is rasterised
and compared with its component: when Dice falls below :data:`MIN_DICE` (0.99; small or thin
objects, where a 1 px deviation is a large share) the tolerance is halved, then quartered,
then the unsimplified outline is kept. A ring that would vanish, and every component of at
most 16 pixels, keeps its unsimplified vertices.

**Holes.** The project's polygon is one outline filled by the even-odd rule, and several
polygons form their union (:func:`slicereview.engines.masks.rasterize`); a separate hole polygon
would be *added*, not cut out. So a component with holes becomes **one outline with a
zero-width bridge to each hole**: the ring runs along the outer boundary to where a row
through the hole's rightmost vertex meets it, along that row to the hole, once round the hole,
back along the same bridge and on (:func:`slicereview.engines.geometry.bridge_holes`, the
project's one hole bridging, which the brush and the eraser use too). The bridge's two edges
coincide and run along a row, so no scanline counts them: even-odd filling leaves the hole
empty and the bridge adds no pixel; holes are joined rightmost first, so no bridge crosses
another part of the outline. An island inside a hole is a component of its own, and so a
polygon of its own. In the viewer the bridge is drawn as a line from the outline to the hole.

**Certain and uncertain.** :func:`label_outlines` outlines the certain pixels (label 1) as
certain polygons and *all* marked pixels (labels 1 and 2) as uncertain ones: the uncertain
polygon surrounds its certain core, as an annotator draws an uncertain margin, and
rasterising gives certain where both overlap (certain wins), uncertain in the margin.

Degenerate cases: an empty mask gives ``[]``; a single pixel gives one 4-vertex diamond.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist.outline import model_polygons, outlines
>>> from slicereview.engines.masks import rasterize
>>> ring = np.zeros((9, 9), bool); ring[1:8, 1:8] = True; ring[3:6, 3:6] = False
>>> [poly] = outlines(ring, tolerance=0)   # one outline: the hole is bridged in
>>> labels = rasterize(model_polygons([(True, poly)]), ring.shape)
>>> bool(((labels == 1) == ring).all())
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from slicereview.model import Certainty, Polygon

#: Default simplification tolerance, in pixels: no removed point deviates more than this.
TOLERANCE = 1.0

Outline = tuple[bool, np.ndarray]
#: Components of at most this many pixels keep their unsimplified outline.
_TINY = 16
#: A simplified outline must keep at least this Dice against its component's pixels.
MIN_DICE = 0.99


def outlines(mask: ArrayLike, *, tolerance: float = TOLERANCE,
             offset: Sequence[float] = (0, 0)) -> list[np.ndarray]:
    """One simplified outline per 8-connected component of ``mask``, holes bridged in.

    Parameters
    ----------
    mask
        ``bool (rows, cols)``, e.g. a crop of an image.
    tolerance
        Douglas–Peucker tolerance in pixels (``>= 0``; 0 keeps every marching-squares vertex).
    offset
        ``(row0, col0)`` added to every vertex: where the mask's pixel ``(0, 0)`` lies in the
        image (a crop's first row and column).

    Returns
    -------
    list of float64 (n, 2)
        ``(row, col)`` vertices in the continuous pixel frame (module docstring), components in
        raster order of their first pixel.

    >>> m = np.zeros((4, 5), bool); m[1:3, 1:4] = True
    >>> outlines(m, tolerance=0)[0][:4].tolist()   # through midpoints between pixel centres
    [[3.0, 3.5], [3.0, 2.5], [3.0, 1.5], [2.5, 1.0]]
    >>> m = np.zeros((12, 14), bool); m[1:11, 1:13] = True
    >>> len(outlines(m, tolerance=0)[0]), len(outlines(m)[0])   # simplified at 1 px
    (44, 8)
    """
    from scipy import ndimage

    tol = _check_tolerance(tolerance)
    m = np.asarray(mask, dtype=bool)
    if m.ndim != 2:
        raise ValueError(f"The mask must be (rows, cols); its shape is {m.shape}.")
    labels, n = ndimage.label(m, structure=np.ones((3, 3), bool))
    out: list[np.ndarray] = []
    if n == 0:
        return out
    r_off, c_off = float(offset[0]), float(offset[1])
    for k, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        part = np.pad(labels[box] == k, 1)
        ring = _outline(part, tol)
        ring += (box[0].start - 1 + r_off, box[1].start - 1 + c_off)
        out.append(ring)
    return out


def label_outlines(labels: ArrayLike, *, tolerance: float = TOLERANCE,
                   offset: Sequence[float] = (0, 0)) -> list[Outline]:
    """``(certain, vertices)`` outlines of a label image (``uint8 (rows, cols)``: 0 background,
    1 certain, 2 uncertain; docs/design.md, "Glossary").

    The certain polygons (``True``) outline label 1; the uncertain ones (``False``) outline
    labels 1 and 2 together (each connected part that has an uncertain pixel), so rasterising
    them gives back the label image (certain wins where they overlap). Uncertain outlines
    come first. ``tolerance`` and ``offset`` as in
    :func:`outlines`.

    >>> lab = np.zeros((7, 7), np.uint8); lab[1:6, 1:6] = 2; lab[2:5, 2:5] = 1
    >>> [(c, len(v)) for c, v in label_outlines(lab, tolerance=0)]
    [(False, 20), (True, 12)]
    """
    lab = np.asarray(labels)
    if lab.ndim != 2:
        raise ValueError(f"The label image must be (rows, cols); its shape is {lab.shape}.")
    if lab.size and (lab.min() < 0 or lab.max() > 2):
        raise ValueError("A label image holds 0 (background), 1 (certain) and 2 (uncertain) "
                         "only.")
    relaxed_mask = lab > 0
    if (lab == 1).any():  # only the parts with an uncertain pixel need an uncertain outline
        from scipy import ndimage

        parts, _ = ndimage.label(relaxed_mask, structure=np.ones((3, 3), bool))
        relaxed_mask = np.isin(parts, np.unique(parts[lab == 2]))
    relaxed = [(False, v) for v in outlines(relaxed_mask, tolerance=tolerance, offset=offset)]
    certain = [(True, v) for v in outlines(lab == 1, tolerance=tolerance, offset=offset)]
    return relaxed + certain


def model_polygons(polygons: Iterable[Outline]) -> list[Polygon]:
    """:class:`slicereview.model.Polygon` values from ``(certain, vertices (row, col))`` pairs:
    the columns swapped to ``(x, y)``, certainty from the flag. What the application layer
    stores for an assisted tool's result (``result.polygons``).

    >>> [p] = model_polygons([(False, np.array([[1.0, 2.0], [1.0, 5.0], [4.0, 5.0]]))])
    >>> p.vertices.tolist(), p.certainty.value
    ([[2.0, 1.0], [5.0, 1.0], [5.0, 4.0]], 'uncertain')
    """
    return [Polygon(np.asarray(v, dtype=np.float64)[:, ::-1],
                    Certainty.CERTAIN if certain else Certainty.UNCERTAIN)
            for certain, v in polygons]


# -- rings ---------------------------------------------------------------------------------------
def _outline(part: np.ndarray, tol: float) -> np.ndarray:
    """One bridged ring ``(row, col)`` of a padded component, in the continuous frame of
    ``part``: simplified at ``tol``, or at half, a quarter of it, or not at all, whichever
    first keeps Dice against the component at :data:`MIN_DICE` or more."""
    from slicereview.engines.masks import polygon_mask

    shell, holes = _rings(part)
    size = int(part.sum())
    if tol <= 0 or size <= _TINY:
        return _bridge(shell, holes) + 0.5
    for t in (tol, tol / 2, tol / 4):
        ring = _bridge(*_simplify(shell, holes, t)) + 0.5
        drawn = polygon_mask(ring[:, ::-1], part.shape)
        if 2.0 * int((drawn & part).sum()) / (int(drawn.sum()) + size) >= MIN_DICE:
            return ring
    return _bridge(shell, holes) + 0.5  # (the unsimplified outline, made only when needed)


def _check_tolerance(tolerance: float) -> float:
    try:
        tol = float(tolerance)
    except (TypeError, ValueError):
        raise ValueError(f"The tolerance is a number of pixels; got {tolerance!r}.") from None
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"The tolerance must be a finite number of pixels >= 0; got {tol}.")
    return tol


def _area(ring: np.ndarray) -> float:
    r, c = (ring - ring[0]).T
    return float(0.5 * (np.dot(c, np.roll(r, -1)) - np.dot(r, np.roll(c, -1))))


def _rings(part: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The outer ring and the hole rings (pixel-index coordinates) of one padded component."""
    from skimage.measure import find_contours

    rings = [c[:-1] for c in find_contours(part.astype(np.float32), 0.5,
                                           fully_connected="high") if len(c) > 3]
    areas = [abs(_area(r)) for r in rings]
    outer = int(np.argmax(areas))
    return rings[outer], [r for i, r in enumerate(rings) if i != outer]


def _simplify(shell: np.ndarray, holes: list[np.ndarray], tol: float
              ) -> tuple[np.ndarray, list[np.ndarray]]:
    if tol <= 0:
        return shell, holes
    import shapely

    poly = shapely.Polygon(shell, holes)
    simple = poly.simplify(tol, preserve_topology=True)
    if simple.is_empty or simple.geom_type != "Polygon" or simple.area <= 0:
        return shell, holes
    new_shell = np.asarray(simple.exterior.coords)[:-1]
    new_holes = [np.asarray(h.coords)[:-1] for h in simple.interiors]
    if len(new_shell) < 3:
        return shell, holes
    return new_shell, [h for h in new_holes if len(h) >= 3]


def _bridge(shell: np.ndarray, holes: list[np.ndarray]) -> np.ndarray:
    """One ring ``(row, col)``: ``shell`` with a zero-width bridge into each hole, by the
    project's one hole bridging (:func:`slicereview.engines.geometry.bridge_holes`, which
    works in ``(x, y)``: the columns are swapped there and back)."""
    from slicereview.engines.geometry import bridge_holes

    ring = bridge_holes(shell[:, ::-1], [h[:, ::-1] for h in holes])
    return np.ascontiguousarray(ring[:, ::-1])
