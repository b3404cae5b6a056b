"""Pixel features of the project model, per tile, and the per-image intensity normalisation.

Features are scikit-image's ``multiscale_basic_features`` (the features of its trainable
segmentation, after ilastik [Berg2019]) at the scales of :meth:`.Settings.sigmas`: per scale
σ, in this order, the Gaussian-smoothed intensity, the Sobel edge magnitude of it and the two
eigenvalues of its Hessian (texture: blob- and ridge-ness). They are computed on a *span*
(a tile's core plus :meth:`.Settings.margin` pixels each side, clipped to the image), never on
the whole image at once, and only the core's are used: the margin covers the largest
Gaussian's support, so a core's features equal the whole image's (tested).

Before that every image is **normalised** so one forest fits images of different exposure and
bit depth: its intensities are mapped linearly so that the 1st percentile of the tissue (the
whole image without a tissue mask) becomes 0 and the 99th becomes 1 (not clipped). A constant
image becomes 0 everywhere.

>>> import numpy as np
>>> from slicereview.engines.learning.settings import Settings
>>> image = np.arange(64 * 64, dtype=np.uint16).reshape(64, 64)
>>> x = normalise(image, None)
>>> abs(round(float(np.percentile(x, 1)), 3)), round(float(np.percentile(x, 99)), 3)
(0.0, 1.0)
>>> box_features(x, (0, 0, 64, 64), Settings()).shape
(64, 64, 20)
>>> feature_names(Settings())[:4]
['intensity σ=1', 'edges σ=1', 'texture 1 σ=1', 'texture 2 σ=1']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slicereview.engines.learning.settings import Settings
from slicereview.engines.prediction import Box

#: Percentiles of the tissue mapped to 0 and 1.
LOW_PERCENTILE, HIGH_PERCENTILE = 1.0, 99.0
#: The normalisation's percentiles are read from at most about this many pixels.
_PERCENTILE_PIXELS = 1_000_000


@dataclass(frozen=True)
class Normalisation:
    """The linear map of one image's intensities: ``(x - low) * scale``."""

    low: float
    scale: float

    def apply(self, pixels: np.ndarray) -> np.ndarray:
        """``float32`` copy of ``pixels`` mapped."""
        out = np.asarray(pixels).astype(np.float32)
        out -= np.float32(self.low)
        out *= np.float32(self.scale)
        return out


def normalisation(image: np.ndarray, tissue: np.ndarray | None) -> Normalisation:
    """The map that sends the tissue's 1st and 99th percentiles of ``image`` to 0 and 1
    (``tissue``: ``bool (H, W)`` or ``None``, every pixel; see the module text); read from
    about a million pixels of a large image."""
    img = np.asarray(image)
    step = max(1, int(np.sqrt(img.size / _PERCENTILE_PIXELS)))
    sample = img[::step, ::step]
    if tissue is not None and np.asarray(tissue)[::step, ::step].any():
        sample = sample[np.asarray(tissue)[::step, ::step]]
    low, high = (float(v) for v in np.percentile(sample, [LOW_PERCENTILE, HIGH_PERCENTILE]))
    if high > low:
        return Normalisation(low, 1.0 / (high - low))
    return Normalisation(low, 0.0)  # a constant image (or tissue): nothing to tell apart


def normalise(image: np.ndarray, tissue: np.ndarray | None) -> np.ndarray:
    """``float32 (H, W)``: the whole image under :func:`normalisation` (training and
    prediction map only the boxes they read)."""
    return normalisation(image, tissue).apply(image)


def box_features(image: np.ndarray, span: Box, settings: Settings,
                    norm: Normalisation | None = None) -> np.ndarray:
    """``float32 (h, w, F)``: the features of the pixels of ``span`` (a box of the image),
    computed from the span alone, in :func:`feature_names` order. ``norm``: the image's
    :func:`normalisation`, applied to the span first; ``None``: the image is normalised
    already."""
    from skimage.feature import multiscale_basic_features

    r0, c0, r1, c1 = span
    pixels = image[r0:r1, c0:c1]
    pixels = norm.apply(pixels) if norm is not None else np.ascontiguousarray(pixels)
    sigmas = settings.sigmas()
    return multiscale_basic_features(
        pixels, intensity=settings.intensity, edges=settings.edges, texture=settings.texture,
        sigma_min=sigmas[0], sigma_max=sigmas[-1], num_sigma=len(sigmas), workers=1,
    ).astype(np.float32, copy=False)


def feature_names(settings: Settings) -> list[str]:
    """The names of the features, in order (e.g. ``"edges σ=4"``)."""
    names = []
    for sigma in settings.sigmas():
        s = f"{sigma:g}"
        if settings.intensity:
            names.append(f"intensity σ={s}")
        if settings.edges:
            names.append(f"edges σ={s}")
        if settings.texture:
            names += [f"texture 1 σ={s}", f"texture 2 σ={s}"]
    return names
