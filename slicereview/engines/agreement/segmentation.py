"""Krippendorff's α on segmentation masks: image level, box level, strict and relaxed.

Every pixel is one unit and every annotator's mask gives it a value 0 (background) or 1 (ROI),
as in [CrowdSegQA, §3.3] (docs/references.md). For binary
(nominal) data α needs only the per-pixel count ``n1`` of annotators who marked the pixel, so
the whole computation is a histogram of a ``uint8`` count image — O(pixels), no per-pixel
Python and no coincidence matrix:

    α = 1 − (n − 1) · o₀₁ / (n₀ · n₁),   o₀₁ = Σ_pixels n1 · (m − n1) / (m − 1)

with ``m`` the number of annotators who saw the pixel, ``n = Σ m`` over pairable pixels
(``m ≥ 2``) and ``n₁ = Σ n1``, ``n₀ = n − n₁``. Conventions are those of
:func:`~slicereview.engines.agreement.alpha.krippendorff_alpha`: no observed disagreement → 1.0,
fewer than two pairable values → NaN.

*Boxes* ([CrowdSegQA, §3.3]): the union of all masks is split into connected components (8-connected
by default); each component's bounding box gets its own α over every pixel inside the box (pixels
of other components that fall in the box included, as [CrowdSegQA] does). Boxes are
``(row0, col0, row1, col1)`` with ``row1``/``col1`` exclusive, listed in raster order of each
component's first pixel. An empty union gives no boxes, ``wbbox = 0`` and zero band counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy import ndimage

from slicereview.engines.agreement.alpha import BANDS, band
from slicereview.engines.agreement.pixel_alpha import (
    _alpha_from_histogram,
    _count_histogram,
    _counts,
    _stack,
    mask_alpha,
)

# mask_alpha lives in pixel_alpha.py and stays importable from here.
__all__ = ["BoxAlpha", "LevelAgreement", "SegmentationAgreement", "box_alphas", "level_agreement",
           "mask_alpha", "segmentation_agreement"]


@dataclass(frozen=True)
class BoxAlpha:
    """α inside the bounding box of one connected component of the union of the masks.

    Attributes
    ----------
    box : tuple of int
        ``(row0, col0, row1, col1)``, ``row1`` and ``col1`` exclusive.
    area : int
        Box area in pixels, ``(row1 - row0) * (col1 - col0)``.
    alpha : float
        Binary nominal α over the ``R × area`` pixel values in the box.
    pixels : int
        Pixels of the component itself (≤ ``area``).
    """

    box: tuple[int, int, int, int]
    area: int
    alpha: float
    pixels: int = 0

    @property
    def band(self) -> str:
        """Agreement band of :attr:`alpha` (see :func:`~slicereview.engines.agreement.band`)."""
        return band(self.alpha)


@dataclass(frozen=True)
class LevelAgreement:
    """Agreement of one ROI definition (``strict`` or ``relaxed``) on one image.

    Attributes
    ----------
    alpha : float
        Image-level binary α over all pixels.
    boxes : tuple of BoxAlpha
        Box-level results, raster order.
    band_counts : dict
        Number of boxes per band: keys ``disagreement``, ``low``, ``moderate``, ``high``.
    wbbox : float
        ``Σ (1 − αᵢ) · areaᵢ`` over the boxes ([CrowdSegQA, Eq. 1]; box area, not component
        pixels). 0.0 when there are no boxes.
    roi_pixels : tuple of int
        ROI pixels of each annotator, in input order.
    """

    alpha: float
    boxes: tuple[BoxAlpha, ...]
    band_counts: dict[str, int] = field(hash=False)
    wbbox: float
    roi_pixels: tuple[int, ...]

    @property
    def n_boxes(self) -> int:
        """Number of boxes (connected components of the union)."""
        return len(self.boxes)

    @property
    def mean_box_alpha(self) -> float:
        """Mean box α; NaN when there are no boxes."""
        if not self.boxes:
            return float("nan")
        return float(np.mean([b.alpha for b in self.boxes]))


@dataclass(frozen=True)
class SegmentationAgreement:
    """Strict and relaxed agreement of several annotators' label images of one image.

    Attributes
    ----------
    strict, relaxed : LevelAgreement
        ROI = certain pixels (label 1), and ROI = certain or uncertain pixels (label 1 or 2).
    uncertain_pixels : int
        Uncertain pixels summed over annotators.
    uncertain_share : float
        ``uncertain_pixels`` / relaxed ROI pixels summed over annotators; 0.0 when nobody
        marked anything (no pixel is uncertain).
    area_mean, area_std : float
        Mean and population standard deviation (``ddof=0``) of the annotators' relaxed ROI
        areas in pixels.
    """

    strict: LevelAgreement
    relaxed: LevelAgreement
    uncertain_pixels: int
    uncertain_share: float
    area_mean: float
    area_std: float


def _structure(connectivity: int) -> np.ndarray:
    if connectivity not in (1, 2):
        raise ValueError(f"connectivity must be 1 (4-connected) or 2 (8-connected), "
                         f"got {connectivity}")
    return ndimage.generate_binary_structure(2, connectivity)


def _box(n1: np.ndarray, slices: tuple[slice, slice], raters: int, pixels: int) -> BoxAlpha:
    rows, cols = slices
    inside = n1[slices]
    alpha = (
        _alpha_from_histogram(_count_histogram(inside, raters)) if raters >= 2 else float("nan")
    )
    return BoxAlpha(box=(rows.start, cols.start, rows.stop, cols.stop), area=int(inside.size),
                    alpha=alpha, pixels=pixels)


def _components(n1: np.ndarray, connectivity: int) -> tuple[np.ndarray, list]:
    """Component labels of the union ``n1 > 0`` and each component's bounding slices."""
    labels, n_components = ndimage.label(n1 > 0, structure=_structure(connectivity))
    return labels, (ndimage.find_objects(labels) if n_components else [])


