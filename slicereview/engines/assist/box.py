"""The ``box`` tool: a box round an object gives the object, by GrabCut.

GrabCut [Rother2004] (OpenCV's ``cv2.grabCut``, ``iterations`` rounds): the pixels outside the
box are background, those inside probably the object; a Gaussian mixture of the grey values
(5 components each, as OpenCV fits them) for object and background and a graph cut with
contrast-sensitive edges are alternated. Positive or negative points and strokes given with
the box are hard constraints (object / background) for the cut.

**Certain / uncertain**: the cut's object is certain ∪ uncertain. The ``probability`` is the
posterior of the two fitted mixtures per pixel, ``p = L_obj / (L_obj + L_bg)`` on the grey
value smoothed with σ 1 px; the object's pixels with ``p < hi`` (default 0.9) are uncertain —
grey values the background mixture explains nearly as well — and the rest certain.

**One object, no pinholes.** The cut's object is cleaned: only its 8-connected component
under the box's centre is kept (the largest one when none is under the centre), and holes of
fewer than :data:`HOLE_AREA` pixels (64) are filled. On a real mass in a mammogram the cut gave
up to nine pieces (the mass and specks of bright tissue beside it); the object is one of them.
Its certain part loses its specks too: certain pieces of fewer than 64 pixels become uncertain
and certain holes of fewer than 64 pixels are filled.

**Fallback when the cut finds nothing.** On a small box round a small object (a blob of about
200 pixels with a box 4 px round it) the background mixture explains the object too and the
cut returns less than :data:`MIN_SHARE` (5 %) of the box. Then the object is the threshold
region of the box: the grey values (smoothed with σ 1 px) at or above the Otsu threshold
[Otsu1979] of the box's pixels (at or below, when the box is darker inside than the margin
round it), cleaned as above. Its uncertain pixels are those within a quarter of the way from
the threshold to the object's median, and its ``probability`` is still the posterior of the
mixtures the cut fitted.

**Crop**: the box grown by ``crop_margin`` pixels (default 16) or a quarter of its longer side,
whichever is more, so the background mixture sees the object's surroundings.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import Prompt, assist
>>> rng = np.random.default_rng(0)
>>> image = rng.normal(100, 5, (120, 120)); image[40:80, 30:90] += 60
>>> r = assist(image, [Prompt("box", [[30, 20], [90, 100]])], tool="box")
>>> truth = np.zeros((120, 120), bool); truth[40:80, 30:90] = True
>>> relaxed = r.certain | r.uncertain
>>> round(float(2 * (relaxed & truth).sum() / (relaxed.sum() + truth.sum())), 2)
1.0
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.common import fill_small_holes, number, only
from slicereview.engines.assist.outline import TOLERANCE
from slicereview.engines.assist.pixels import Crop, displayed, window_for
from slicereview.engines.assist.prompts import Prompt
from slicereview.engines.assist.result import HI, AssistResult, from_labels
from slicereview.engines.assist.scribble import stroke_pixels

#: Defaults of the settings (module docstring).
ITERATIONS, CROP_MARGIN = 5, 16
#: Holes of the object smaller than this (pixels) are filled.
HOLE_AREA = 64
#: The cut's object must cover at least this share of the box, else the threshold fallback.
MIN_SHARE = 0.05


def box(image: np.ndarray, prompts: Sequence[Prompt], *, invert: bool = False,
        window: tuple[float, float] | None = None, simplify: float = TOLERANCE,
        hi: float = HI, iterations: int = ITERATIONS, crop_margin: int = CROP_MARGIN
        ) -> AssistResult:
    """The object inside one box.

    Parameters
    ----------
    image
        ``(rows, cols)`` raw values or RGB (:mod:`.pixels`).
    prompts
        Exactly one positive ``"box"`` assist prompt (two opposite corners, ``(row, col)``,
        continuous pixel frame: the box holds the pixels whose centres lie inside), and any
        positive or negative ``"point"``/``"scribble"`` assist prompts as corrections.
    invert, window
        How the image is displayed (:mod:`.pixels`).
    simplify
        Simplification tolerance of the outlines, pixels (default 1.0).
    hi
        Object pixels with a posterior below it are uncertain (default 0.9).
    iterations
        GrabCut's rounds (default 5).
    crop_margin
        Least margin round the box, pixels (default 16).

    Returns
    -------
    AssistResult
        With ``probability`` (the mixtures' posterior, ``float32`` on the crop).

    Raises
    ------
    ValueError
        Not exactly one box, a negative box, a box holding no pixel centre, a polygon
        assist prompt, or a bad setting.
    """
    import cv2

    only("box", prompts, ("box", "point", "scribble"))
    boxes = [p for p in prompts if p.kind == "box"]
    if len(boxes) != 1 or not boxes[0].positive:
        raise ValueError("The box tool takes exactly one positive box assist prompt.")
    hi = number("hi", hi, 0.0, 1.0, open_low=True)
    rounds = int(number("iterations", iterations, 1.0, 50.0))
    margin = int(number("crop_margin", crop_margin, 0.0))
    corners = boxes[0].points
    (b_r0, b_c0), (b_r1, b_c1) = corners.min(axis=0), corners.max(axis=0)
    # Pixels whose centre lies inside the box: r + 0.5 in [b_r0, b_r1).
    r0, r1 = int(np.ceil(b_r0 - 0.5)), int(np.ceil(b_r1 - 0.5))
    c0, c1 = int(np.ceil(b_c0 - 0.5)), int(np.ceil(b_c1 - 0.5))
    h, w = image.shape[:2]
    r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, h), min(c1, w)
    if r1 - r0 < 2 or c1 - c0 < 2:
        raise ValueError("The box must hold at least 2 x 2 pixel centres of the image.")
    grow = max(margin, (max(r1 - r0, c1 - c0) + 3) // 4)
    crop: Crop = (max(r0 - grow, 0), max(c0 - grow, 0), min(r1 + grow, h), min(c1 + grow, w))
    v = displayed(image, crop, invert=invert, window=window_for(image, crop, window))
    grey = np.rint(v * 255).astype(np.uint8)
    mask = np.full(v.shape, cv2.GC_BGD, np.uint8)
    mask[r0 - crop[0]:r1 - crop[0], c0 - crop[1]:c1 - crop[1]] = cv2.GC_PR_FGD
    for p in prompts:
        if p.kind != "box":
            mask[stroke_pixels(p, crop, v.shape, 1)] = cv2.GC_FGD if p.positive else cv2.GC_BGD
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(np.dstack([grey] * 3), mask, (0, 0, 0, 0), bgd, fgd, rounds,
                cv2.GC_INIT_WITH_MASK)
    obj = (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)
    p_obj = posterior(grey, fgd, bgd)
    inner = (slice(r0 - crop[0], r1 - crop[0]), slice(c0 - crop[1], c1 - crop[1]))
    centre = ((r0 + r1) // 2 - crop[0], (c0 + c1) // 2 - crop[1])
    obj = one_object(obj, centre)
    if obj[inner].sum() >= MIN_SHARE * (r1 - r0) * (c1 - c0):
        certain = tidy_core(obj & (p_obj >= hi), obj)
    else:
        obj, certain = otsu_object(grey, inner, centre)
    for p in prompts:  # the corrections stay hard constraints
        if p.kind != "box":
            at = stroke_pixels(p, crop, v.shape, 1)
            obj[at] = certain[at] = p.positive
    labels = np.where(obj, np.where(certain, 1, 2), 0).astype(np.uint8)
    return from_labels(labels, shape=(h, w), crop=crop, tolerance=simplify,
                       probability=p_obj)


def posterior(grey: np.ndarray, fgd: np.ndarray, bgd: np.ndarray) -> np.ndarray:
    """``float32``: ``L_obj / (L_obj + L_bg)`` per pixel of the mixtures OpenCV's GrabCut
    fitted (``fgd``/``bgd``: ``(1, 65)`` — 5 weights, 5 means and 5 covariances of the three
    colour channels, which are equal here), on ``grey`` smoothed with σ 1 px."""
    from scipy import ndimage

    x = ndimage.gaussian_filter(grey.astype(np.float64), 1.0)

    def likelihood(model: np.ndarray) -> np.ndarray:
        m = model.ravel()
        weights, means, covs = m[:5], m[5:20].reshape(5, 3), m[20:65].reshape(5, 3, 3)
        total = np.zeros(x.shape)
        for k in range(5):
            if weights[k] <= 0:
                continue
            # Equal channels: the grey value's variance is the mean of the 3 x 3 covariance.
            var = max(float(covs[k].mean()), 1.0)
            total += weights[k] * np.exp(-0.5 * (x - means[k, 0]) ** 2 / var) / np.sqrt(var)
        return total

    lf, lb = likelihood(fgd), likelihood(bgd)
    return (lf / np.maximum(lf + lb, 1e-300)).astype(np.float32)


def one_object(obj: np.ndarray, centre: tuple[int, int]) -> np.ndarray:
    """The 8-connected component of ``obj`` (``bool (rows, cols)``) holding ``centre``
    (``(row, col)``), else its largest, with holes under :data:`HOLE_AREA` pixels filled."""
    from scipy import ndimage

    labels, n = ndimage.label(obj, structure=np.ones((3, 3), bool))
    if n == 0:
        return obj
    k = int(labels[centre])
    if k == 0:
        k = 1 + int(np.argmax(ndimage.sum_labels(obj, labels, range(1, n + 1))))
    return fill_small_holes(labels == k, HOLE_AREA)


def otsu_object(grey: np.ndarray, inner: tuple[slice, slice], centre: tuple[int, int]
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(object, certain)`` of the threshold fallback (module docstring) on ``grey``
    (``uint8`` crop), the box being ``grey[inner]``."""
    from scipy import ndimage
    from skimage.filters import threshold_otsu

    x = ndimage.gaussian_filter(grey.astype(np.float64), 1.0)
    ring = np.ones(x.shape, bool)
    ring[inner] = False
    sign = 1.0 if not ring.any() or x[inner].mean() >= x[ring].mean() else -1.0
    u = sign * x
    box_values = u[inner]
    if float(box_values.max() - box_values.min()) < 1e-9:
        empty = np.zeros(x.shape, bool)
        return empty, empty
    t = float(threshold_otsu(box_values))
    region = np.zeros(x.shape, bool)
    region[inner] = box_values > t
    obj = one_object(region, centre)
    if not obj.any():
        return obj, obj
    level = float(np.median(u[obj]))
    return obj, tidy_core(obj & (u >= t + 0.25 * (level - t)), obj)


def tidy_core(certain: np.ndarray, obj: np.ndarray) -> np.ndarray:
    """The certain part without specks: its pieces of fewer than :data:`HOLE_AREA` pixels
    become uncertain and its holes of fewer than that are filled (inside ``obj``)."""
    from scipy import ndimage

    labels, n = ndimage.label(certain, structure=np.ones((3, 3), bool))
    if n:
        sizes = ndimage.sum_labels(certain, labels, range(1, n + 1))
        certain = np.concatenate([[False], sizes >= HOLE_AREA])[labels]
    return fill_small_holes(certain, HOLE_AREA) & obj
