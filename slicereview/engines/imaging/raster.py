"""PNG, TIFF and JPEG images, read with Pillow (PNG, JPEG) and tifffile (TIFF) directly.
``skimage.io.imread`` (used before) delegates to the same decoders but importing it costs
about a second (it loads ``skimage.color`` and scipy.linalg), which the first image shown
paid; ``imageio`` alone costs ~0.18 s more than Pillow. Palette images become RGB (RGBA with
transparency), CMYK/YCbCr RGB; a TIFF stored channels-first (``(3|4, H, W)``) is turned
channels-last as skimage does.

Grey images keep their dtype (``uint8``, ``uint16``; other integers become ``int32``, floats
``float32``); colour images become ``(H, W, 3)`` ``uint8`` (RGBA drops alpha, 16-bit colour is
scaled to 8 bits, grey+alpha drops alpha). Pixel spacing is unknown (1.0 mm fallback).
Multi-page TIFFs are not supported (only the first page would be meaningful; the file is
reported instead of silently truncated).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from slicereview.engines.imaging.display import (
    DisplayImage,
    WindowPreset,
    real_valued,
    to_rgb8,
)
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.file_checks import raster_size
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.model import NewImage


def check_header(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> tuple[int, int]:
    """``(rows, cols)`` from the file's header, refused when over ``limits`` (nothing is
    decoded: a zlib TIFF or PNG bomb is refused before it inflates)."""
    path = Path(path)
    try:
        rows, cols, channels, itemsize = raster_size(path)
    except UnreadableImageError:
        raise _unreadable(path) from None
    limits.check_frame(rows, cols, channels * itemsize)
    return rows, cols


def _unreadable(path: Path) -> UnreadableImageError:
    return UnreadableImageError(
        f"cannot read {path.name}: it is damaged, truncated or not the format its name says; "
        "copy it again from its source or leave it out")


def read_array(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """The pixels as ``(H, W)`` grey or ``(H, W, 3)`` uint8 RGB (see module doc)."""
    path = Path(path)
    check_header(path, limits)
    try:
        arr = _decode(path)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # the image plugins raise many kinds of errors
        raise _unreadable(path) from None
    real_valued(arr, path.name)
    if arr.ndim == 3 and arr.shape[2] == 2:  # grey + alpha
        arr = arr[..., 0]
    if arr.ndim == 3 and arr.shape[2] in (3, 4):
        return to_rgb8(arr[..., :3])
    if arr.ndim != 2:
        raise UnreadableImageError(
            f"{path.name} has the image shape {arr.shape} (multi-page or multi-channel), which "
            "cannot be shown; save its pages as separate files"
        )
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8)
    if arr.dtype in (np.uint8, np.uint16, np.int32, np.float32):
        return arr
    if arr.dtype.kind in "iu" and arr.itemsize <= 2:
        return arr.astype(np.int32)
    return arr.astype(np.float32)


def _decode(path: Path) -> np.ndarray:
    if path.suffix.lower() in (".tif", ".tiff"):
        import tifffile

        arr = np.asarray(tifffile.imread(path))  # every page: a multi-page file is refused
        if arr.ndim == 3 and arr.shape[-1] not in (3, 4) and arr.shape[0] in (3, 4):
            arr = np.moveaxis(arr, 0, -1)  # stored channels-first
        return arr
    from PIL import Image as PILImage

    with PILImage.open(path) as im:
        im.load()
        if im.mode in ("P", "PA"):
            transparent = im.mode == "PA" or "transparency" in im.info
            im = im.convert("RGBA" if transparent else "RGB")
        elif im.mode not in _PIL_MODES:  # CMYK, YCbCr, LAB, HSV
            im = im.convert("RGB")
        arr = np.asarray(im)
    return arr.astype(arr.dtype.newbyteorder("="), copy=False)  # "I;16B" is big-endian


#: Pillow modes whose ``np.asarray`` is already what :func:`read_array` expects.
_PIL_MODES = frozenset({"1", "L", "LA", "RGB", "RGBA", "I", "F", "I;16", "I;16L", "I;16B",
                        "I;16N"})


def import_entries(path: str | Path, limits: Limits = DEFAULT_LIMITS
                   ) -> tuple[dict[str, Any], list[NewImage]]:
    """``(source info, [one image])``; the file is decoded once to prove it is readable."""
    arr = read_array(path, limits)
    info = _info(arr)
    return info, [NewImage(int(arr.shape[0]), int(arr.shape[1]), info=info)]


def _info(arr: np.ndarray) -> dict[str, Any]:
    return {
        "kind": "raster",
        "dtype": arr.dtype.name,
        "channels": 3 if arr.ndim == 3 else 1,
        "pixel_spacing": [1.0, 1.0],
        "spacing_source": "fallback 1.0",
    }


def load(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> DisplayImage:
    """The :class:`DisplayImage` of a PNG/TIFF/JPEG file.

    8-bit grey images get the preset ``"full range"`` (0–255) so that they look as in any
    viewer; other grey images rely on the automatic window.

    Example
    -------
    >>> import tempfile, pathlib, numpy as np, skimage.io
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a.png"
    >>> skimage.io.imsave(f, np.full((3, 4), 1000, np.uint16), check_contrast=False)
    >>> d = load(f)
    >>> d.data.dtype.name, d.shape
    ('uint16', (3, 4))
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"image file not found: {path}")
    data = read_array(path, limits)
    presets = [WindowPreset("full range", 127.5, 255.0)] if data.dtype == np.uint8 else []
    kind = "RGB" if data.ndim == 3 else "grey"
    return DisplayImage(
        data=data, presets=presets, description=(
            f"{path.suffix.lstrip('.').upper()} {data.shape[1]}×{data.shape[0]} "
            f"{data.dtype.name} {kind}"
        ),
    )