def _boxes_from_counts(
    n1: np.ndarray, raters: int, connectivity: int,
    components: tuple[np.ndarray, list] | None = None,
) -> tuple[BoxAlpha, ...]:
    """Boxes of the union ``n1 > 0`` with α from the count image inside each box."""
    labels, slices = components if components is not None else _components(n1, connectivity)
    return tuple(
        _box(n1, box, raters, int(np.count_nonzero(labels[box] == index)))
        for index, box in enumerate(slices, start=1)
    )


def _nested_boxes(
    n1: np.ndarray, raters: int, connectivity: int, outer: tuple[np.ndarray, list]
) -> tuple[BoxAlpha, ...]:
    """Boxes of ``n1 > 0`` when that union lies inside the union labelled in ``outer``.

    Strict ROI ⊂ relaxed ROI, so every strict component lies in one relaxed component: label
    only inside the relaxed boxes instead of the whole image again. Boxes are sorted by the
    raster position of each component's first pixel, the order ``ndimage.label`` gives.
    """
    outer_labels, outer_slices = outer
    structure = _structure(connectivity)
    found = []
    for index, (rows, cols) in enumerate(outer_slices, start=1):
        inner = (n1[rows, cols] > 0) & (outer_labels[rows, cols] == index)
        labels, count = ndimage.label(inner, structure=structure)
        if not count:
            continue
        for j, (r, c) in enumerate(ndimage.find_objects(labels), start=1):
            component = labels[r, c] == j
            first = int(np.argmax(component))
            width = component.shape[1]
            top = (rows.start + r.start + first // width, cols.start + c.start + first % width)
            box = (slice(rows.start + r.start, rows.start + r.stop),
                   slice(cols.start + c.start, cols.start + c.stop))
            found.append((top, _box(n1, box, raters, int(np.count_nonzero(component)))))
    found.sort(key=lambda item: item[0])
    return tuple(b for _, b in found)


def box_alphas(masks: ArrayLike, connectivity: int = 2) -> list[BoxAlpha]:
    """Box-level α: one α per connected component of the union of all masks.

    Parameters
    ----------
    masks : array_like of bool, shape (R, H, W)
        One mask per annotator (non-zero = ROI).
    connectivity : {1, 2}
        1: 4-connected components; 2 (default): 8-connected.

    Returns
    -------
    list of BoxAlpha
        In raster order of each component's first pixel; empty when no annotator marked
        anything. With a single annotator every α is NaN.

    Examples
    --------
    >>> m = np.zeros((2, 8, 8), bool)
    >>> m[:, 1:3, 1:3] = True          # both agree on the first region
    >>> m[0, 5:7, 5:7] = True          # only the first annotator marks the second
    >>> [(b.box, b.area, round(b.alpha, 3)) for b in box_alphas(m)]
    [((1, 1, 3, 3), 4, 1.0), ((5, 5, 7, 7), 4, -0.75)]
    """
    arr = _stack(masks)
    return list(_boxes_from_counts(_counts(arr), arr.shape[0], connectivity))


def _level(n1: np.ndarray, roi_pixels: tuple[int, ...],
           boxes: tuple[BoxAlpha, ...]) -> LevelAgreement:
    raters = len(roi_pixels)
    counts = dict.fromkeys(BANDS, 0)
    for b in boxes:
        if b.band in counts:
            counts[b.band] += 1
    return LevelAgreement(
        alpha=_alpha_from_histogram(_count_histogram(n1, raters)),
        boxes=boxes,
        band_counts=counts,
        wbbox=float(sum((1.0 - b.alpha) * b.area for b in boxes)),
        roi_pixels=roi_pixels,
    )


def level_agreement(masks: ArrayLike, connectivity: int = 2) -> LevelAgreement:
    """Image α, boxes, band counts and Wbbox of plain binary masks (one ROI definition).

    Parameters
    ----------
    masks : array_like of bool, shape (R, H, W)
        One mask per annotator (non-zero = ROI).
    connectivity : {1, 2}
        Component connectivity for the boxes (default 8-connected).

    Examples
    --------
    >>> m = np.zeros((2, 8, 8), bool)
    >>> m[:, 1:3, 1:3] = True
    >>> m[0, 5:7, 5:7] = True
    >>> r = level_agreement(m)
    >>> r.n_boxes, r.band_counts["high"], r.wbbox, r.roi_pixels
    (2, 1, 7.0, (8, 4))
    """
    arr = _stack(masks)
    roi = tuple(int(np.count_nonzero(m)) for m in arr)
    n1 = _counts(arr)
    return _level(n1, roi, _boxes_from_counts(n1, arr.shape[0], connectivity))


def segmentation_agreement(labels: ArrayLike, connectivity: int = 2) -> SegmentationAgreement:
    """Strict and relaxed image- and box-level agreement of certain/uncertain label images.

    Parameters
    ----------
    labels : array_like of uint8, shape (R, H, W)
        One label image per annotator (R ≥ 2): 0 background, 1 certain, 2 uncertain.
    connectivity : {1, 2}
        Component connectivity for the boxes (default 8-connected).

    Returns
    -------
    SegmentationAgreement
        ``strict`` counts only certain pixels as ROI, ``relaxed`` certain and uncertain.

    Examples
    --------
    >>> lab = np.zeros((2, 6, 6), np.uint8)
    >>> lab[0, 1:4, 1:4] = 1
    >>> lab[1, 1:4, 1:4] = 2
    >>> r = segmentation_agreement(lab)
    >>> r.relaxed.alpha, round(r.strict.alpha, 3), r.uncertain_share
    (1.0, -0.127, 0.5)
    """
    arr = np.asarray(labels)
    if arr.ndim != 3:
        raise ValueError(f"labels must be 3-D (raters, height, width), got shape {arr.shape}")
    if arr.shape[0] < 2:
        raise ValueError("agreement needs label images of at least two annotators")
    if arr.dtype != np.uint8:
        if arr.size and (arr.min() < 0 or arr.max() > 2):
            raise ValueError("labels must be 0 (background), 1 (certain) or 2 (uncertain)")
        arr = arr.astype(np.uint8)
    if arr.size and arr.max() > 2:
        raise ValueError("labels must be 0 (background), 1 (certain) or 2 (uncertain)")
    certain = arr == 1
    marked = arr != 0
    strict_px = tuple(int(np.count_nonzero(c)) for c in certain)
    relaxed_px = tuple(int(np.count_nonzero(m)) for m in marked)
    raters = arr.shape[0]
    n1_relaxed = _counts(marked)
    n1_strict = _counts(certain)
    components = _components(n1_relaxed, connectivity)
    relaxed = _level(n1_relaxed, relaxed_px,
                     _boxes_from_counts(n1_relaxed, raters, connectivity, components))
    strict = _level(n1_strict, strict_px,
                    _nested_boxes(n1_strict, raters, connectivity, components))
    uncertain = sum(relaxed_px) - sum(strict_px)
    areas = np.asarray(relaxed_px, dtype=float)
    return SegmentationAgreement(
        strict=strict,
        relaxed=relaxed,
        uncertain_pixels=uncertain,
        uncertain_share=uncertain / sum(relaxed_px) if sum(relaxed_px) else 0.0,
        area_mean=float(areas.mean()),
        area_std=float(areas.std()),
    )
