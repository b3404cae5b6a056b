"""The ``trace`` tool: clicks along a vessel give the tube between them, following its ridge.

1. **Vesselness.** Frangi's filter [Frangi1998] (:func:`skimage.filters.frangi`, bright
   ridges; dark ones with ``bright=False``) of the displayed values at each scale σ of
   ``scales`` (pixels); a pixel's vesselness is its best response and its *local scale* the σ
   that gave it.
2. **Path.** Between consecutive clicks, the minimal path [Dijkstra1959] on the cost
   ``1 / (vesselness / max + 0.01)`` (:class:`skimage.graph.MCP_Geometric`, 8-connected), so
   the path keeps to the ridge; the paths are joined in click order.
3. **Centre and width.** Across the path at every sample, the displayed values are read
   along the normal (bilinear, every 0.25 px) and averaged over 9 neighbouring samples along
   the vessel; each of the vessel's edges is where the profile crosses half way between its
   peak and the background on that side (the median of the outer half of the profile's
   reach on that side; the full width at half maximum, sub-pixel by linear interpolation,
   each edge against its own side so that a vessel on a sloping background is not measured
   too narrow), and its centre is the midpoint of those crossings. Widths and centres are
   smoothed along the vessel (median and mean of 9 samples). Where no crossing is found
   within reach the width comes from the local scale instead (``2 √3 σ``, the width of a bar
   whose Hessian response peaks at σ).
4. **Tube.** The pixels whose centre lies within half the local width of the centreline:
   one connected tube, outlined as **one uncertain polygon round one certain core** — the
   outermost ``margin`` pixels (default 0.5) are uncertain (a vessel 2 px wide is only
   certain along its axis). ``margin=0`` gives a single certain polygon.

**Crop**: the clicks' bounding box grown by ``crop_margin`` pixels (default 24).

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import Prompt, assist
>>> rr, cc = np.mgrid[:60, :120] + 0.5
>>> image = 100.0 + 50.0 * (np.abs(rr - (30 + 8 * np.sin(cc / 15))) <= 2)   # 4-5 px wide
>>> clicks = [Prompt("point", [[30.5, 10.5]]), Prompt("point", [[30 + 8 * np.sin(7.3), 110.5]])]
>>> r = assist(image, clicks, tool="trace")
>>> truth = (np.abs(rr - (30 + 8 * np.sin(cc / 15))) <= 2) & (cc > 10) & (cc < 110)
>>> tube = r.certain | r.uncertain
>>> bool(2 * (tube & truth).sum() / (tube.sum() + truth.sum()) > 0.9), len(r.polygons)
(True, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.common import number, only
from slicereview.engines.assist.outline import TOLERANCE
from slicereview.engines.assist.pixels import crop_around, displayed, pixel_of, window_for
from slicereview.engines.assist.prompts import Prompt
from slicereview.engines.assist.result import AssistResult, from_labels

#: Defaults of the settings (module docstring).
SCALES, MARGIN, CROP_MARGIN = (1.0, 1.5, 2.0, 3.0), 0.5, 24
_SMOOTH = 9
_EPS = 0.01


def trace(image: np.ndarray, prompts: Sequence[Prompt], *, invert: bool = False,
          window: tuple[float, float] | None = None, simplify: float = TOLERANCE,
          scales: Sequence[float] = SCALES, bright: bool = True, margin: float = MARGIN,
          crop_margin: int = CROP_MARGIN) -> AssistResult:
    """The tube along a vessel through the clicks, in order.

    Parameters
    ----------
    image
        ``(rows, cols)`` raw values or RGB (:mod:`.pixels`).
    prompts
        Two or more positive ``"point"`` assist prompts in order along the vessel,
        ``(row, col)`` in the continuous pixel frame.
    invert, window
        How the image is displayed (:mod:`.pixels`).
    simplify
        Simplification tolerance of the outline, pixels (default 1.0).
    scales
        Frangi scales σ in pixels (default 1, 1.5, 2, 3: vessels about 2–10 px wide).
    bright
        The vessel is brighter than its surroundings as displayed (default True; calcified
        vessels in a mammogram are).
    margin
        Width in pixels of the uncertain rim of the tube (default 0.5).
    crop_margin
        Margin round the clicks' bounding box, pixels (default 24).

    Returns
    -------
    AssistResult
        ``probability`` is None.

    Raises
    ------
    ValueError
        Fewer than two clicks, a negative or non-point assist prompt, or a bad setting.
    """
    from skimage.filters import frangi

    only("trace", prompts, ("point",), negative=False)
    if len(prompts) < 2:
        raise ValueError("The trace tool needs at least two clicks along the vessel.")
    sigmas = [number("scales", s, 0.0, 20.0, open_low=True) for s in scales]
    if not sigmas:
        raise ValueError("The scales setting needs at least one scale.")
    margin = number("margin", margin, 0.0)
    grow = int(number("crop_margin", crop_margin, 1.0))
    crop = crop_around(np.vstack([p.points for p in prompts]), grow, image.shape)
    v = displayed(image, crop, invert=invert, window=window_for(image, crop, window))
    if not bright:
        v = 1.0 - v
    responses = np.stack([frangi(v, sigmas=[s], black_ridges=False) for s in sigmas])
    best = responses.argmax(axis=0)
    vesselness = responses.max(axis=0)
    scale = np.asarray(sigmas)[best]
    path = _path(vesselness, pixel_of(np.vstack([p.points for p in prompts]), crop))
    centre, width = _profile(v, path, scale)
    labels = _tube(v.shape, centre, width, margin)
    return from_labels(labels, shape=image.shape[:2], crop=crop, tolerance=simplify)


def _path(vesselness: np.ndarray, clicks: np.ndarray) -> np.ndarray:
    """``int (n, 2)`` crop pixels of the minimal path through ``clicks``, in order."""
    from skimage.graph import MCP_Geometric

    peak = float(vesselness.max())
    cost = 1.0 / (vesselness / (peak if peak > 0 else 1.0) + _EPS)
    pieces = []
    for a, b in zip(clicks[:-1], clicks[1:], strict=True):
        mcp = MCP_Geometric(cost)
        mcp.find_costs([tuple(int(x) for x in a)], [tuple(int(x) for x in b)])
        pieces.append(np.asarray(mcp.traceback(tuple(int(x) for x in b))))
    steps = [pieces[0]] + [p[1:] for p in pieces[1:]]
    return np.vstack(steps)


def _profile(v: np.ndarray, path: np.ndarray, scale: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Centreline ``(n, 2)`` (crop pixel index coordinates, centres at integers) and width
    ``(n,)`` from the half-maximum crossings across ``path`` (module docstring)."""
    from scipy import ndimage

    p = path.astype(np.float64)
    n = len(p)
    if n == 1:
        return p, np.array([2.0 * np.sqrt(3.0) * float(scale[tuple(path[0])])])
    tangent = np.gradient(ndimage.uniform_filter1d(p, 5, axis=0, mode="nearest"), axis=0)
    tangent /= np.maximum(np.hypot(*tangent.T), 1e-9)[:, None]
    normal = np.c_[-tangent[:, 1], tangent[:, 0]]
    reach = 3.0 * float(scale.max()) + 4.0
    offsets = np.arange(-reach, reach + 0.01, 0.25)
    pts = p[:, None, :] + offsets[None, :, None] * normal[:, None, :]
    smooth = ndimage.gaussian_filter(v.astype(np.float64), 0.4)
    prof = ndimage.map_coordinates(smooth, [pts[..., 0], pts[..., 1]], order=1, mode="nearest")
    # Neighbouring profiles averaged along the vessel: noise would end a single one early.
    prof = ndimage.uniform_filter1d(prof, min(_SMOOTH, n), axis=0, mode="nearest")
    mid = len(offsets) // 2
    near = np.abs(offsets) <= 1.0
    peak = prof[:, near].max(axis=1)
    # Each side's background: the median of the outer half of the reach on that side.
    outer = np.abs(offsets) >= 0.5 * reach
    left = np.median(prof[:, outer & (offsets < 0)], axis=1)
    right = np.median(prof[:, outer & (offsets > 0)], axis=1)
    half_l, half_r = 0.5 * (peak + left), 0.5 * (peak + right)
    width = np.full(n, np.nan)
    shift = np.zeros(n)
    for i in range(n):
        lo = np.nonzero(prof[i, :mid] < half_l[i])[0]
        hi = np.nonzero(prof[i, mid:] < half_r[i])[0]
        if len(lo) == 0 or len(hi) == 0 or peak[i] <= max(left[i], right[i]):
            continue
        a, b = lo[-1], mid + hi[0]
        # Linear interpolation of the two crossings.
        rise = max(prof[i, a + 1] - prof[i, a], 1e-12)
        fall = max(prof[i, b - 1] - prof[i, b], 1e-12)
        xa = offsets[a] + (half_l[i] - prof[i, a]) / rise * 0.25
        xb = offsets[b - 1] + (prof[i, b - 1] - half_r[i]) / fall * 0.25
        width[i], shift[i] = xb - xa, np.clip(0.5 * (xa + xb), -1.5, 1.5)
    fallback = 2.0 * np.sqrt(3.0) * scale[path[:, 0], path[:, 1]]
    width = np.where(np.isfinite(width), width, fallback)
    width = ndimage.median_filter(width, size=min(_SMOOTH, n), mode="nearest")
    shift = ndimage.uniform_filter1d(shift, min(_SMOOTH, n), mode="nearest")
    centre = p + shift[:, None] * normal
    return centre, np.clip(width, 1.0, 3.0 * np.sqrt(3.0) * float(scale.max()))


