"""The pixels an assisted tool works on: a crop around the assist prompts, as displayed.

Every tool reads only a *crop* of the image: a rectangle ``(row0, col0, row1, col1)``
(end exclusive, clipped to the image) around its assist prompts, at full resolution. The whole
image is never converted, copied or scanned, so one click on a 4096 x 3328 mammogram costs what
its crop costs.

The crop is turned into *displayed values*, ``float32`` in ``[0, 1]``:

* RGB(A) ``(rows, cols, 3|4)`` becomes luminance ``0.2125 R + 0.7154 G + 0.0721 B``
  (scikit-image's ``rgb2gray`` weights, ITU-R BT.709); alpha is ignored;
* ``window=(low, high)`` (raw units, e.g. the viewer's window/level) maps ``low`` to 0 and
  ``high`` to 1, clipped; without it the crop's own 0.5 and 99.5 percentiles are used;
* ``invert=True`` shows the image as MONOCHROME1 is displayed (``1 - v``): bright in the
  viewer is bright for the tools (the vesselness of ``trace`` looks for bright ridges);
* values that are not finite (NaN, inf) count as the window's low end.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist.pixels import displayed
>>> img = np.array([[0, 100], [200, 400]], dtype=np.uint16)
>>> displayed(img, (0, 0, 2, 2), window=(0, 400)).tolist()
[[0.0, 0.25], [0.5, 1.0]]
>>> displayed(img, (0, 0, 2, 2), window=(0, 400), invert=True)[0].tolist()
[1.0, 0.75]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

Crop = tuple[int, int, int, int]

_LUMA = np.array([0.2125, 0.7154, 0.0721], dtype=np.float32)


def check_image(image: object) -> np.ndarray:
    """``image`` as an array, or ``ValueError`` with one sentence saying what is wrong.

    Accepts ``(rows, cols)`` of any integer, boolean or float dtype and ``(rows, cols, 3|4)``
    RGB(A). Nothing is copied.
    """
    arr = np.asarray(image)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"The image must hold numbers; its dtype is {arr.dtype}.")
    if not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] in (3, 4))):
        raise ValueError("The image must be (rows, cols) or RGB (rows, cols, 3); "
                         f"its shape is {arr.shape}.")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError("The image is empty.")
    return arr


def crop_around(points: ArrayLike, margin: float, shape: Sequence[int]) -> Crop:
    """The crop ``(row0, col0, row1, col1)`` (end exclusive) holding every pixel within
    ``margin`` pixels of the bounding box of ``points`` (``(n, 2)`` ``(row, col)``, continuous
    frame), clipped to the image ``shape``. At least the pixels the points fall in.

    >>> crop_around([[10.5, 20.5]], 4, (100, 30))
    (6, 16, 15, 25)
    >>> crop_around([[1, 1], [3, 29.5]], 8, (100, 30))
    (0, 0, 12, 30)
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    h, w = int(shape[0]), int(shape[1])
    r0 = int(np.clip(np.floor(p[:, 0].min() - margin), 0, h - 1))
    c0 = int(np.clip(np.floor(p[:, 1].min() - margin), 0, w - 1))
    r1 = int(np.clip(np.floor(p[:, 0].max() + margin) + 1, r0 + 1, h))
    c1 = int(np.clip(np.floor(p[:, 1].max() + margin) + 1, c0 + 1, w))
    return r0, c0, r1, c1


