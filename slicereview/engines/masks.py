"""Polygons to label images, and the binary masks that agreement statistics compare.

Label images are ``uint8 (H, W)``: :data:`BACKGROUND` 0, :data:`CERTAIN` 1, :data:`UNCERTAIN` 2
(docs/design.md, "Conventions"). Pixel ``(row r, col c)`` covers ``[c, c+1) x [r, r+1)`` and belongs
to a polygon when its centre ``(c + 0.5, r + 0.5)`` is inside by the even-odd, half-open crossing
rule of :func:`slicereview.engines.geometry.contains_points` — the same test the drawing tool uses.

Why our own scanline fill: ``skimage.draw.polygon`` tests every pixel of the bounding box against
every edge (box area x vertex count: ~27 ms for one 200-vertex polygon of radius 120), and
Pillow's ``ImageDraw.polygon`` fills with its own pixel-edge convention (it includes outline
pixels, so masks grow by about half a pixel and disagree with the pixel-centre rule). Here each
edge only visits the rows it crosses: one crossing per (edge, row), a bincount of crossings per
pixel column and a parity cumulative sum over the bounding box. It is exact (it evaluates the
same inequality as :func:`~slicereview.engines.geometry.contains_points` at every pixel centre) and
meets the speed target; the numbers are in docs/performance.md, "Masks", and
``tests/benchmarks/test_bench_masks.py``.

Example
-------
>>> import numpy as np
>>> from slicereview.model import Polygon
>>> from slicereview.engines.masks import rasterize
>>> unit = Polygon(np.array([[2, 3], [3, 3], [3, 4], [2, 4]], dtype=float))
>>> labels = rasterize([unit], (6, 5))
>>> np.argwhere(labels).tolist()  # (row, col) of the covered pixels
[[3, 2]]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike

BACKGROUND, CERTAIN, UNCERTAIN = 0, 1, 2

#: ``"strict"``: only certain pixels are region of interest; ``"relaxed"``: certain or uncertain.
Mode = Literal["strict", "relaxed"]


class PolygonLike(Protocol):
    """Anything with ``vertices`` (``(N, 2)`` ``(x, y)``) and ``certainty`` (``"certain"`` /
    ``"uncertain"`` or a str-valued enum) — :class:`slicereview.model.Polygon` or your own."""

    @property
    def vertices(self) -> ArrayLike: ...

    @property
    def certainty(self) -> object: ...


def polygon_mask(
    vertices: ArrayLike, shape: tuple[int, int], out: np.ndarray | None = None,
) -> np.ndarray:
    """Boolean mask ``(H, W)`` of the pixels whose centres lie inside one polygon.

    With ``out`` (a ``bool (H, W)`` array) the polygon is OR-ed into it in place and ``out``
    returned. Parts outside the image are clipped. Fewer than 3 vertices cover nothing.

    >>> polygon_mask([[0, 0], [2, 0], [2, 2], [0, 2]], (3, 3)).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    """
    from slicereview.engines.geometry import as_vertices

    h, w = int(shape[0]), int(shape[1])
    if out is None:
        out = np.zeros((h, w), dtype=bool)
    v = as_vertices(vertices)
    if len(v) < 3 or h == 0 or w == 0:
        return out
    box = _fill_box(v, h, w)
    if box is not None:
        r0, c0, inside = box
        out[r0:r0 + inside.shape[0], c0:c0 + inside.shape[1]] |= inside
    return out


def polygon_crop(vertices: ArrayLike, shape: tuple[int, int]
                 ) -> tuple[int, int, np.ndarray] | None:
    """One polygon's pixels on its bounding box: ``(row0, col0, inside)`` with ``inside`` a
    ``bool`` array of the box (clipped to the image ``shape``), or ``None`` when it covers no
    pixel centre. The same pixels as :func:`polygon_mask`, without a full-image array.

    >>> r0, c0, inside = polygon_crop([[1, 1], [3, 1], [3, 2], [1, 2]], (5, 5))
    >>> (r0, c0), inside.astype(int).tolist()
    ((1, 1), [[1, 1, 0]])
    """
    from slicereview.engines.geometry import as_vertices

    v = as_vertices(vertices)
    h, w = int(shape[0]), int(shape[1])
    if len(v) < 3 or h == 0 or w == 0:
        return None
    return _fill_box(v, h, w)


def _fill_box(v: np.ndarray, h: int, w: int) -> tuple[int, int, np.ndarray] | None:
    """Scanline even-odd fill of polygon ``v`` on its bounding box clipped to ``(h, w)``.

    Returns ``(r0, c0, inside)`` with ``inside`` a bool array of the box, or None when the
    polygon covers no pixel centre of the image.
    """
    x0, y0 = v[:, 0], v[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    # Rows whose centre y = r + 0.5 satisfies (y0 > y) != (y1 > y), i.e. ylo <= y < yhi.
    ylo, yhi = np.minimum(y0, y1), np.maximum(y0, y1)
    # Clip as floats before the cast: far-away vertices (1e300) must not overflow int64.
    r_first = np.clip(np.ceil(ylo - 0.5), 0, h).astype(np.int64)
    r_stop = np.clip(np.ceil(yhi - 0.5), 0, h).astype(np.int64)
    n = np.maximum(r_stop - r_first, 0)
    total = int(n.sum())
    if total == 0:
        return None
    r0 = int(r_first[n > 0].min())
    rows_in_box = int(r_stop[n > 0].max()) - r0
    c0 = max(int(np.floor(v[:, 0].min())), 0)
    c_stop = min(int(np.ceil(v[:, 0].max())) + 1, w)
    if c_stop <= c0:
        return None
    width = c_stop - c0
    # One crossing per (edge, row): expand each edge over its rows without a Python loop.
    edge = np.repeat(np.arange(len(v)), n)
    starts = np.cumsum(n) - n
    row = r_first[edge] + (np.arange(total) - np.repeat(starts, n))
    yc = row + 0.5
    xa, ya, xb, yb = x0[edge], y0[edge], x1[edge], y1[edge]
    # yb != ya wherever a crossing exists; same expression as geometry.contains_points.
    x_cross = xa + (yc - ya) / (yb - ya) * (xb - xa)
    # Pixel c lies left of the crossing (c + 0.5 < x_cross) iff c < k with k = ceil(x - 0.5).
    k = np.clip(np.ceil(x_cross - 0.5) - c0, 0, width).astype(np.int64)
    counts = np.bincount((row - r0) * (width + 1) + k, minlength=rows_in_box * (width + 1))
    counts = counts.reshape(rows_in_box, width + 1)
    # Crossings to the right of pixel c: those with k > c, i.e. a suffix sum starting at c + 1.
    right = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1][:, 1:]
    return r0, c0, (right & 1).astype(bool)


def rasterize(
    polygons: Iterable[PolygonLike], shape: tuple[int, int],
    crops: list[tuple[int, int, np.ndarray] | None] | None = None,
) -> np.ndarray:
    """Label image ``uint8 (H, W)`` of ``polygons``: 0 background, 1 certain, 2 uncertain.

    Each polygon fills its own even-odd interior (a self-intersecting polygon leaves its
    doubly-covered parts empty); several polygons of one certainty form their union.
    **Where certain and uncertain polygons overlap, certain wins** (label 1): strict agreement
    then counts the pixel as region of interest, which is what the annotator who drew a certain
    outline asserted.

    ``polygons`` are any objects with ``.vertices`` and ``.certainty`` (see
    :class:`PolygonLike`); an unknown certainty raises ``ValueError``. ``crops``: a list that
    receives each polygon's own pixels, in input order, as :func:`polygon_crop` gives them
    (one fill per polygon serves both).

    >>> from types import SimpleNamespace as P
    >>> a = P(vertices=[[0, 0], [3, 0], [3, 2], [0, 2]], certainty="uncertain")
    >>> b = P(vertices=[[1, 0], [2, 0], [2, 2], [1, 2]], certainty="certain")
    >>> rasterize([a, b], (2, 4)).tolist()
    [[2, 1, 2, 0], [2, 1, 2, 0]]
    """
    from slicereview.engines.geometry import as_vertices

    h, w = int(shape[0]), int(shape[1])
    labels = np.zeros((h, w), dtype=np.uint8)
    items = [(_certainty(p.certainty), as_vertices(p.vertices)) for p in polygons]
    boxes = [None if len(v) < 3 or h == 0 or w == 0 else _fill_box(v, h, w) for _, v in items]
    if crops is not None:
        crops.extend(boxes)
    # Paint uncertain first so that certain overwrites it; only bounding boxes are touched.
    for which in (UNCERTAIN, CERTAIN):
        for (label, _), box in zip(items, boxes, strict=True):
            if label == which and box is not None:
                r0, c0, inside = box
                labels[r0:r0 + inside.shape[0], c0:c0 + inside.shape[1]][inside] = which
    return labels


def _certainty(value: object) -> int:
    text = str(getattr(value, "value", value))
    if text == "certain":
        return CERTAIN
    if text == "uncertain":
        return UNCERTAIN
    raise ValueError(f"certainty must be 'certain' or 'uncertain', got {value!r}")


# -- for the agreement and review side --------------------------------------------------------
def binary_mask(labels: np.ndarray, mode: Mode = "relaxed") -> np.ndarray:
    """Region-of-interest mask ``bool`` of a label image (any shape).

    ``"strict"``: certain pixels only; ``"relaxed"``: certain or uncertain.

    >>> binary_mask(np.array([0, 1, 2], dtype=np.uint8), "strict").tolist()
    [False, True, False]
    >>> binary_mask(np.array([0, 1, 2], dtype=np.uint8), "relaxed").tolist()
    [False, True, True]
    """
    labels = np.asarray(labels)
    if mode == "strict":
        return labels == CERTAIN
    if mode == "relaxed":
        return (labels == CERTAIN) | (labels == UNCERTAIN)
    raise ValueError(f"mode must be 'strict' or 'relaxed', got {mode!r}")


def stack_masks(label_images: Sequence[np.ndarray], mode: Mode = "relaxed") -> np.ndarray:
    """``bool (raters, H, W)``: one region-of-interest mask per annotator's label image.

    All label images must have the same shape. No label images gives ``(0, 0, 0)``.

    >>> a = np.array([[1, 2]], dtype=np.uint8); b = np.array([[0, 1]], dtype=np.uint8)
    >>> stack_masks([a, b], "strict").astype(int).tolist()
    [[[1, 0]], [[0, 1]]]
    """
    if len(label_images) == 0:
        return np.zeros((0, 0, 0), dtype=bool)
    shapes = {np.shape(m) for m in label_images}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"label images must all be 2-D with one shape, got {sorted(shapes)}")
    return np.stack([binary_mask(m, mode) for m in label_images])


def union_boxes(masks: np.ndarray, connectivity: int = 2) -> list[tuple[slice, slice]]:
    """Bounding boxes ``(row slice, col slice)`` of the connected components of the union of
    ``masks`` (``bool (raters, H, W)`` or ``(H, W)``), in label order of
    :func:`scipy.ndimage.label`. ``connectivity`` 1: 4-neighbours, 2: 8-neighbours.

    These are the *boxes* of the glossary: box-level agreement compares the annotators inside
    each one.

    >>> m = np.zeros((2, 4, 5), dtype=bool); m[0, 0, 0] = m[1, 2:4, 3:5] = True
    >>> union_boxes(m)
    [(slice(0, 1, None), slice(0, 1, None)), (slice(2, 4, None), slice(3, 5, None))]
    """
    from scipy import ndimage

    masks = np.asarray(masks, dtype=bool)
    union = masks.any(axis=0) if masks.ndim == 3 else masks
    if union.ndim != 2:
        raise ValueError(f"masks must be (raters, H, W) or (H, W), got shape {masks.shape}")
    structure = ndimage.generate_binary_structure(2, connectivity)
    components, _ = ndimage.label(union, structure=structure)
    return [box for box in ndimage.find_objects(components) if box is not None]
