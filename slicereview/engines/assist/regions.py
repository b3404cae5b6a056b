"""The points tool's two region models and how it chooses between them (docs/annotate.md,
"The assisted tools' engine", says how they were measured).

* **Edge region** — a marker-controlled watershed [VincentSoille1991] of the gradient magnitude
  (Gaussian derivative, σ = ``smoothing``): positive clicks are object markers, negative
  clicks and the crop's border background markers; the object is the basin grown from the
  positive clicks. Its outline follows the gradient's crest, which is where a blurred step
  edge really is — right for compact objects on a textured background (the blobs of a
  mammogram).
* **Threshold region** — the 8-connected components holding the positive clicks of
  ``u >= t`` (``u`` the displayed values smoothed with σ = 1, negated for a dark object). The
  threshold starts where the outline's mean gradient is highest among 32 levels between the
  negative clicks' values and the positive clicks' values, then moves to the midpoint
  between the object's level (the median at the positive clicks) and the median of a 3 px
  band round the region, until it settles (an intermeans iteration [RidlerCalvard1978] on the
  region's own surroundings). A **negative click** inside the region says one of two things.
  One darker than halfway between the threshold and the object's level lies on the object's
  blurred edge: the outline is too far out all round, so the threshold rises to just above
  its value (never above the positive clicks' lowest value). One brighter lies on a
  neighbour at the object's level that the region joined: the region is cut along the
  darkest valley between the clicks (a watershed of ``-u`` inside the region). (Before the
  first kind existed, every negative click cut, and a threshold that came out too low — thin
  white matter 2–3 px wide, whose clicked level is lowered by the blur — stayed too low
  however many clicks were given.) Right for a tissue at one level against its neighbours
  (white matter against grey matter in a T1 image), where the watershed leaks to the
  stronger edge farther out.
* **Choice** — the edge region, unless more than :data:`LEAK_FRACTION` (a quarter) of it lies
  below the threshold (it took in a darker neighbour): then the threshold region.
* **Degenerate regions** — a click inside dense tissue of a real mammogram can sit on a crest
  of the gradient or on a local peak of the texture; the watershed basin and the threshold
  region are then a pixel or two. A region of fewer than :data:`MIN_AREA` pixels (9, a 3 × 3
  square) is never the answer: the other model is taken when it has at least that many, and
  when neither has, the region *grows by contrast*: the 8-connected pixels of ``u`` at or
  above the object's level less the crop's robust spread (1.4826 × the median absolute
  deviation of ``u``), cut at the negative clicks as the threshold region is. Either way its
  :attr:`Level.grown` is True: the points tool then keeps its first crop (in dense tissue the
  other model or the grown region would otherwise take the whole tissue, hundreds of
  thousands of pixels); it is a starting guess that more clicks correct.

Both are computed on the crop only; every step is a scikit-image or SciPy call on arrays of
the crop's size.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist.regions import segment
>>> v = np.zeros((40, 40), np.float32); v[10:30, 12:28] = 1.0
>>> region, level = segment(v, np.array([[20, 20]]), np.zeros((0, 2), int))
>>> inside = region[10:30, 12:28]                  # the square, corners rounded off
>>> round(float(inside.mean()), 2), int(region.sum() - inside.sum())
(0.96, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from slicereview.engines.assist.common import EIGHT, border, keep_touched

#: The edge region gives way to the threshold region when more than this share of it is
#: darker than the threshold.
LEAK_FRACTION = 0.25
#: A region of fewer pixels than this is degenerate (module docstring).
MIN_AREA = 9
_LEVELS = 32


@dataclass(frozen=True)
class Level:
    """The threshold model of a region: ``threshold`` and ``object_level`` in the polarity-
    corrected displayed values (``sign`` +1 for a bright object, -1 for a dark one)."""

    threshold: float
    object_level: float
    sign: float
    grown: bool = False

    @property
    def contrast(self) -> float:
        """Object level minus background level (twice the distance to the threshold)."""
        return max(2.0 * (self.object_level - self.threshold), 1e-6)


def segment(v: np.ndarray, pos: np.ndarray, neg: np.ndarray, smoothing: float = 2.0
            ) -> tuple[np.ndarray, Level]:
    """The object region (``bool`` of ``v``'s shape) for clicks ``pos`` and ``neg`` (``int
    (n, 2)`` crop pixels) on displayed values ``v`` (``float32`` in [0, 1]), and its
    threshold model."""
    from scipy import ndimage

    vs = ndimage.gaussian_filter(v, 1.0)
    u, sign = _polarity(vs, pos, neg)
    grad = ndimage.gaussian_gradient_magnitude(v, 1.0)
    thresholded, level = threshold_region(u, pos, neg, grad)
    level = Level(level.threshold, level.object_level, sign)
    edge = edge_region(v, pos, neg, smoothing)
    leaks = edge.any() and float((u[edge] < level.threshold).mean()) > LEAK_FRACTION
    first, second = (thresholded, edge) if leaks else (edge, thresholded)
    if first.sum() >= MIN_AREA:
        return first, level
    rescued = Level(level.threshold, level.object_level, sign, grown=True)
    if second.sum() >= MIN_AREA:
        return second, rescued
    return grown_by_contrast(u, pos, neg), rescued


def grown_by_contrast(u: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """The positive clicks' 8-connected pixels of ``u`` at or above their median less the
    crop's robust spread, cut at the negative clicks (module docstring, "Degenerate
    regions")."""
    from skimage.segmentation import watershed

    spread = 1.4826 * float(np.median(np.abs(u - np.median(u))))
    mu = float(np.median(u[pos[:, 0], pos[:, 1]]))
    r = keep_touched(u >= mu - max(spread, 1e-6), pos)
    if len(neg) and r[neg[:, 0], neg[:, 1]].any():
        markers = np.zeros(u.shape, np.int32)
        markers[neg[:, 0], neg[:, 1]] = 2
        markers[pos[:, 0], pos[:, 1]] = 1
        r = keep_touched(watershed(-u, markers, mask=r) == 1, pos)
    return r


