"""What the two model engines share: tiles, the blending weights, a prediction and its labels.

A *model* here is anything that turns an image into a per-pixel probability of the region of
interest: an ONNX model run in-process (:mod:`slicereview.engines.inference`) or the project's
own pixel classifier (:mod:`slicereview.engines.learning`). Both work on a whole mammogram
(4096 × 3328 16-bit and more) tile by tile, report progress as ``progress(done, total)`` and stop
when ``cancelled()`` returns True by raising :class:`Cancelled`. This module holds:

* :func:`overlapping_tiles` — boxes of a fixed size that overlap by ``overlap`` pixels (the ONNX
  model sees each box and the outputs are blended with :func:`blend_weights`);
* :func:`margin_tiles` — disjoint *cores* that cover the image, each with a *span* that adds a
  margin on every side (the pixel classifier computes its features on the span and answers for
  the core only, so tiling changes no value);
* :class:`Prediction` and :func:`label_image` — the probability map and the label image at a
  model's two thresholds: ``1`` (certain) where ``p ≥ certain``, ``2`` (uncertain) where
  ``uncertain ≤ p < certain``, else ``0`` (docs/design.md, "Conventions").

Boxes are ``(row0, col0, row1, col1)``, end exclusive. Degenerate cases: an image smaller than a
tile gets one tile, the whole image (the caller pads if its model needs the full size); an empty
image gets no tile.

Example
-------
>>> overlapping_tiles((10, 7), size=4, overlap=1)[:3]
[(0, 0, 4, 4), (0, 3, 4, 7), (3, 0, 7, 4)]
>>> t = margin_tiles((10, 7), size=5, margin=2)[0]
>>> t.core, t.span
((0, 0, 5, 5), (0, 0, 7, 7))
>>> label_image(np.array([0.1, 0.35, 0.5, 0.9], np.float32), certain=0.5, uncertain=0.3)
array([0, 2, 1, 1], dtype=uint8)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from slicereview.engines.masks import CERTAIN, UNCERTAIN

Box = tuple[int, int, int, int]
#: ``progress(done, total)``: tiles (or images) finished out of all.
Progress = Callable[[int, int], None]
#: ``cancelled()``: True once the caller wants the work to stop.
CancelCheck = Callable[[], bool]


class Cancelled(Exception):
    """The caller's ``cancelled()`` returned True: the work stopped, nothing was returned."""


def check(cancelled: CancelCheck | None) -> None:
    """Raise :class:`Cancelled` when ``cancelled()`` is True (``None``: never)."""
    if cancelled is not None and cancelled():
        raise Cancelled("cancelled")


def _starts(length: int, size: int, stride: int) -> list[int]:
    """Start offsets of boxes of ``size`` over ``length`` with ``stride``; the last one ends
    at ``length`` (so every box but a too-short image's is full size)."""
    if length <= size:
        return [0]
    starts = list(range(0, length - size, stride))
    starts.append(length - size)
    return starts


def overlapping_tiles(shape: tuple[int, int], size: int, overlap: int = 0) -> list[Box]:
    """Boxes ``size × size`` covering ``shape``, neighbours overlapping by at least ``overlap``.

    The stride is ``size - overlap``; the last box of a row or column is moved back to end at
    the image's edge, so it may overlap its neighbour by more. A side shorter than ``size``
    gets one box of that side's length. Raises ``ValueError`` unless
    ``0 <= overlap < size``.

    >>> overlapping_tiles((4, 4), size=8)
    [(0, 0, 4, 4)]
    """
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"tiles need 0 <= overlap < size, got size {size}, overlap {overlap}")
    rows, cols = int(shape[0]), int(shape[1])
    if rows == 0 or cols == 0:
        return []
    stride = size - overlap
    return [(r, c, min(r + size, rows), min(c + size, cols))
            for r in _starts(rows, size, stride) for c in _starts(cols, size, stride)]


@dataclass(frozen=True)
class Tile:
    """One disjoint ``core`` of the image and the ``span`` (the core plus a margin, clipped to
    the image) that is read to answer for it. Both are boxes ``(row0, col0, row1, col1)``."""

    core: Box
    span: Box

    @property
    def inner(self) -> tuple[slice, slice]:
        """The core as slices of an array of the span's shape."""
        r0, c0 = self.core[0] - self.span[0], self.core[1] - self.span[1]
        return (slice(r0, r0 + self.core[2] - self.core[0]),
                slice(c0, c0 + self.core[3] - self.core[1]))


