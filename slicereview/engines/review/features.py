"""An image's review features: the values of [CrowdSegQA, §4, Table 1].

:func:`image_features` turns the annotators' label images of one image into one
:class:`ImageFeatures`, from which :mod:`slicereview.engines.review.priority` ranks the queue. It
adds nothing statistical of its own: image- and box-level α, band counts, Wbbox
([CrowdSegQA, Eq. 1]), the uncertain share and the relaxed areas all come from
:func:`slicereview.engines.agreement.segmentation_agreement`; intra-rater α is
:func:`slicereview.engines.agreement.mask_alpha` of an annotator's two masks of the image.

Which boxes
-----------
Box features (band counts, ``n_boxes``, ``wbbox``, ``box_area``) use the **relaxed** boxes by
default: the components of the union of every pixel anyone marked, certain or uncertain. That
is the glossary's *box* and it is what a reviewer must look at: a region one annotator marked
"uncertain" and another left empty is exactly the kind of disagreement the queue should bring
forward, and strict boxes (certain pixels only) drop it altogether. ``level="strict"`` selects
the strict boxes for those who want [CrowdSegQA]'s other reading; the choice is stored in
:attr:`ImageFeatures.level` so that cached values say how they were made.

Degenerate cases (docs/design.md, "Conventions")
------------------------------------------------
* One annotator: every α is NaN (fewer than two pairable values), so box α, band counts are 0
  (NaN has no band) and ``wbbox`` is NaN; areas and uncertain share are still defined.
* Nobody marked anything: both α are 1.0 (no observed disagreement), no boxes, ``wbbox`` 0.0,
  ``unsure_share`` 0.0.
* No repeat annotations: ``intra_strict`` and ``intra_relaxed`` are NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from slicereview.engines.agreement import LevelAgreement

def _agreement() -> Any:
    """The agreement engine, loaded on first use (scipy.ndimage; not at start-up)."""
    from slicereview.engines import agreement

    return agreement


BoxLevel = Literal["strict", "relaxed"]
#: A pair of label images ``uint8 (H, W)`` by one annotator on one image: first pass, repeat.
RepeatPair = tuple[ArrayLike, ArrayLike]


@dataclass(frozen=True)
class ImageFeatures:
    """[CrowdSegQA, Table 1] features of one image, all plain numbers.

    Attributes
    ----------
    strict_alpha, relaxed_alpha : float
        Image-level binary α, ROI = certain pixels / ROI = certain or uncertain pixels.
    unsure_share : float
        Uncertain pixels / relaxed ROI pixels, both summed over annotators ("unsure labels%"
        as a fraction); 0.0 when nobody marked anything.
    unsure_pixels : int
        Uncertain pixels summed over annotators.
    area_std, area_mean : float
        Population std (``ddof=0``) and mean of the annotators' relaxed ROI areas, in pixels.
    intra_strict, intra_relaxed : float
        Mean over the annotators with a repeat of the α of their two masks; NaN without one.
    n_disagreement, n_low, n_moderate, n_high : int
        Boxes per agreement band (α ≤ 0.1, ≤ 0.667, ≤ 0.8, > 0.8).
    n_boxes : int
        Number of boxes (connected components of the union at ``level``).
    wbbox : float
        ``Σ (1 − αᵢ) · areaᵢ`` over the boxes ([CrowdSegQA, Eq. 1]); 0.0 without boxes.
    box_area : int
        ``Σ areaᵢ``, the box areas in pixels (the denominator of [CrowdSegQA, Eq. 2]).
    image_pixels : int
        ``H · W``.
    level : {"relaxed", "strict"}
        Which boxes the box features describe.
    model_disagreement : float
        ``1 − Dice`` of a model's mask with the annotators' majority vote (relaxed), what the
        ``model-disagreement`` method ranks by (set by the application layer from the model
        the queue names, never cached); NaN without a model or its prediction.
    """

    strict_alpha: float
    relaxed_alpha: float
    unsure_share: float
    unsure_pixels: int
    area_std: float
    area_mean: float
    intra_strict: float
    intra_relaxed: float
    n_disagreement: int
    n_low: int
    n_moderate: int
    n_high: int
    n_boxes: int
    wbbox: float
    box_area: int
    image_pixels: int
    level: str = "relaxed"
    model_disagreement: float = math.nan

    @property
    def wbbox_per_pixel(self) -> float:
        """``wbbox / image_pixels`` ([CrowdSegQA, Table 1]'s last box feature); NaN if empty."""
        return self.wbbox / self.image_pixels if self.image_pixels else math.nan

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: NaN becomes ``None`` (JSON has no NaN).

        >>> f = image_features(np.zeros((2, 3, 3), np.uint8))
        >>> import json; json.loads(json.dumps(f.to_dict()))["intra_strict"] is None
        True
        """
        values = ((f.name, getattr(self, f.name)) for f in fields(self))  # flat: no asdict
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in values}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ImageFeatures:
        """Inverse of :meth:`to_dict` (``None`` back to NaN); raises on a missing field.

        >>> f = image_features(np.zeros((2, 3, 3), np.uint8))
        >>> ImageFeatures.from_dict(f.to_dict()).to_dict() == f.to_dict()
        True
        """
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                if f.name in ("level", "model_disagreement"):
                    continue
                raise ValueError(f"feature {f.name!r} is missing")
            value = data[f.name]
            if f.type == "float":
                value = math.nan if value is None else float(value)
            elif f.type == "int":
                value = int(value)
            values[f.name] = value
        return cls(**values)


def _check_labels(labels: ArrayLike) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.ndim != 3 or arr.shape[0] < 1:
        raise ValueError(f"labels must be (raters ≥ 1, height, width), got shape {arr.shape}")
    return arr


def intra_rater_alpha(repeats: Sequence[RepeatPair]) -> tuple[float, float]:
    """Mean strict and relaxed α of each annotator's two label images of one image.

    Parameters
    ----------
    repeats : sequence of (first, repeat)
        One pair per annotator who annotated the image twice; each a label image
        ``uint8 (H, W)`` (0 background, 1 certain, 2 uncertain) of one shape.

    Returns
    -------
    (strict, relaxed) : tuple of float
        Means over the pairs of the two-mask α; NaN for no pairs.

    Examples
    --------
    >>> a = np.zeros((4, 4), np.uint8); a[1:3, 1:3] = 1
    >>> b = a.copy(); b[1, 1] = 2
    >>> s, r = intra_rater_alpha([(a, b)])
    >>> round(s, 3), r
    (0.823, 1.0)
    """
    strict, relaxed = [], []
    for first, repeat in repeats:
        pair = np.stack([np.asarray(first), np.asarray(repeat)])
        strict.append(_agreement().mask_alpha(pair == 1))
        relaxed.append(_agreement().mask_alpha(pair != 0))
    return _mean(strict), _mean(relaxed)


def _mean(values: Sequence[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan


def _single_annotator(arr: np.ndarray) -> tuple[LevelAgreement, LevelAgreement, int, float]:
    """Strict and relaxed results for one annotator (segmentation_agreement needs two)."""
    strict = _agreement().level_agreement(arr == 1)
    relaxed = _agreement().level_agreement(arr != 0)
    marked = relaxed.roi_pixels[0]
    uncertain = marked - strict.roi_pixels[0]
    return strict, relaxed, uncertain, (uncertain / marked if marked else 0.0)


def image_features(
    labels: ArrayLike,
    repeats: Sequence[RepeatPair] | None = None,
    level: BoxLevel = "relaxed",
) -> ImageFeatures:
    """[CrowdSegQA, Table 1] features of one image from its annotators' label images.

    Parameters
    ----------
    labels : array_like of uint8, shape (R, H, W)
        One label image per annotator (R ≥ 1): 0 background, 1 certain, 2 uncertain.
    repeats : sequence of (first, repeat), optional
        Pairs of label images ``uint8 (H, W)`` by one annotator on this image (intra-rater α).
    level : {"relaxed", "strict"}
        Boxes for the box features; relaxed (default) boxes cover every region anyone marked.

    Returns
    -------
    ImageFeatures

    Examples
    --------
    >>> lab = np.zeros((3, 8, 8), np.uint8)
    >>> lab[:, 1:4, 1:4] = 1          # everybody marks the first region
    >>> lab[0, 5:7, 5:7] = 2          # one annotator marks a second one, unsure
    >>> f = image_features(lab)
    >>> f.n_boxes, f.n_high, f.n_disagreement, f.unsure_pixels, f.box_area
    (2, 1, 1, 4, 13)
    >>> image_features(lab, level="strict").n_boxes
    1
    """
    if level not in ("relaxed", "strict"):
        raise ValueError(f"level must be 'relaxed' or 'strict', got {level!r}")
    arr = _check_labels(labels)
    if arr.shape[0] >= 2:
        agreement = _agreement().segmentation_agreement(arr)
        strict, relaxed = agreement.strict, agreement.relaxed
        unsure_pixels, unsure_share = agreement.uncertain_pixels, agreement.uncertain_share
        area_mean, area_std = agreement.area_mean, agreement.area_std
    else:
        strict, relaxed, unsure_pixels, unsure_share = _single_annotator(arr)
        area_mean, area_std = float(relaxed.roi_pixels[0]), 0.0
    boxes = relaxed if level == "relaxed" else strict
    intra_strict, intra_relaxed = intra_rater_alpha(repeats or ())
    counts = boxes.band_counts
    return ImageFeatures(
        strict_alpha=strict.alpha,
        relaxed_alpha=relaxed.alpha,
        unsure_share=float(unsure_share),
        unsure_pixels=int(unsure_pixels),
        area_std=float(area_std),
        area_mean=float(area_mean),
        intra_strict=intra_strict,
        intra_relaxed=intra_relaxed,
        n_disagreement=counts["disagreement"],
        n_low=counts["low"],
        n_moderate=counts["moderate"],
        n_high=counts["high"],
        n_boxes=boxes.n_boxes,
        wbbox=float(boxes.wbbox),
        box_area=int(sum(b.area for b in boxes.boxes)),
        image_pixels=int(arr.shape[1] * arr.shape[2]),
        level=level,
    )
