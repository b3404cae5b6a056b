"""The ``wand`` tool: a click gives the connected region within a tolerance of its value.

A flood fill (:func:`skimage.segmentation.flood`, 8-connected) of the displayed values,
smoothed with a Gaussian of σ ``smoothing`` px, from each positive click: the pixels connected
to it whose value differs from the click's by at most ``tolerance`` (in displayed units: a
fraction of the window, so 0.1 is a tenth of what the viewer shows from black to white).
Several clicks give the union of their regions.

**A smooth outline.** On a blurred object in noise (a blob drawn into a mammogram) the flood's
edge follows the noise: pixels of the object's blurred rim fall just outside the tolerance one
by one and leave a ragged outline with pinholes (Dice 0.65–0.73 with the truth on such blobs).
The flood is therefore closed by a ``(2 closing + 1)²`` square (``closing`` 2 px, 0: off) and
each click's flood has its holes filled, in the certain and in the whole region (the certain
part stays inside the whole): all of them when the flood is enclosed (it does not reach the
border of the crop it was computed on: an object — on a blob the flood from the centre can be
a ring round a core brighter than the tolerance allows, and that core is filled), and only
those under :data:`HOLE_AREA` pixels (64) when it reaches the crop's border (the background
round objects: a click there leaves the objects out).

**Uncertain margin** from the tolerance: the pixels that stay in the region when the tolerance
is multiplied by ``1 - margin`` are certain, the rest of the region is uncertain — they would
leave it were the tolerance a little tighter. ``margin=0`` makes everything certain. Certain ∪
uncertain is the flood at ``tolerance``; ``probability`` is None.

**Crop.** ``crop_margin`` pixels round the clicks (less half their spread, at least 24:
:func:`.pixels.crop_for_clicks`), grown by half its size while the region
reaches a side of the crop that is not the image's, up to ``max_crop`` pixels a side (a flood
into the whole image stops there: the crop's border is its limit). The window is fixed from
the first crop (or given), so growing does not change the tolerance's meaning.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import Prompt, assist
>>> image = np.zeros((50, 50)); image[10:20, 10:40] = 1.0; image[20:30, 10:40] = 0.9
>>> near = assist(image, [Prompt("point", [[15.5, 20.5]])], tool="wand", window=(0, 1),
...               tolerance=0.05, smoothing=0)
>>> wide = assist(image, [Prompt("point", [[15.5, 20.5]])], tool="wand", window=(0, 1),
...               tolerance=0.15, smoothing=0)
>>> int(near.certain.sum()), int(wide.certain.sum() + wide.uncertain.sum()), int(wide.certain.sum())
(300, 600, 300)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.common import (
    EIGHT,
    border,
    close,
    fill_small_holes,
    need_positive,
    number,
    only,
    seeds,
)
from slicereview.engines.assist.outline import TOLERANCE
from slicereview.engines.assist.pixels import (
    crop_for_clicks,
    displayed,
    grow,
    touches_inner_edge,
    window_for,
)
from slicereview.engines.assist.prompts import Prompt
from slicereview.engines.assist.result import AssistResult, from_labels

#: Holes of a flood that reaches the crop's border smaller than this (pixels) are filled.
HOLE_AREA = 64
#: Defaults of the settings (module docstring).
WAND_TOLERANCE, SMOOTHING, MARGIN, CROP_MARGIN, MAX_CROP, CLOSING = 0.1, 1.0, 0.5, 64, 1024, 2


def wand(image: np.ndarray, prompts: Sequence[Prompt], *, invert: bool = False,
         window: tuple[float, float] | None = None, simplify: float = TOLERANCE,
         tolerance: float = WAND_TOLERANCE, smoothing: float = SMOOTHING,
         margin: float = MARGIN, crop_margin: int = CROP_MARGIN,
         max_crop: int = MAX_CROP, closing: int = CLOSING) -> AssistResult:
    """The connected region within ``tolerance`` of each positive click's value.

    Parameters
    ----------
    image
        ``(rows, cols)`` raw values or RGB (:mod:`.pixels`).
    prompts
        Positive ``"point"`` assist prompts, ``(row, col)`` in the continuous pixel frame.
    invert, window
        How the image is displayed (:mod:`.pixels`); without a window, the first crop's
        0.5–99.5 percentiles.
    simplify
        Simplification tolerance of the outlines, pixels (default 1.0).
    tolerance
        Largest difference from the click's value, in displayed units ``[0, 1]`` (default 0.1).
    smoothing
        Gaussian σ in pixels applied before the flood (default 1.0; 0: none).
    margin
        The uncertain margin: pixels outside the flood at ``tolerance * (1 - margin)`` are
        uncertain (default 0.5).
    crop_margin, max_crop
        First crop's margin and the largest crop side, pixels (defaults 64 and 1024).
    closing
        Radius in pixels of the square the flood is closed with (default 2; 0: none).

    Returns
    -------
    AssistResult
        ``probability`` is None.

    Raises
    ------
    ValueError
        A negative or non-point assist prompt, no click, or a bad setting.
    """
    from scipy import ndimage
    from skimage.segmentation import flood

    only("wand", prompts, ("point",), negative=False)
    need_positive("wand", prompts)
    tol = number("tolerance", tolerance, 0.0)
    sigma = number("smoothing", smoothing, 0.0)
    keep = 1.0 - number("margin", margin, 0.0, 1.0)
    crop_margin = int(number("crop_margin", crop_margin, 1.0))
    max_crop = int(number("max_crop", max_crop, 8.0))
    radius = int(number("closing", closing, 0.0, 16.0))
    crop = crop_for_clicks(np.vstack([p.points for p in prompts]), crop_margin, image.shape)
    win = window_for(image, crop, window)
    while True:
        v = displayed(image, crop, invert=invert, window=win)
        if sigma > 0:
            v = ndimage.gaussian_filter(v, sigma)
        relaxed = np.zeros(v.shape, bool)
        certain = np.zeros(v.shape, bool)
        for r, c in seeds(prompts, crop, True):
            relaxed |= smooth(flood(v, (int(r), int(c)), footprint=EIGHT, tolerance=tol), radius)
            certain |= smooth(flood(v, (int(r), int(c)), footprint=EIGHT,
                                    tolerance=tol * keep), radius)
        side = max(v.shape)
        if side >= max_crop or not touches_inner_edge(relaxed, crop, image.shape):
            break
        crop = grow(crop, max(side // 2, 1), image.shape)
    certain &= relaxed
    labels = np.where(certain, 1, np.where(relaxed, 2, 0)).astype(np.uint8)
    return from_labels(labels, shape=image.shape[:2], crop=crop, tolerance=simplify)


def smooth(region: np.ndarray, radius: int) -> np.ndarray:
    """``region`` (one flood on the crop) closed by a ``(2 radius + 1)²`` square, with its
    holes filled: all of them when it is enclosed, those under :data:`HOLE_AREA` pixels when
    it reaches the crop's border (module docstring)."""
    from scipy import ndimage

    closed = close(region, radius)
    if closed[border(closed.shape)].any():
        return fill_small_holes(closed, HOLE_AREA)
    return np.asarray(ndimage.binary_fill_holes(closed))
