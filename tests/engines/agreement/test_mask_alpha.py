"""Image- and box-level α on masks, segmentation agreement, Dice and IoU."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import ndimage

from slicereview.engines.agreement import (
    BoxAlpha,
    box_alphas,
    dice,
    iou,
    krippendorff_alpha,
    mask_alpha,
    segmentation_agreement,
)

CASES = Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json"


def _case(statistic_start: str) -> dict:
    cases = json.loads(CASES.read_text())["cases"]
    return next(c for c in cases if c["statistic"].startswith(statistic_start))


SEG = _case("image-level and bbox-level")
LABELS = np.array([SEG["inputs"]["label_maps"][k] for k in ("A1", "A2", "A3")], dtype=np.uint8)


@pytest.mark.parametrize("level", ["strict", "relaxed"])
def test_published_segmentation_case(level):
    expected = SEG["expected"][level]
    tol = SEG["tolerance"]
    result = getattr(segmentation_agreement(LABELS), level)
    assert result.alpha == pytest.approx(expected["image_alpha"], abs=tol)
    assert result.n_boxes == expected["n_components_8"]
    for box, exp in zip(result.boxes, expected["bbox"], strict=True):
        assert box.box == (exp["bbox_rows"][0], exp["bbox_cols"][0],
                           exp["bbox_rows"][1], exp["bbox_cols"][1])
        assert box.area == exp["bbox_area"]
        assert box.pixels == exp["component_pixels"]
        assert box.alpha == pytest.approx(exp["alpha"], abs=tol)
        assert box.band == exp["band"]
    assert result.band_counts == expected["band_counts"]
    assert result.wbbox == pytest.approx(expected["Wbbox_bbox_area"], abs=1e-7)
    assert result.mean_box_alpha == pytest.approx(expected["mean_bbox_alpha"], abs=tol)
    assert list(result.roi_pixels) == expected["roi_pixels_per_annotator"]
    four = box_alphas(LABELS == 1 if level == "strict" else LABELS > 0, connectivity=1)
    assert len(four) == expected["n_components_4"]


def test_segmentation_case_other_fields():
    result = segmentation_agreement(LABELS)
    relaxed = np.array(SEG["expected"]["relaxed"]["roi_pixels_per_annotator"], dtype=float)
    strict = np.array(SEG["expected"]["strict"]["roi_pixels_per_annotator"], dtype=float)
    assert result.uncertain_pixels == int(relaxed.sum() - strict.sum())
    assert result.uncertain_pixels == int(np.count_nonzero(LABELS == 2))
    assert result.uncertain_share == pytest.approx((relaxed.sum() - strict.sum()) / relaxed.sum())
    assert result.area_mean == pytest.approx(relaxed.mean())
    assert result.area_std == pytest.approx(relaxed.std())


def _random_masks(rng, raters=3, shape=(24, 32), p=0.3):
    return rng.random((raters, *shape)) < p


def test_mask_alpha_equals_krippendorff_package_on_random_masks():
    import krippendorff

    rng = np.random.default_rng(3)
    for raters in (2, 3, 5):
        masks = _random_masks(rng, raters)
        masks[1:] |= masks[0]  # correlated annotators
        flat = masks.reshape(raters, -1).astype(float)
        expected = krippendorff.alpha(reliability_data=flat, level_of_measurement="nominal")
        assert mask_alpha(masks) == pytest.approx(expected, rel=1e-12)


def test_mask_alpha_with_valid_equals_package_with_missing():
    import krippendorff

    rng = np.random.default_rng(4)
    masks = _random_masks(rng, 4)
    valid = rng.random(masks.shape) < 0.7
    flat = np.where(valid, masks, np.nan).reshape(4, -1)
    expected = krippendorff.alpha(reliability_data=flat, level_of_measurement="nominal")
    assert mask_alpha(masks, valid) == pytest.approx(expected, rel=1e-12)
    assert mask_alpha(masks, np.ones_like(masks)) == pytest.approx(mask_alpha(masks), rel=1e-12)


def test_mask_alpha_conventions():
    empty = np.zeros((3, 8, 8), bool)
    assert mask_alpha(empty) == 1.0  # nobody marked anything: no observed disagreement
    full = np.ones((2, 8, 8), bool)
    assert mask_alpha(full) == 1.0
    same = np.zeros((2, 8, 8), bool)
    same[:, 2:5, 2:5] = True
    assert mask_alpha(same) == 1.0
    assert math.isnan(mask_alpha(same[:1]))  # one annotator: nothing pairable
    assert math.isnan(mask_alpha(same, np.zeros_like(same)))  # nobody saw anything
    only_one_saw = np.zeros_like(same)
    only_one_saw[0] = True
    assert math.isnan(mask_alpha(same, only_one_saw))
    with pytest.raises(ValueError, match="3-D"):
        mask_alpha(np.zeros((8, 8), bool))
    with pytest.raises(ValueError, match="valid"):
        mask_alpha(same, np.ones((2, 4, 4), bool))


def test_mask_alpha_accepts_integer_masks():
    rng = np.random.default_rng(5)
    masks = _random_masks(rng)
    assert mask_alpha(masks.astype(np.uint8) * 255) == mask_alpha(masks)


masks_strategy = st.integers(2, 4).flatmap(
    lambda r: arrays(np.bool_, st.tuples(st.just(r), st.integers(1, 9), st.integers(1, 9)))
)


@given(masks=masks_strategy)
def test_mask_alpha_equals_krippendorff_alpha_on_flattened_masks(masks):
    flat = masks.reshape(masks.shape[0], -1).astype(float)
    expected = krippendorff_alpha(flat, "nominal")
    got = mask_alpha(masks)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@given(masks=masks_strategy, data=st.data())
def test_box_results_do_not_depend_on_annotator_order(masks, data):
    order = data.draw(st.permutations(range(masks.shape[0])))
    assert box_alphas(masks[list(order)]) == box_alphas(masks)
    assert mask_alpha(masks[list(order)]) == pytest.approx(mask_alpha(masks), nan_ok=True)


@given(masks=masks_strategy)
def test_box_alphas_equal_alpha_of_box_pixels(masks):
    union = masks.any(axis=0)
    labels, count = ndimage.label(union, structure=np.ones((3, 3)))
    boxes = box_alphas(masks)
    assert len(boxes) == count
    for b in boxes:
        r0, c0, r1, c1 = b.box
        inside = masks[:, r0:r1, c0:c1].reshape(masks.shape[0], -1).astype(float)
        assert b.area == inside.shape[1]
        assert b.alpha == pytest.approx(krippendorff_alpha(inside), rel=1e-9, abs=1e-12)
        assert 1 <= b.pixels <= b.area


def test_box_alphas_empty_union_and_single_annotator():
    assert box_alphas(np.zeros((3, 5, 5), bool)) == []
    one = np.zeros((1, 5, 5), bool)
    one[0, 1:3, 1:3] = True
    (box,) = box_alphas(one)
    assert box.box == (1, 1, 3, 3) and math.isnan(box.alpha) and box.band == "undefined"
    with pytest.raises(ValueError, match="connectivity"):
        box_alphas(one, connectivity=3)


def test_box_alphas_connectivity():
    masks = np.zeros((2, 6, 6), bool)
    masks[0, 1, 1] = masks[0, 2, 2] = True  # diagonal neighbours
    masks[1, 1, 1] = True
    assert [b.box for b in box_alphas(masks)] == [(1, 1, 3, 3)]
    assert [b.box for b in box_alphas(masks, connectivity=1)] == [(1, 1, 2, 2), (2, 2, 3, 3)]
    assert isinstance(box_alphas(masks)[0], BoxAlpha)


def test_segmentation_agreement_empty_union():
    result = segmentation_agreement(np.zeros((3, 10, 12), np.uint8))
    for level in (result.strict, result.relaxed):
        assert level.alpha == 1.0
        assert level.boxes == ()
        assert level.wbbox == 0.0
        assert level.band_counts == {"disagreement": 0, "low": 0, "moderate": 0, "high": 0}
        assert math.isnan(level.mean_box_alpha)
    assert result.uncertain_share == 0.0 and result.uncertain_pixels == 0
    assert result.area_mean == 0.0 and result.area_std == 0.0


def test_segmentation_agreement_rejects_bad_labels():
    with pytest.raises(ValueError, match="at least two"):
        segmentation_agreement(np.zeros((1, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="certain"):
        segmentation_agreement(np.full((2, 4, 4), 3, np.uint8))
    with pytest.raises(ValueError, match="certain"):
        segmentation_agreement(np.full((2, 4, 4), -1, np.int16))
    with pytest.raises(ValueError, match="3-D"):
        segmentation_agreement(np.zeros((4, 4), np.uint8))
    ok = segmentation_agreement(LABELS.astype(np.int64))
    assert ok.strict.alpha == segmentation_agreement(LABELS).strict.alpha


def test_dice_iou_published_case():
    case = _case("Dice")
    a = np.array(case["inputs"]["A_rle_rows"], bool)
    b = np.array(case["inputs"]["B_rle_rows"], bool)
    assert dice(a, b) == pytest.approx(case["expected"]["dice"], abs=case["tolerance"])
    assert iou(a, b) == pytest.approx(case["expected"]["iou"], abs=case["tolerance"])


def test_dice_iou_against_sklearn_and_conventions():
    from sklearn.metrics import f1_score, jaccard_score

    rng = np.random.default_rng(8)
    for _ in range(20):
        a, b = rng.random((2, 9, 11)) < rng.uniform(0.05, 0.9)
        assert dice(a, b) == pytest.approx(f1_score(a.ravel(), b.ravel()))
        assert iou(a, b) == pytest.approx(jaccard_score(a.ravel(), b.ravel()))
    empty = np.zeros((4, 4), bool)
    assert dice(empty, empty) == 1.0 and iou(empty, empty) == 1.0
    full = ~empty
    assert dice(empty, full) == 0.0 and iou(empty, full) == 0.0
    with pytest.raises(ValueError, match="shape"):
        dice(empty, np.zeros((3, 4), bool))


labels_strategy = st.integers(2, 4).flatmap(
    lambda r: arrays(np.uint8, st.tuples(st.just(r), st.integers(1, 12), st.integers(1, 12)),
                     elements=st.integers(0, 2))
)


@given(labels=labels_strategy, connectivity=st.sampled_from([1, 2]))
def test_segmentation_levels_equal_plain_box_alphas(labels, connectivity):
    """Strict boxes are found inside the relaxed components; they must equal a full labelling."""
    result = segmentation_agreement(labels, connectivity=connectivity)
    for level, masks in ((result.strict, labels == 1), (result.relaxed, labels > 0)):
        assert list(level.boxes) == box_alphas(masks, connectivity=connectivity)
        assert level.alpha == pytest.approx(mask_alpha(masks), nan_ok=True)
