"""A model's mask against a reference (the annotators' consensus, or gold): per image and per
box, with Dice, HD95, sensitivity and specificity; the boxes the model found that no annotator
marked, and the reverse (docs/models.md, "The model in QA").

* **Dice** — :func:`~slicereview.engines.agreement.overlap.dice` (both empty: 1.0).
* **sensitivity** — TP / (TP + FN), the share of the reference's pixels the model marked;
  NaN when the reference is empty. **specificity** — TN / (TN + FP); NaN when the reference
  covers every pixel.
* **HD95** — the 95th percentile Hausdorff distance in pixels (or the spacing's unit): the
  distances of each mask's contour pixels to the other mask's boundary (SimpleITK's
  ``LabelContour`` and the absolute ``SignedMaurerDistanceMap``, [Maurer2003]), the 95th
  percentile of each direction, the larger of the two (the convention of MONAI's
  ``compute_hausdorff_distance(percentile=95)``; the Hausdorff distance:
  [Huttenlocher1993]). Both masks empty: 0.0; one empty: NaN (no distance between a contour
  and nothing).
* **boxes** — the connected components (8-connected) of the union of the model's mask and
  every annotator's, each with its bounding box and whether the model, the annotators, or
  both marked pixels in it (:func:`boxes`): ``model only`` boxes are what the model found that
  no annotator marked, ``people only`` what the annotators marked and the model missed.

Example
-------
>>> import numpy as np
>>> ref = np.zeros((20, 20), bool); ref[5:15, 5:15] = True
>>> model = np.zeros((20, 20), bool); model[5:15, 7:17] = True; model[0:2, 0:2] = True
>>> o = compare(model, ref)
>>> round(o.dice, 3), round(o.sensitivity, 2), round(o.specificity, 3), round(o.hd95, 2)
(0.784, 0.8, 0.92, 6.4)
>>> [(b.where, b.bbox) for b in boxes(model, ref[None])]
[('model only', (0, 0, 2, 2)), ('both', (5, 5, 15, 17))]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from slicereview.engines.agreement.overlap import dice


@dataclass(frozen=True)
class Overlap:
    """The model's mask against a reference (module docstring)."""

    dice: float
    hd95: float
    sensitivity: float
    specificity: float
    model_pixels: int
    reference_pixels: int


@dataclass(frozen=True)
class ModelBox:
    """One box of the union: ``bbox`` ``(row0, col0, row1, col1)`` (end exclusive), who
    marked pixels in it (``"both"``, ``"model only"``, ``"people only"``) and the model
    against the reference inside it."""

    bbox: tuple[int, int, int, int]
    where: str
    overlap: Overlap


def _contour_distances(a: np.ndarray, b: np.ndarray, spacing: tuple[float, float]
                       ) -> np.ndarray:
    """Distances of ``a``'s contour pixels to ``b``'s boundary."""
    import SimpleITK as sitk

    def image(mask: np.ndarray) -> sitk.Image:
        # (a pixel of background around it: ITK counts no contour along the image's border,
        # so a mask filling its crop would have none)
        img = sitk.GetImageFromArray(np.pad(mask, 1).astype(np.uint8))
        img.SetSpacing((float(spacing[1]), float(spacing[0])))
        return img

    distance = sitk.Abs(sitk.SignedMaurerDistanceMap(
        image(b), squaredDistance=False, useImageSpacing=True))
    contour = sitk.GetArrayFromImage(sitk.LabelContour(image(a))) > 0
    return sitk.GetArrayFromImage(distance)[contour]


def hd95(a: ArrayLike, b: ArrayLike, spacing: tuple[float, float] = (1.0, 1.0)) -> float:
    """The 95th percentile Hausdorff distance of two boolean masks (module docstring).

    >>> a = np.zeros((30, 30), bool); a[10:20, 10:20] = True
    >>> hd95(a, a), hd95(a, np.roll(a, 4, axis=1)), hd95(a, np.zeros_like(a))
    (0.0, 4.0, nan)
    """
    x, y = np.asarray(a, bool), np.asarray(b, bool)
    if x.shape != y.shape:
        raise ValueError(f"masks differ in shape: {x.shape} vs {y.shape}")
    if not x.any() and not y.any():
        return 0.0
    if not x.any() or not y.any():
        return math.nan
    forward = _contour_distances(x, y, spacing)
    backward = _contour_distances(y, x, spacing)
    return float(max(np.percentile(forward, 95), np.percentile(backward, 95)))


def compare(model: ArrayLike, reference: ArrayLike, spacing: tuple[float, float] = (1.0, 1.0)
            ) -> Overlap:
    """Dice, HD95, sensitivity and specificity of ``model`` against ``reference``."""
    m, r = np.asarray(model, bool), np.asarray(reference, bool)
    tp = int(np.count_nonzero(m & r))
    fn = int(np.count_nonzero(r)) - tp
    fp = int(np.count_nonzero(m)) - tp
    tn = m.size - tp - fn - fp
    return Overlap(dice(m, r), hd95(m, r, spacing),
                   tp / (tp + fn) if tp + fn else math.nan,
                   tn / (tn + fp) if tn + fp else math.nan, tp + fp, tp + fn)


def boxes(model: ArrayLike, people: ArrayLike, reference: ArrayLike | None = None,
          spacing: tuple[float, float] = (1.0, 1.0)) -> list[ModelBox]:
    """The boxes of the union of ``model`` ``(H, W)`` and ``people`` ``(R, H, W)`` (module
    docstring), in reading order of their top-left corner; each compares the model with
    ``reference`` (default: the union of the people's masks) inside the box."""
    from scipy import ndimage

    m = np.asarray(model, bool)
    p = np.asarray(people, bool).reshape(-1, *m.shape)
    anyone: np.ndarray = np.asarray(p.any(axis=0))
    ref: np.ndarray = anyone if reference is None else np.asarray(reference, bool)
    labels, _ = ndimage.label(m | anyone, structure=np.ones((3, 3), bool))
    found = []
    for k, where in enumerate(ndimage.find_objects(labels), start=1):
        if where is None:
            continue
        inside = labels[where] == k
        by_model, by_people = bool((m[where] & inside).any()), bool((anyone[where] & inside).any())
        who = "both" if by_model and by_people else "model only" if by_model else "people only"
        found.append(ModelBox((where[0].start, where[1].start, where[0].stop, where[1].stop),
                              who, compare(m[where] & inside, ref[where] & inside, spacing)))
    return sorted(found, key=lambda b: b.bbox)