def _tube(shape: tuple[int, int], centre: np.ndarray, width: np.ndarray, margin: float
          ) -> np.ndarray:
    """Label image of the tube: certain within ``width/2 - margin`` of the centreline,
    uncertain out to ``width/2`` (distances from pixel centres, ``centre`` in index units)."""
    from scipy.spatial import cKDTree

    # Dense samples of the centreline (every 0.1 px) carry the width of their segment start.
    seg = np.hypot(*np.diff(centre, axis=0).T)
    steps = np.maximum(np.ceil(seg / 0.1).astype(int), 1)
    t = [np.arange(s) / s for s in steps]
    dense = np.vstack([a + tt[:, None] * (b - a) for a, b, tt in
                       zip(centre[:-1], centre[1:], t, strict=True)] + [centre[-1:]])
    dense_w = np.concatenate([np.full(s, w) for s, w in zip(steps, width[:-1], strict=True)]
                             + [width[-1:]])
    reach = float(width.max()) / 2 + 1
    r0 = max(int(np.floor(dense[:, 0].min() - reach)), 0)
    c0 = max(int(np.floor(dense[:, 1].min() - reach)), 0)
    r1 = min(int(np.ceil(dense[:, 0].max() + reach)) + 1, shape[0])
    c1 = min(int(np.ceil(dense[:, 1].max() + reach)) + 1, shape[1])
    rr, cc = np.mgrid[r0:r1, c0:c1]
    dist, idx = cKDTree(dense).query(np.c_[rr.ravel(), cc.ravel()])
    half = dense_w[idx] / 2
    labels = np.zeros(shape, np.uint8)
    part = np.where(dist <= half - margin, 1, np.where(dist <= half, 2, 0))
    labels[r0:r1, c0:c1] = part.reshape(rr.shape)
    return labels
