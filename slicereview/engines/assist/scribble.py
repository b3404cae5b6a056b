"""The ``scribble`` tool: foreground and background strokes give random-walker probabilities.

The strokes (positive: the object; negative: not the object) are drawn into a seed image,
``stroke_radius`` pixels thick, and the random walker [Grady2006]
(:func:`skimage.segmentation.random_walker`, exact sparse solve, ``beta`` as scikit-image
defines it) gives each other pixel of the crop the probability ``p`` that a random walk from
it reaches a positive stroke before a negative one, edges of the displayed values slowing it.
With ``border_background`` (the default) the crop's border counts as a negative stroke too, so
one positive stroke alone already gives an object.

**Certain / uncertain**: ``p >= hi`` is certain, ``lo <= p < hi`` uncertain (defaults 0.9 and
0.5), kept where connected to a positive stroke; ``probability`` is ``p`` on the crop.

**Crop**: the strokes' bounding box grown by ``crop_margin`` pixels (default 24).

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import Prompt, assist
>>> image = np.zeros((80, 80)); image[20:60, 20:60] = 1.0
>>> fg = Prompt("scribble", [[30.5, 30.5], [50.5, 50.5]])
>>> bg = Prompt("scribble", [[10.5, 10.5], [10.5, 70.5], [70.5, 70.5]], positive=False)
>>> r = assist(image, [fg, bg], tool="scribble")
>>> int((r.certain | r.uncertain).sum()), r.probability.shape == r.labels.shape
(1600, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.common import border, need_positive, number, only
from slicereview.engines.assist.outline import TOLERANCE
from slicereview.engines.assist.pixels import Crop, crop_around, displayed, pixel_of, window_for
from slicereview.engines.assist.prompts import Prompt
from slicereview.engines.assist.result import (
    HI,
    LO,
    AssistResult,
    check_thresholds,
    from_probability,
)

#: Defaults of the settings (module docstring).
BETA, STROKE_RADIUS, CROP_MARGIN = 130.0, 1, 24


def stroke_pixels(prompt: Prompt, crop: Crop, shape: tuple[int, int], radius: int
                  ) -> np.ndarray:
    """``bool`` of the crop's ``shape``: the pixels a stroke passes through (consecutive
    samples joined by straight lines), thickened by ``radius`` pixels."""
    from scipy import ndimage
    from skimage.draw import line

    out = np.zeros(shape, bool)
    px = pixel_of(prompt.points, crop)
    out[px[:, 0], px[:, 1]] = True
    for (r0, c0), (r1, c1) in zip(px[:-1], px[1:], strict=True):
        rr, cc = line(int(r0), int(c0), int(r1), int(c1))
        out[rr, cc] = True
    if radius > 0:
        out = ndimage.binary_dilation(out, np.ones((2 * radius + 1, 2 * radius + 1), bool))
    return out


def scribble(image: np.ndarray, prompts: Sequence[Prompt], *, invert: bool = False,
             window: tuple[float, float] | None = None, simplify: float = TOLERANCE,
             hi: float = HI, lo: float = LO, beta: float = BETA,
             stroke_radius: int = STROKE_RADIUS, border_background: bool = True,
             crop_margin: int = CROP_MARGIN) -> AssistResult:
    """Random-walker region of foreground and background strokes.

    Parameters
    ----------
    image
        ``(rows, cols)`` raw values or RGB (:mod:`.pixels`).
    prompts
        ``"scribble"`` assist prompts (a ``"point"`` counts as a one-sample stroke), at least
        one positive; ``(row, col)`` samples in drawing order, continuous pixel frame.
    invert, window
        How the image is displayed (:mod:`.pixels`).
    simplify
        Simplification tolerance of the outlines, pixels (default 1.0).
    hi, lo
        Certain where ``p >= hi``, uncertain where ``lo <= p < hi`` (defaults 0.9, 0.5).
    beta
        The random walker's edge penalty (scikit-image's ``beta``, default 130): larger makes
        edges harder to cross.
    stroke_radius
        Strokes' half-thickness in pixels (default 1: 3 px wide).
    border_background
        Count the crop's border as background (default True).
    crop_margin
        Margin round the strokes' bounding box, pixels (default 24).

    Returns
    -------
    AssistResult
        With ``probability`` (``float32`` on the crop).

    Raises
    ------
    ValueError
        No positive stroke, an assist prompt that is neither a stroke nor a point, a
        negative stroke missing while ``border_background`` is False, or a bad setting.
    """
    from skimage.segmentation import random_walker

    only("scribble", prompts, ("scribble", "point"))
    need_positive("scribble", prompts, "stroke")
    hi, lo = check_thresholds(hi, lo)
    beta = number("beta", beta, 0.0, open_low=True)
    radius = int(number("stroke_radius", stroke_radius, 0.0, 20.0))
    margin = int(number("crop_margin", crop_margin, 1.0))
    if not border_background and all(p.positive for p in prompts):
        raise ValueError("The scribble tool needs a background stroke when the crop's border "
                         "is not background (border_background=False).")
    crop = crop_around(np.vstack([p.points for p in prompts]), margin, image.shape)
    v = displayed(image, crop, invert=invert, window=window_for(image, crop, window))
    seeds = np.zeros(v.shape, np.int32)
    if border_background:
        seeds[border(v.shape)] = 2
    for p in sorted(prompts, key=lambda q: q.positive):  # positive strokes drawn last win
        seeds[stroke_pixels(p, crop, v.shape, radius)] = 1 if p.positive else 2
    positive = seeds == 1
    if (seeds == 0).any():
        p_fg = random_walker(v.astype(np.float64), seeds, beta=beta, mode="bf",
                             return_full_prob=True)[0]
    else:
        p_fg = positive.astype(np.float64)
    p_fg = np.clip(p_fg, 0.0, 1.0).astype(np.float32)
    keep = _touching(p_fg >= lo, positive)
    return from_probability(p_fg, shape=image.shape[:2], crop=crop, hi=hi, lo=lo,
                            tolerance=simplify, keep=keep)


def _touching(mask: np.ndarray, positive: np.ndarray) -> np.ndarray:
    from scipy import ndimage

    labels, _ = ndimage.label(mask, structure=np.ones((3, 3), bool))
    ids = np.unique(labels[positive & mask])
    return np.isin(labels, ids[ids > 0])