def crop_for_clicks(points: ArrayLike, margin: float, shape: Sequence[int],
                    least: float = 24.0) -> Crop:
    """The first crop of a tool that grows its crop: the clicks' bounding box grown by
    ``margin`` less half the box's longer side, but at least ``least`` pixels. One click gets
    ``margin`` all round; clicks spread over an object get a crop not much larger than the
    object's, so that the 20th click of a session costs about what the first did.

    >>> crop_for_clicks([[50.5, 50.5]], 40, (200, 200))
    (10, 10, 91, 91)
    >>> crop_for_clicks([[20.5, 20.5], [80.5, 80.5]], 40, (200, 200))   # 24 px round the box
    (0, 0, 105, 105)
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    extent = float((p.max(axis=0) - p.min(axis=0)).max())
    return crop_around(p, max(least, margin - extent / 2), shape)


def grow(crop: Crop, by: int, shape: Sequence[int]) -> Crop:
    """``crop`` grown by ``by`` pixels on every side, clipped to ``shape``.

    >>> grow((10, 10, 20, 20), 15, (100, 25))
    (0, 0, 35, 25)
    """
    r0, c0, r1, c1 = crop
    return (max(r0 - by, 0), max(c0 - by, 0), min(r1 + by, int(shape[0])),
            min(c1 + by, int(shape[1])))


def touches_inner_edge(mask: np.ndarray, crop: Crop, shape: Sequence[int], width: int = 2
                       ) -> bool:
    """Whether ``mask`` (``bool`` of the crop) reaches within ``width`` pixels of a side of the
    crop that is not a side of the image (the object may go on beyond the crop).

    >>> m = np.zeros((10, 10), bool); m[4:6, 8:] = True
    >>> crop = (0, 0, 10, 10)
    >>> touches_inner_edge(m, crop, (10, 20)), touches_inner_edge(m, crop, (10, 10))
    (True, False)
    """
    r0, c0, r1, c1 = crop
    h, w = int(shape[0]), int(shape[1])
    return bool((r0 > 0 and mask[:width].any()) or (c0 > 0 and mask[:, :width].any())
                or (r1 < h and mask[-width:].any()) or (c1 < w and mask[:, -width:].any()))


def displayed(image: np.ndarray, crop: Crop, *, invert: bool = False,
              window: tuple[float, float] | None = None) -> np.ndarray:
    """The crop's displayed values, ``float32 (row1 - row0, col1 - col0)`` in ``[0, 1]``
    (module docstring). ``image`` is the whole image; only the crop is read."""
    r0, c0, r1, c1 = crop
    part = image[r0:r1, c0:c1]
    v = part[..., :3].astype(np.float32) @ _LUMA if part.ndim == 3 else part.astype(np.float32)
    finite = np.isfinite(v)
    if window is None:
        if not finite.any():
            return np.zeros(v.shape, np.float32)
        low, high = (float(x) for x in np.percentile(v[finite], (0.5, 99.5)))
    else:
        low, high = check_window(window)
    span = high - low
    v = np.where(finite, v, low).astype(np.float32, copy=False)
    out = np.zeros(v.shape, np.float32) if span <= 0 else np.clip((v - low) / span, 0.0, 1.0)
    if invert:
        out = 1.0 - out
    return out.astype(np.float32, copy=False)


def window_for(image: np.ndarray, crop: Crop, window: object = None) -> tuple[float, float]:
    """The window ``(low, high)`` a tool uses for all its crops: ``window`` checked, or the
    0.5 and 99.5 percentiles of ``crop`` (so that a crop that grows keeps its scale); a flat
    crop gives ``(v, v + 1)``.

    >>> window_for(np.arange(100.0).reshape(10, 10), (0, 0, 10, 10))
    (0.495, 98.505)
    """
    if window is not None:
        return check_window(window)
    r0, c0, r1, c1 = crop
    part = image[r0:r1, c0:c1]
    v = part[..., :3].astype(np.float32) @ _LUMA if part.ndim == 3 else part
    v = np.asarray(v, dtype=np.float64)
    finite = v[np.isfinite(v)]
    if finite.size == 0:
        return 0.0, 1.0
    low, high = (float(x) for x in np.percentile(finite, (0.5, 99.5)))
    return (low, high) if high > low else (low, low + 1.0)


def check_window(window: object) -> tuple[float, float]:
    """``(low, high)`` as floats, or ``ValueError``."""
    try:
        low, high = (float(x) for x in np.asarray(window, dtype=np.float64).ravel())
    except (TypeError, ValueError):
        raise ValueError("The window setting is (low, high) in the image's raw units; "
                         f"got {window!r}.") from None
    if not (np.isfinite(low) and np.isfinite(high)) or high <= low:
        raise ValueError(f"The window setting needs finite low < high; got ({low}, {high}).")
    return low, high


def pixel_of(points: ArrayLike, crop: Crop) -> np.ndarray:
    """``int (n, 2)`` crop indices ``(row, col)`` of the pixels the points fall in, clipped to
    the crop.

    >>> pixel_of([[10.5, 3.9], [0, 0]], (5, 2, 20, 9)).tolist()
    [[5, 1], [0, 0]]
    """
    p = np.floor(np.asarray(points, dtype=np.float64).reshape(-1, 2)).astype(np.int64)
    r0, c0, r1, c1 = crop
    p[:, 0] = np.clip(p[:, 0] - r0, 0, r1 - r0 - 1)
    p[:, 1] = np.clip(p[:, 1] - c0, 0, c1 - c0 - 1)
    return p
