"""The project model's settings: features, forest, sampling, tiles, tissue and thresholds.

One frozen value, stored with every trained version (:meth:`Settings.to_dict`,
:meth:`Settings.from_dict`, which names the first wrong field). The defaults are what
docs/models.md, "The project model", describes and docs/performance.md measures:

* **features** — ``skimage.feature.multiscale_basic_features`` at ``sigma_min`` … ``sigma_max``
  (1 to 16 pixels: five scales, 1, 2, 4, 8, 16), each scale giving intensity (the Gaussian-
  smoothed image), edges (the Sobel magnitude of it) and texture (the two eigenvalues of its
  Hessian): 20 features a pixel;
* **forest** — ``trees`` (24) trees of at most ``max_depth`` (10) levels, leaves of at least
  ``min_samples_leaf`` (4) samples, √features tried per split, bootstrap samples;
* **sampling** — per image at most ``samples_per_image`` (6000) pixels, half region and half
  background (fewer when an image has fewer), from ``patches_per_image`` (8) patches of
  ``patch`` (256) pixels, half of them centred on region pixels;
* **tiles** — prediction in cores of ``tile`` (1024) pixels, features on the core plus a margin
  for the largest scale;
* **tissue** — ``"breast"``: learn and predict inside the breast-tissue mask of
  :func:`~.tissue.tissue_mask` (for mammograms); ``"none"``: everywhere;
* **thresholds** — ``certain`` (0.6) and ``uncertain`` (0.4) make the label image;
* ``seed`` — sampling and the forest are seeded, so training again gives the same model.

>>> s = Settings()
>>> s.sigmas(), s.feature_count(), s.margin()
((1.0, 2.0, 4.0, 8.0, 16.0), 20, 69)
>>> Settings.from_dict({**s.to_dict(), "trees": 0})
Traceback (most recent call last):
...
ValueError: The project model's setting `trees` must be a whole number from 1 to 500, not 0.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

#: Bounds of each numeric setting: (low, high).
_BOUNDS: dict[str, tuple[float, float]] = {
    "sigma_min": (0.3, 64.0), "sigma_max": (0.3, 64.0), "trees": (1, 500),
    "max_depth": (1, 40), "min_samples_leaf": (1, 10_000),
    "samples_per_image": (2, 200_000), "patches_per_image": (1, 64), "patch": (16, 2048),
    "tile": (64, 8192), "certain": (0.0, 1.0), "uncertain": (0.0, 1.0),
    "seed": (0, 2**32 - 1)}


@dataclass(frozen=True)
class Settings:
    """How the project model learns and predicts (see the module text)."""

    sigma_min: float = 1.0
    sigma_max: float = 16.0
    intensity: bool = True
    edges: bool = True
    texture: bool = True
    trees: int = 24
    max_depth: int = 10
    min_samples_leaf: int = 4
    samples_per_image: int = 6000
    patches_per_image: int = 8
    patch: int = 256
    tile: int = 1024
    tissue: Literal["breast", "none"] = "breast"
    certain: float = 0.6
    uncertain: float = 0.4
    seed: int = 0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _BOUNDS:
                low, high = _BOUNDS[f.name]
                whole = isinstance(low, int)
                if (isinstance(value, bool) or not isinstance(value, int | float)
                        or (whole and not isinstance(value, int))
                        or not math.isfinite(value) or not low <= value <= high):
                    kind = "a whole number" if whole else "a number"
                    raise ValueError(f"The project model's setting `{f.name}` must be {kind} "
                                     f"from {low} to {high}, not {value!r}.")
            elif f.name == "tissue":
                if value not in ("breast", "none"):
                    raise ValueError('The project model\'s setting `tissue` must be "breast" '
                                     f'or "none", not {value!r}.')
            elif not isinstance(value, bool):
                raise ValueError(f"The project model's setting `{f.name}` must be true or "
                                 f"false, not {value!r}.")
        if self.sigma_max < self.sigma_min:
            raise ValueError("The project model's setting `sigma_max` must be at least "
                             "`sigma_min`.")
        if not (self.intensity or self.edges or self.texture):
            raise ValueError("The project model needs at least one kind of feature: set "
                             "`intensity`, `edges` or `texture`.")
        if not 0.0 < self.uncertain <= self.certain <= 1.0:
            raise ValueError("The project model's settings need 0 < `uncertain` <= `certain` "
                             f"<= 1, not {self.uncertain} and {self.certain}.")

    def sigmas(self) -> tuple[float, ...]:
        """The feature scales in pixels, as ``multiscale_basic_features`` spaces them (powers
        of two from ``sigma_min``, ``log2(sigma_max / sigma_min) + 1`` of them)."""
        n = int(math.log2(self.sigma_max) - math.log2(self.sigma_min) + 1)
        if n <= 1:
            return (float(self.sigma_min),)
        step = (math.log2(self.sigma_max) - math.log2(self.sigma_min)) / (n - 1)
        return tuple(float(2 ** (math.log2(self.sigma_min) + k * step)) for k in range(n))

    def feature_count(self) -> int:
        """Features a pixel: per scale 1 intensity, 1 edge and 2 texture values as chosen."""
        per_scale = int(self.intensity) + int(self.edges) + 2 * int(self.texture)
        return per_scale * len(self.sigmas())

    def margin(self) -> int:
        """Pixels beyond a tile that its features read: the largest Gaussian's radius
        (``int(4 σ + 0.5)``, scikit-image's truncation) plus the Sobel and Hessian stencils
        (``4``), so tiled features equal the whole image's."""
        return int(4.0 * self.sigma_max + 0.5) + 4 + 1

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON values."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Settings:
        """Settings from JSON values; a missing field takes its default, an unknown one is
        refused (``ValueError`` naming it)."""
        if not isinstance(values, dict):
            raise ValueError("The project model's settings must be a JSON object.")
        known = {f.name for f in fields(cls)}
        for key in values:
            if key not in known:
                raise ValueError(f"The project model has no setting `{key}`.")
        return cls(**values)
