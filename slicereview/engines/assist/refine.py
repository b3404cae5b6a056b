"""The ``refine`` tool: an existing polygon, snapped to the edges near its outline.

The polygon is rasterised by the project's own rule (:func:`slicereview.engines.masks.polygon_mask`,
pixel centres, even-odd), and a marker-controlled watershed [VincentSoille1991] of the gradient
magnitude (σ ``smoothing`` px) decides the pixels within ``reach`` pixels of its outline: the
polygon's interior farther than ``reach`` from the outline (and its skeleton, so thin parts
stay) is the object's marker, the exterior farther than ``reach`` the background's. So the
outline moves at most ``reach`` pixels, onto the strongest edge there, and keeps its topology
where the image has no edge to follow.

**Uncertain margin** as in the points tool: the measured blur σ of the new outline (contrast
between the inside and outside bands over its steepest slope), and pixels within ``margin`` σ
inside it are uncertain (default 1.28). ``probability`` is None.

**Crop**: the polygon's bounding box grown by ``reach`` plus 8 pixels.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import assist, polygon_prompt
>>> image = np.zeros((100, 100)); image[30:70, 25:75] = 1.0       # the true object
>>> rough = [[28, 33], [71, 28], [77, 72], [22, 66]]                # (x, y), a few px off
>>> r = assist(image, [polygon_prompt(rough)], tool="refine", margin=0)
>>> truth = np.zeros((100, 100), bool); truth[30:70, 25:75] = True
>>> from slicereview.engines.masks import polygon_mask
>>> int((polygon_mask(rough, (100, 100)) != truth).sum()), int((r.certain != truth).sum())
(257, 9)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.common import EIGHT, number, only
from slicereview.engines.assist.outline import TOLERANCE
from slicereview.engines.assist.pixels import Crop, displayed, window_for
from slicereview.engines.assist.prompts import Prompt
from slicereview.engines.assist.regions import Level, edge_blur
from slicereview.engines.assist.result import AssistResult, from_labels

#: Defaults of the settings (module docstring).
REACH, SMOOTHING, MARGIN = 5, 1.0, 1.28


def refine(image: np.ndarray, prompts: Sequence[Prompt], *, invert: bool = False,
           window: tuple[float, float] | None = None, simplify: float = TOLERANCE,
           reach: int = REACH, smoothing: float = SMOOTHING, margin: float = MARGIN
           ) -> AssistResult:
    """One polygon snapped to nearby edges.

    Parameters
    ----------
    image
        ``(rows, cols)`` raw values or RGB (:mod:`.pixels`).
    prompts
        Exactly one ``"polygon"`` assist prompt, vertices ``(row, col)`` in the continuous
        pixel frame (:func:`~.prompts.polygon_prompt` converts a stored polygon's ``(x, y)``).
    invert, window
        How the image is displayed (:mod:`.pixels`).
    simplify
        Simplification tolerance of the outlines, pixels (default 1.0).
    reach
        How far the outline may move, pixels (default 5).
    smoothing
        σ in pixels of the gradient the outline snaps to (default 1.0).
    margin
        Width of the uncertain margin in units of the measured edge blur (default 1.28).

    Returns
    -------
    AssistResult
        ``probability`` is None. A polygon that covers no pixel centre gives an empty result.

    Raises
    ------
    ValueError
        Not exactly one polygon assist prompt, or a bad setting.
    """
    from scipy import ndimage
    from skimage.morphology import skeletonize
    from skimage.segmentation import watershed

    from slicereview.engines.masks import polygon_mask

    only("refine", prompts, ("polygon",))
    if len(prompts) != 1:
        raise ValueError("The refine tool takes exactly one polygon assist prompt.")
    step = int(number("reach", reach, 1.0, 100.0))
    sigma = number("smoothing", smoothing, 0.0, open_low=True)
    margin = number("margin", margin, 0.0)
    vertices = prompts[0].points
    h, w = image.shape[:2]
    grow = step + 8
    r0 = int(np.clip(np.floor(vertices[:, 0].min()) - grow, 0, h - 1))
    c0 = int(np.clip(np.floor(vertices[:, 1].min()) - grow, 0, w - 1))
    r1 = int(np.clip(np.ceil(vertices[:, 0].max()) + grow + 1, r0 + 1, h))
    c1 = int(np.clip(np.ceil(vertices[:, 1].max()) + grow + 1, c0 + 1, w))
    crop: Crop = (r0, c0, r1, c1)
    inside = polygon_mask(vertices[:, ::-1] - (c0, r0), (r1 - r0, c1 - c0))
    if not inside.any():
        return from_labels(np.zeros(inside.shape, np.uint8), shape=(h, w), crop=crop,
                           tolerance=simplify)
    v = displayed(image, crop, invert=invert, window=window_for(image, crop, window))
    markers = np.zeros(v.shape, np.int32)
    markers[~ndimage.binary_dilation(inside, EIGHT, iterations=step)] = 2
    markers[ndimage.binary_erosion(inside, EIGHT, iterations=step) | skeletonize(inside)] = 1
    region = watershed(ndimage.gaussian_gradient_magnitude(v, sigma), markers) == 1
    labels = region.astype(np.uint8)
    if margin > 0 and region.any():
        band_in = region & ~ndimage.binary_erosion(region, EIGHT, iterations=3)
        band_out = ndimage.binary_dilation(region, EIGHT, iterations=3) & ~region
        if band_out.any():
            a, b = float(np.median(v[band_in])), float(np.median(v[band_out]))
            level = Level(0.5 * (a + b), max(a, b), 1.0)  # contrast |a - b|
            depth = ndimage.distance_transform_edt(region) - 0.5
            labels[region & (depth <= margin * edge_blur(v, region, level))] = 2
    return from_labels(labels, shape=(h, w), crop=crop, tolerance=simplify)