def margin_tiles(shape: tuple[int, int], size: int, margin: int) -> list[Tile]:
    """Disjoint cores of at most ``size × size`` covering ``shape``, each with its span grown
    by ``margin`` on every side (clipped to the image), in row-major order.

    >>> [t.core for t in margin_tiles((3, 5), size=3, margin=1)]
    [(0, 0, 3, 3), (0, 3, 3, 5)]
    """
    if size < 1 or margin < 0:
        raise ValueError(f"tiles need size >= 1 and margin >= 0, got {size}, {margin}")
    rows, cols = int(shape[0]), int(shape[1])
    tiles = []
    for r in range(0, rows, size):
        for c in range(0, cols, size):
            core = (r, c, min(r + size, rows), min(c + size, cols))
            span = (max(r - margin, 0), max(c - margin, 0),
                      min(core[2] + margin, rows), min(core[3] + margin, cols))
            tiles.append(Tile(core, span))
    return tiles


def blend_weights(box: Box, shape: tuple[int, int], overlap: int) -> np.ndarray:
    """``float32`` weights of the box's pixels for blending overlapping tiles.

    A separable raised-cosine ramp ``sin²`` rises over the first ``overlap`` pixels of every side
    that lies inside the image and falls over the last; sides on the image's edge, and the
    middle, have weight 1. Where two tiles overlap by exactly ``overlap`` their ramps sum to 1;
    callers divide by the summed weights anyway, so a wider overlap (the last tile of a row) is
    right too. Every weight is positive, so no pixel is left without a tile's answer.

    >>> [round(float(w), 2) for w in blend_weights((0, 0, 1, 6), (1, 10), overlap=3)[0]]
    [1.0, 1.0, 1.0, 0.93, 0.5, 0.07]
    """
    wr, wc = blend_ramps(box, shape, overlap)
    return np.outer(wr, wc)


def blend_ramps(box: Box, shape: tuple[int, int], overlap: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """The two ``float32`` factors of :func:`blend_weights`: the rows' ramp ``(rows,)`` and
    the columns' ``(cols,)``, whose outer product it is. Over a grid of tiles
    (:func:`overlapping_tiles`) the summed weights are the outer product of the rows' and the
    columns' summed ramps, so a caller need not add up a map of weights."""
    r0, c0, r1, c1 = box
    wr = _ramp(r1 - r0, overlap, r0 > 0, r1 < shape[0]).astype(np.float32)
    wc = _ramp(c1 - c0, overlap, c0 > 0, c1 < shape[1]).astype(np.float32)
    return wr, wc


#: The smallest blending weight (a tile's outermost pixel inside the image).
_FLOOR = 1e-3


def _ramp(n: int, overlap: int, rise: bool, fall: bool) -> np.ndarray:
    w = np.ones(n, np.float64)
    k = min(overlap, n)
    if k > 0:
        ramp = np.sin(0.5 * np.pi * (np.arange(k) + 0.5) / k) ** 2
        if rise:
            w[:k] = np.minimum(w[:k], ramp)
        if fall:
            w[n - k:] = np.minimum(w[n - k:], ramp[::-1])
    return np.maximum(w, _FLOOR) if (rise or fall) else w


def check_thresholds(certain: float, uncertain: float) -> None:
    """Raise ``ValueError`` unless ``0 < uncertain <= certain <= 1`` (both finite)."""
    if not (np.isfinite(certain) and np.isfinite(uncertain)
            and 0.0 < uncertain <= certain <= 1.0):
        raise ValueError("thresholds need 0 < uncertain <= certain <= 1, got "
                         f"certain {certain}, uncertain {uncertain}")


def label_image(probability: np.ndarray, certain: float, uncertain: float) -> np.ndarray:
    """The label image of a probability map: ``uint8``, same shape; 1 (certain) where
    ``p >= certain``, 2 (uncertain) where ``uncertain <= p < certain``, else 0. With
    ``uncertain == certain`` there is no uncertain band."""
    check_thresholds(certain, uncertain)
    p = np.asarray(probability)
    out = np.zeros(p.shape, np.uint8)
    out[p >= uncertain] = UNCERTAIN
    out[p >= certain] = CERTAIN
    return out


@dataclass(frozen=True, eq=False)
class Prediction:
    """A model's answer for one image.

    Attributes
    ----------
    probability : float32 (H, W)
        The probability of the region of interest per pixel, in [0, 1] (0 outside the tissue
        mask, where one was used).
    labels : uint8 (H, W)
        :func:`label_image` of ``probability`` at the model's thresholds.
    certain, uncertain : float
        The thresholds used.
    """

    probability: np.ndarray
    labels: np.ndarray
    certain: float
    uncertain: float

    @classmethod
    def of(cls, probability: np.ndarray, certain: float, uncertain: float) -> Prediction:
        """The prediction of a probability map at two thresholds."""
        p = np.asarray(probability, dtype=np.float32)
        return cls(p, label_image(p, certain, uncertain), float(certain), float(uncertain))
