"""Agreement of one polygon with the other annotators of its image: its *matched Dice*.

An annotator's polygon outlines one region; the other annotators' masks cover every region
of the image. Comparing the polygon with their whole masks would count every other region
against it, so each polygon is compared with what each other annotator drew *there*:

* **matching region** of polygon ``P`` in annotator ``b``'s work — the union of ``b``'s
  polygons (certain or uncertain) that share at least one pixel with ``P``; empty when none
  does (``b`` did not mark that region);
* **matched Dice** of ``P`` — the mean, over the image's other annotators ``b``, of the Dice
  coefficient [Dice1945] ``2 |P ∩ M_b| / (|P| + |M_b|)`` between ``P``'s pixels and ``b``'s
  matching region ``M_b``: 1 when every other annotator outlined exactly the same pixels, 0
  when nobody else marked any of them.

Polygons come as their pixels on their bounding box, ``(row0, col0, inside)`` with ``inside``
``bool (h, w)`` (what :func:`slicereview.engines.masks.polygon_crop` returns), so the work is
proportional to the polygons' boxes, never to the image.

Degenerate cases: a polygon without a pixel (``None``) has NaN; so has every polygon when the
image has one annotator (no one to agree with). An annotator with no polygon is another
annotator who marked nothing: every polygon's Dice against them is 0.

Example
-------
>>> import numpy as np
>>> square = np.ones((10, 10), bool)                  # 100 pixels
>>> a = [(0, 0, square)]
>>> b = [(0, 5, square), (40, 40, square)]            # half overlaps; one region elsewhere
>>> polygon_agreement([a, b])
[[0.5], [0.5, 0.0]]
>>> polygon_agreement([a])                            # one annotator: nothing to agree with
[[nan]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: One polygon's pixels on its bounding box: ``(row0, col0, inside bool (h, w))``.
Crop = tuple[int, int, np.ndarray]

__all__ = ["Crop", "matched_dice", "polygon_agreement"]


def _box(crop: Crop) -> tuple[int, int, int, int]:
    """``(row0, col0, row1, col1)`` of a crop, end exclusive."""
    r0, c0, inside = crop
    return r0, c0, r0 + inside.shape[0], c0 + inside.shape[1]


def _overlaps(p: Crop, q: Crop) -> bool:
    """Whether two crops share a pixel."""
    (pr, pc, pin), (qr, qc, qin) = p, q
    r0, c0 = max(pr, qr), max(pc, qc)
    r1, c1 = min(pr + pin.shape[0], qr + qin.shape[0]), min(pc + pin.shape[1], qc + qin.shape[1])
    if r1 <= r0 or c1 <= c0:
        return False
    return bool((pin[r0 - pr:r1 - pr, c0 - pc:c1 - pc]
                 & qin[r0 - qr:r1 - qr, c0 - qc:c1 - qc]).any())


def matched_dice(polygon: Crop, other: Sequence[Crop | None]) -> float:
    """Dice of ``polygon`` against another annotator's matching region: the union of the
    crops of ``other`` that share a pixel with it (0.0 when none does).

    >>> import numpy as np
    >>> p = (0, 0, np.ones((4, 4), bool))
    >>> matched_dice(p, [(0, 0, np.ones((4, 2), bool)), (0, 2, np.ones((4, 2), bool))])
    1.0
    >>> matched_dice(p, [])
    0.0
    """
    r0, c0, r1, c1 = _box(polygon)
    matched = []
    for q in other:  # (a few polygons an annotator: plain comparisons beat arrays of boxes)
        if q is None:
            continue
        qr0, qc0, qr1, qc1 = _box(q)
        if qr0 < r1 and qr1 > r0 and qc0 < c1 and qc1 > c0 and _overlaps(polygon, q):
            matched.append(q)
    if not matched:
        return 0.0
    inside = polygon[2]
    if len(matched) == 1 and _box(matched[0]) == (r0, c0, r1, c1):
        region = matched[0][2]  # (the same box: no union to paint)
        both = int(np.count_nonzero(region & inside))
        return 2.0 * both / (int(np.count_nonzero(inside)) + int(np.count_nonzero(region)))
    top = min(r0, *(q[0] for q in matched))
    left = min(c0, *(q[1] for q in matched))
    bottom = max(r1, *(q[0] + q[2].shape[0] for q in matched))
    right = max(c1, *(q[1] + q[2].shape[1] for q in matched))
    area = np.zeros((bottom - top, right - left), dtype=bool)
    for qr, qc, qin in matched:
        area[qr - top:qr - top + qin.shape[0], qc - left:qc - left + qin.shape[1]] |= qin
    both = int(np.count_nonzero(area[r0 - top:r1 - top, c0 - left:c1 - left] & inside))
    return 2.0 * both / (int(np.count_nonzero(inside)) + int(np.count_nonzero(area)))


def polygon_agreement(annotators: Sequence[Sequence[Crop | None]]) -> list[list[float]]:
    """The matched Dice of every polygon of every annotator of one image (see the module
    text): ``result[i][k]`` is polygon ``k`` of annotator ``i``, NaN when it has no pixel or
    the image has one annotator.

    Parameters
    ----------
    annotators : sequence of sequences of Crop or None
        Per annotator, their polygons' pixels ``(row0, col0, inside bool (h, w))`` in image
        rows and columns, ``None`` for a polygon without a pixel.
    """
    out: list[list[float]] = []
    for i, crops in enumerate(annotators):
        others = [annotators[j] for j in range(len(annotators)) if j != i]
        row = []
        for crop in crops:
            if crop is None or not others or not crop[2].any():
                row.append(math.nan)
                continue
            row.append(sum(matched_dice(crop, other) for other in others) / len(others))
        out.append(row)
    return out
