"""The model against a reference (slicereview.engines.agreement.model_agreement): HD95
against an independent computation with scipy's exact Euclidean distance transform,
sensitivity and specificity against scikit-learn's recall, the degenerate cases, and the
boxes only the model or only the people marked."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import ndimage

from slicereview.engines.agreement.model_agreement import boxes, compare, hd95


def _blob(shape, centre, radius, rng):
    rows, cols = np.indices(shape)
    angle = np.arctan2(rows - centre[0], cols - centre[1])
    wobble = radius * (1 + 0.15 * np.sin(3 * angle + rng.uniform(0, 6)))
    return np.hypot(rows - centre[0], cols - centre[1]) < wobble


def _scipy_hd95(a, b, spacing):
    """Contour: pixels of the mask with a 4-neighbour outside it (ITK's LabelContour, not
    fully connected); the distance of a pixel to a mask's boundary: the Euclidean distance
    transform to the nearest pixel of that boundary."""
    def contour(m):
        return m & ~ndimage.binary_erosion(m, structure=ndimage.generate_binary_structure(2, 1),
                                           border_value=0)

    def directed(x, y):
        to_y = ndimage.distance_transform_edt(~contour(y), sampling=spacing)
        return to_y[contour(x)]

    return max(np.percentile(directed(a, b), 95), np.percentile(directed(b, a), 95))


@pytest.mark.parametrize("seed", range(6))
def test_hd95_agrees_with_an_exact_distance_transform(seed):
    rng = np.random.default_rng(seed)
    shape = (90, 120)
    a = _blob(shape, (45, 50), 20, rng)
    b = _blob(shape, (45 + rng.integers(-6, 7), 50 + rng.integers(-6, 7)),
              rng.uniform(14, 26), rng)
    if seed % 2:
        b |= _blob(shape, (15, 100), 6, rng)  # (a far-off extra region pulls HD95 up)
    spacing = (1.0, 1.0) if seed < 3 else (0.5, 0.8)
    ours, theirs = hd95(a, b, spacing), _scipy_hd95(a, b, spacing)
    # (ITK measures to the boundary between the masks' pixels, the oracle to the nearest
    # boundary pixel: they differ by at most one pixel's size)
    assert ours == pytest.approx(theirs, abs=max(spacing))
    assert ours > 0


def test_sensitivity_and_specificity_are_recall_of_each_class():
    from sklearn.metrics import recall_score

    rng = np.random.default_rng(3)
    ref = rng.random((40, 40)) < 0.3
    model = ref ^ (rng.random((40, 40)) < 0.1)
    o = compare(model, ref)
    assert o.sensitivity == pytest.approx(recall_score(ref.ravel(), model.ravel()))
    assert o.specificity == pytest.approx(recall_score(~ref.ravel(), ~model.ravel()))
    assert o.dice == pytest.approx(2 * (model & ref).sum() / (model.sum() + ref.sum()))


def test_a_mask_that_fills_the_image_still_has_a_contour():
    full = np.ones((6, 8), bool)
    part = np.zeros((6, 8), bool)
    part[:, :4] = True
    assert hd95(full, full) == 0.0
    assert hd95(part, full) == pytest.approx(_scipy_hd95(np.pad(part, 1), np.pad(full, 1),
                                                         (1.0, 1.0)), abs=1.0)
    assert hd95(part, full) > 0


def test_degenerate_cases():
    empty = np.zeros((10, 10), bool)
    full = np.ones((10, 10), bool)
    both_empty = compare(empty, empty)
    assert (both_empty.dice, both_empty.hd95) == (1.0, 0.0)
    assert math.isnan(both_empty.sensitivity) and both_empty.specificity == 1.0
    missed = compare(empty, full)
    assert missed.dice == 0.0 and math.isnan(missed.hd95) and missed.sensitivity == 0.0
    assert math.isnan(missed.specificity)
    with pytest.raises(ValueError, match="differ in shape"):
        hd95(empty, np.zeros((5, 5), bool))


def test_boxes_the_model_found_alone_and_those_it_missed():
    people = np.zeros((2, 50, 50), bool)
    people[:, 10:20, 10:20] = True  # both annotators and the model
    people[1, 35:45, 35:45] = True  # one annotator only: the model missed it
    model = np.zeros((50, 50), bool)
    model[12:22, 11:21] = True
    model[2:6, 40:46] = True  # the model alone
    found = boxes(model, people)
    assert [(b.where, b.bbox) for b in found] == [
        ("model only", (2, 40, 6, 46)), ("both", (10, 10, 22, 21)),
        ("people only", (35, 35, 45, 45))]
    both = found[1].overlap
    assert both.dice == pytest.approx(2 * (8 * 9) / 200)
    assert found[0].overlap.reference_pixels == 0 and found[2].overlap.model_pixels == 0
