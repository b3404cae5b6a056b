"""Image-level binary Krippendorff's α of several masks, computed from per-pixel counts.

The formula and conventions are in :mod:`slicereview.engines.agreement.segmentation`, which
builds box-level and strict/relaxed agreement on these helpers (split out of it to keep each
module short); :func:`mask_alpha` is importable from either module.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["mask_alpha"]


# -- the binary α from counts ------------------------------------------------------------------


def _alpha_from_histogram(hist: np.ndarray) -> float:
    """Binary α from ``hist[m, j]`` = number of pixels seen by ``m`` raters, ``j`` saying 1."""
    size = hist.shape[0]
    m = np.arange(size)[:, None]
    j = np.arange(size)[None, :]
    pairable = np.broadcast_to(m >= 2, hist.shape)
    h = np.where(pairable, hist, 0).astype(np.int64)
    n = int(np.sum(h * m))
    if n < 2:
        return float("nan")
    n1 = int(np.sum(h * j))
    n0 = n - n1
    # Σ n1 (m − n1) / (m − 1) kept as one exact integer per m before dividing.
    per_m = np.sum(h * j * (m - j), axis=1)
    if not per_m.any():
        return 1.0
    o01 = sum(int(per_m[k]) / (k - 1) for k in range(2, size) if per_m[k])
    return float(1.0 - (n - 1) * o01 / (float(n0) * float(n1)))


def _count_histogram(n1: np.ndarray, raters: int) -> np.ndarray:
    """``hist[raters, j]`` for a count image where every rater saw every pixel."""
    hist = np.zeros((raters + 1, raters + 1), dtype=np.int64)
    total = n1.size
    ones = np.count_nonzero(n1)
    if raters <= 32:
        # A few vectorised compares beat bincount, which first copies the image to intp.
        inner = [np.count_nonzero(n1 == k) for k in range(1, raters)]
    else:
        inner = list(np.bincount(n1.ravel(), minlength=raters + 1)[1:raters])
    full = ones - int(sum(inner))
    hist[raters, 0] = total - ones
    hist[raters, 1:raters] = inner
    hist[raters, raters] = full
    return hist


def _stack(masks: ArrayLike, name: str = "masks") -> np.ndarray:
    arr = np.asarray(masks)
    if arr.ndim != 3:
        raise ValueError(f"{name} must be 3-D (raters, height, width), got shape {arr.shape}")
    if arr.dtype != np.bool_:
        arr = arr != 0
    return arr


def _counts(masks: np.ndarray) -> np.ndarray:
    """Per-pixel number of raters marking the pixel, ``uint8`` (``uint16`` past 255 raters)."""
    dtype = np.uint8 if masks.shape[0] <= 255 else np.uint16
    return np.add.reduce(masks.view(np.uint8), axis=0, dtype=dtype)


def mask_alpha(masks: ArrayLike, valid: ArrayLike | None = None) -> float:
    """Image-level binary nominal Krippendorff's α of several annotators' masks.

    Parameters
    ----------
    masks : array_like of bool, shape (R, H, W)
        One mask per annotator; True (non-zero) marks ROI.
    valid : array_like of bool, shape (R, H, W), optional
        Which annotator saw which pixel; pixels an annotator did not see are missing values.
        Default: every annotator saw every pixel.

    Returns
    -------
    float
        α over all pixels as units. 1.0 without observed disagreement (e.g. all masks equal,
        or all empty); NaN with fewer than two pairable values (e.g. one annotator).

    Examples
    --------
    >>> a = np.zeros((2, 4, 4), bool)
    >>> a[0, 1:3, 1:3] = True
    >>> a[1, 1:3, 1:4] = True
    >>> round(mask_alpha(a), 4)
    0.7182
    """
    arr = _stack(masks)
    raters = arr.shape[0]
    if valid is None:
        if raters < 2:
            return float("nan")
        return _alpha_from_histogram(_count_histogram(_counts(arr), raters))
    seen = _stack(valid, "valid")
    if seen.shape != arr.shape:
        raise ValueError(f"valid has shape {seen.shape}, masks have {arr.shape}")
    m = _counts(seen).astype(np.int64)
    n1 = _counts(arr & seen)
    key = m * (raters + 1) + n1
    hist = np.bincount(key.ravel(), minlength=(raters + 1) ** 2)
    return _alpha_from_histogram(hist.reshape(raters + 1, raters + 1))
