"""The pixel arrays the image view hands to pyqtgraph: a fast dtype and a small pyramid.

pyqtgraph draws ``uint8``/``uint16`` through one combined lookup table and signed integers or
floats through slow paths (DESIGN §9), and redrawing all 13 M pixels of a mammogram when
zoomed out is wasted work: :func:`fast_display_copy` shifts signed data into ``uint16``, and
:func:`block_mean` makes the reduced copies drawn when zoomed out.
"""

from __future__ import annotations

import numpy as np


def block_mean(data: np.ndarray, factor: int) -> np.ndarray:
    """``(H // f, W // f)`` block means of ``(H, W)`` (or ``(H, W, 3)``) data, same dtype.

    The last rows/columns that do not fill a block are dropped; callers draw the result over
    ``factor`` times its size, so the picture is at most ``factor - 1`` pixels short.
    """
    h, w = (data.shape[0] // factor) * factor, (data.shape[1] // factor) * factor
    cropped = data[:h, :w]
    shape = (h // factor, factor, w // factor, factor) + data.shape[2:]
    reduced = cropped.reshape(shape).mean(axis=(1, 3), dtype=np.float32)
    if np.issubdtype(data.dtype, np.integer):
        reduced = np.rint(reduced)
    return reduced.astype(data.dtype)


def fast_display_copy(data: np.ndarray) -> tuple[np.ndarray, float]:
    """Return ``(display, offset)`` with ``display = data + offset`` in a fast pyqtgraph dtype.

    pyqtgraph has fast paths for ``uint8`` and ``uint16`` (one combined lookup table) and slow
    ones for signed integers and floats. Signed integer data that fits is shifted into ``uint16``;
    other data is returned as it is (``offset`` 0). Levels given to pyqtgraph must add ``offset``.
    """
    if data.dtype in (np.uint8, np.uint16) or data.ndim == 3:
        return data, 0.0
    if np.issubdtype(data.dtype, np.integer):
        lo, hi = int(data.min()), int(data.max())
        if hi - lo < 65536:
            return (data.astype(np.int32) - lo).astype(np.uint16), float(-lo)
    return data, 0.0