def _polarity(vs: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, float]:
    """``(u, sign)``: ``vs`` negated when the clicked object is darker than its reference
    (the negative clicks' mean, else the crop's median)."""
    fg = float(vs[pos[:, 0], pos[:, 1]].mean())
    ref = float(vs[neg[:, 0], neg[:, 1]].mean()) if len(neg) else float(np.median(vs))
    sign = 1.0 if fg >= ref else -1.0
    return sign * vs, sign


def edge_region(v: np.ndarray, pos: np.ndarray, neg: np.ndarray, smoothing: float
                ) -> np.ndarray:
    """The watershed basin of the positive clicks on the gradient magnitude (module
    docstring)."""
    from scipy import ndimage
    from skimage.segmentation import watershed

    grad = ndimage.gaussian_gradient_magnitude(v, smoothing)
    markers = np.zeros(v.shape, np.int32)
    markers[border(v.shape)] = 2
    markers[neg[:, 0], neg[:, 1]] = 2
    markers[pos[:, 0], pos[:, 1]] = 1
    return keep_touched(watershed(grad, markers) == 1, pos)


def threshold_region(u: np.ndarray, pos: np.ndarray, neg: np.ndarray, grad: np.ndarray,
                     band: int = 3, iterations: int = 8) -> tuple[np.ndarray, Level]:
    """The threshold region of the positive clicks (module docstring) and its level."""
    from scipy import ndimage
    from skimage.segmentation import watershed

    fg = u[pos[:, 0], pos[:, 1]]
    top = float(fg.min())
    mu = float(np.median(fg))

    def region(t: float) -> np.ndarray:
        return keep_touched(u >= t, pos)

    t = min(_best_threshold(u, pos, neg, grad, region), top)
    r = region(t)
    for _ in range(iterations):
        around = ndimage.binary_dilation(r, EIGHT, iterations=band) & ~r
        if not around.any():
            break
        new = min(0.5 * (mu + float(np.median(u[around]))), top)
        if abs(new - t) < 1e-4:
            break
        t, r = new, region(new)
    if len(neg):  # negative clicks on the blurred edge raise the threshold
        un = u[neg[:, 0], neg[:, 1]]
        edge = r[neg[:, 0], neg[:, 1]] & (un < t + 0.5 * (mu - t))
        if edge.any() and float(un[edge].max()) < top:
            t = float(np.nextafter(un[edge].max(), un.dtype.type(np.inf)))  # just above
            r = region(t)
    if len(neg) and r[neg[:, 0], neg[:, 1]].any():  # the others cut
        markers = np.zeros(u.shape, np.int32)
        markers[neg[:, 0], neg[:, 1]] = 2
        markers[pos[:, 0], pos[:, 1]] = 1
        r = keep_touched(watershed(-u, markers, mask=r) == 1, pos)
    return r, Level(t, mu, 1.0)


def _best_threshold(u: np.ndarray, pos: np.ndarray, neg: np.ndarray, grad: np.ndarray,
                    region: Callable[[float], np.ndarray]) -> float:
    """The level whose region has the highest mean gradient on its outline, among levels
    between the negative clicks' values (excluded) and the positive clicks' lowest value."""
    from scipy import ndimage

    top = float(u[pos[:, 0], pos[:, 1]].min())
    bottom = float(u[neg[:, 0], neg[:, 1]].max()) if len(neg) else -np.inf
    between = u[(u > bottom) & (u <= top)]
    if between.size == 0:
        return top
    best, best_score = top, -1.0
    for t in np.unique(np.quantile(between, np.linspace(0.0, 1.0, _LEVELS))):
        r = region(float(t))
        if len(neg) and r[neg[:, 0], neg[:, 1]].any():
            continue
        rim = r & ~ndimage.binary_erosion(r, EIGHT)
        if not rim.any():
            continue
        score = float(grad[rim].mean())
        if score > best_score:
            best, best_score = float(t), score
    return best


def edge_blur(v: np.ndarray, region: np.ndarray, level: Level) -> float:
    """The blur σ (pixels) of the region's outline, measured: a Gaussian-blurred step of
    contrast ``A`` has a steepest slope of ``A / (σ √(2π))``; the gradient (σ = 1) at the
    outline is the median of its rim, and the derivative's own σ is taken off. Between 0.5
    and 4 px."""
    from scipy import ndimage

    rim = region & ~ndimage.binary_erosion(region, EIGHT)
    if not rim.any():
        return 0.5
    slope = float(np.median(ndimage.gaussian_gradient_magnitude(v, 1.0)[rim]))
    total = level.contrast / max(slope * np.sqrt(2.0 * np.pi), 1e-9)
    return float(np.clip(np.sqrt(max(total * total - 1.0, 0.0)), 0.5, 4.0))
