"""Overlap of two binary masks: Dice (F1) and intersection over union (Jaccard)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def _pair(a: ArrayLike, b: ArrayLike) -> tuple[int, int, int]:
    """Return ``(|A ∩ B|, |A|, |B|)`` of two same-shaped masks (non-zero = inside)."""
    x = np.asarray(a)
    y = np.asarray(b)
    if x.shape != y.shape:
        raise ValueError(f"masks differ in shape: {x.shape} vs {y.shape}")
    x = x if x.dtype == np.bool_ else x != 0
    y = y if y.dtype == np.bool_ else y != 0
    return int(np.count_nonzero(x & y)), int(np.count_nonzero(x)), int(np.count_nonzero(y))


def dice(a: ArrayLike, b: ArrayLike) -> float:
    """Dice coefficient [Dice1945] 2|A ∩ B| / (|A| + |B|) of two boolean masks of the same shape.

    Equals the F1 score of the flattened masks. Both masks empty → 1.0 (two annotators who
    both found nothing agree; unlike ``sklearn.metrics.f1_score``, which returns 0 there).

    Examples
    --------
    >>> a = np.zeros((8, 8), bool); a[1:5, 1:5] = True
    >>> b = np.zeros((8, 8), bool); b[2:6, 2:7] = True
    >>> dice(a, b)
    0.5
    """
    inter, na, nb = _pair(a, b)
    if na + nb == 0:
        return 1.0
    return 2.0 * inter / (na + nb)


def iou(a: ArrayLike, b: ArrayLike) -> float:
    """Intersection over union |A ∩ B| / |A ∪ B| of two boolean masks of the same shape.

    Both masks empty → 1.0, as for :func:`dice`.

    Examples
    --------
    >>> a = np.zeros((8, 8), bool); a[1:5, 1:5] = True
    >>> b = np.zeros((8, 8), bool); b[2:6, 2:7] = True
    >>> round(iou(a, b), 4)
    0.3333
    """
    inter, na, nb = _pair(a, b)
    union = na + nb - inter
    if union == 0:
        return 1.0
    return inter / union
