"""The ``points`` tool: positive and negative clicks give a region.

The method was chosen by measurement: the number of clicks to Dice 0.90 (NoC@90, the standard
clicker) on white matter in the ICBM template, blobs and thin tubes drawn into mammograms,
against random walker, geodesic competition, SimpleITK's confidence-connected growing and
others (docs/annotate.md, "The assisted tools' engine"; the numbers in docs/performance.md,
"Assisted annotation"). It is the edge region (a watershed of the gradient) unless that leaks
into a darker neighbour, then the threshold region (a local intermeans threshold) inside it
(:mod:`.regions`).

**Crop.** The bounding box of the clicks grown by ``crop_margin`` pixels less half its
longer side, at least 24 (:func:`.pixels.crop_for_clicks`: clicks spread over an object do not
make the crop much larger than the object, so a session's 20th click costs about what its
first did). When the region
reaches a side of the crop that is not the image's side, the crop grows by half its size and
the tool runs again, up to ``max_crop`` pixels a side; so one click on a blob reads about
80 x 80 pixels of a mammogram, and one on the white matter of a brain slice the whole slice.
When the preferred region is degenerate (fewer than 9 pixels, :mod:`.regions`), its stand-in
keeps the first crop.

**Uncertain margin.** From the local scale: the outline's blur σ is measured (contrast over
the steepest slope, :func:`.regions.edge_blur`), and the region's pixels whose centre lies
within ``margin`` σ of its outline are uncertain (1.28 σ: where a blurred step has come 90 %
of the way); the rest is certain. Certain ∪ uncertain is the region itself. No probability is
returned (``probability`` is None).

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import Prompt, assist
>>> image = np.full((200, 200), 1000, np.uint16)
>>> rr, cc = np.mgrid[:200, :200]
>>> image[(rr - 100) ** 2 + (cc - 90) ** 2 <= 20 ** 2] = 3000    # a disc of radius 20
>>> r = assist(image, [Prompt("point", [[100.5, 90.5]])], tool="points")
>>> truth = (rr - 100) ** 2 + (cc - 90) ** 2 <= 20 ** 2
>>> relaxed = r.certain | r.uncertain
>>> bool((relaxed == truth).mean() > 0.999), r.crop
(True, (60, 50, 141, 131))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.common import need_positive, number, only, seeds
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

#: Defaults of the settings (module docstring).
CROP_MARGIN, MAX_CROP, SMOOTHING, MARGIN = 40, 768, 2.0, 1.28


def points(image: np.ndarray, prompts: Sequence[Prompt], *, invert: bool = False,
           window: tuple[float, float] | None = None, simplify: float = TOLERANCE,
           smoothing: float = SMOOTHING, margin: float = MARGIN,
           crop_margin: int = CROP_MARGIN, max_crop: int = MAX_CROP) -> AssistResult:
    """Region of the clicks ``prompts`` (positive and negative ``"point"`` assist prompts).

    Parameters
    ----------
    image
        ``(rows, cols)`` raw values or RGB (:mod:`.pixels`).
    prompts
        ``"point"`` assist prompts, at least one positive; ``(row, col)`` in the continuous
        pixel frame. Order does not matter.
    invert, window
        How the image is displayed (:mod:`.pixels`).
    simplify
        Simplification tolerance of the outlines, pixels (default 1.0).
    smoothing
        σ in pixels of the gradient the edge region follows (default 2.0).
    margin
        Width of the uncertain margin in units of the measured edge blur (default 1.28; 0:
        everything certain).
    crop_margin, max_crop
        The first crop's margin round the clicks and the largest crop side, pixels
        (defaults 40 and 768).

    Returns
    -------
    AssistResult
        Certain core and uncertain margin of the region holding the positive clicks;
        ``probability`` is None.

    Raises
    ------
    ValueError
        No positive click, an assist prompt that is not a point, or a bad setting.
    """
    from scipy import ndimage

    from slicereview.engines.assist.regions import edge_blur, segment

    only("points", prompts, ("point",))
    need_positive("points", prompts)
    smoothing = number("smoothing", smoothing, 0.0, open_low=True)
    margin = number("margin", margin, 0.0)
    crop_margin = int(number("crop_margin", crop_margin, 1.0))
    max_crop = int(number("max_crop", max_crop, 8.0))
    crop = crop_for_clicks(np.vstack([p.points for p in prompts]), crop_margin, image.shape)
    win = window_for(image, crop, window)
    while True:
        v = displayed(image, crop, invert=invert, window=win)
        pos, neg = seeds(prompts, crop, True), seeds(prompts, crop, False)
        region, level = segment(v, pos, neg, smoothing)
        side = max(v.shape)
        if side >= max_crop or level.grown or not touches_inner_edge(region, crop,
                                                                        image.shape):
            break
        crop = grow(crop, max(side // 2, 1), image.shape)
    labels = region.astype(np.uint8)
    if margin > 0 and region.any():
        depth = ndimage.distance_transform_edt(region) - 0.5
        labels[region & (depth <= margin * edge_blur(v, region, level))] = 2
    return from_labels(labels, shape=image.shape[:2], crop=crop, tolerance=simplify)
