"""Majority vote and STAPLE consensus masks: hand-made masks, an independent numpy majority,
and the degenerate cases of the module docstring."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.agreement import majority_vote, staple
from slicereview.engines.agreement.consensus_masks import consensus_mask


def _three() -> np.ndarray:
    lab = np.zeros((3, 10, 10), np.uint8)
    lab[0, 2:6, 2:6] = 1
    lab[1, 2:7, 2:6] = 1
    lab[1, 6, 2:6] = 2  # annotator 2's extra row is uncertain
    lab[2, 3:6, 3:8] = 2  # annotator 3 marks everything uncertain
    return lab


def test_majority_by_hand():
    lab = _three()
    relaxed = majority_vote(lab)
    # (2, 2): annotators 1 and 2 → in; (3, 7): annotator 3 only → out; (6, 3): annotator 2
    # only (uncertain) → out; (4, 4): all three → in.
    assert relaxed[2, 2] and relaxed[4, 4] and not relaxed[3, 7] and not relaxed[6, 3]
    strict = majority_vote(lab, "strict")
    # strict: annotator 3 marks nothing certain, so two of three certain votes are needed
    expected = np.zeros((10, 10), bool)
    expected[2:6, 2:6] = True
    np.testing.assert_array_equal(strict, expected)


@pytest.mark.parametrize("raters", [1, 2, 3, 4, 5, 6])
def test_majority_against_independent_numpy(raters):
    rng = np.random.default_rng(raters)
    lab = rng.integers(0, 3, size=(raters, 17, 23)).astype(np.uint8)
    for level, marked in (("strict", lab == 1), ("relaxed", lab > 0)):
        # independent: per-pixel count of marks compared with the number needed for a majority
        need = raters // 2 + 1
        counts = np.apply_along_axis(np.count_nonzero, 0, marked)
        np.testing.assert_array_equal(majority_vote(lab, level), counts >= need)


def test_majority_tie_is_out():
    lab = np.array([[[1, 1]], [[1, 0]]], np.uint8)
    assert majority_vote(lab).tolist() == [[True, False]]


def test_staple_hand_made():
    lab = np.zeros((3, 12, 12), np.uint8)
    lab[:, 3:8, 3:8] = 1
    lab[2, 8:10, 3:8] = 1  # one annotator over-segments
    r = staple(lab)
    assert r.probability.dtype == np.float32 and r.probability.shape == (12, 12)
    assert r.mask.dtype == bool
    expected = np.zeros((12, 12), bool)
    expected[3:8, 3:8] = True
    np.testing.assert_array_equal(r.mask, expected)
    assert len(r.sensitivity) == len(r.specificity) == 3
    assert r.specificity[2] < r.specificity[0]  # the over-segmenting annotator
    assert all(s == pytest.approx(1.0, abs=1e-6) for s in r.sensitivity)
    assert np.all((r.probability >= 0) & (r.probability <= 1))


def test_staple_agrees_with_majority_on_symmetric_raters():
    lab = _three()
    r = staple(lab, "relaxed")
    assert (r.mask == majority_vote(lab, "relaxed")).mean() > 0.9


def test_staple_one_annotator():
    lab = _three()[:1]
    r = staple(lab)
    np.testing.assert_array_equal(r.mask, lab[0] > 0)
    np.testing.assert_array_equal(r.probability, (lab[0] > 0).astype(np.float32))
    assert r.sensitivity == (1.0,) and r.specificity == (1.0,)
    np.testing.assert_array_equal(majority_vote(lab), lab[0] > 0)


def test_staple_nobody_marked_anything():
    lab = np.zeros((3, 5, 5), np.uint8)
    r = staple(lab)
    assert not r.mask.any() and not r.probability.any()
    assert all(math.isnan(s) for s in r.sensitivity)
    assert r.specificity == (1.0, 1.0, 1.0)
    assert not majority_vote(lab).any()


def test_staple_everyone_identical():
    lab = np.zeros((3, 5, 5), np.uint8)
    lab[:, 1:3, 1:4] = 2
    r = staple(lab)
    np.testing.assert_array_equal(r.mask, lab[0] > 0)
    assert r.sensitivity == (1.0,) * 3 and r.specificity == (1.0,) * 3
    assert not staple(lab, "strict").mask.any()  # nothing certain
    full = staple(np.ones((2, 3, 3), np.uint8))
    assert full.mask.all() and math.isnan(full.specificity[0]) and full.sensitivity[0] == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="level"):
        majority_vote(np.zeros((2, 3, 3), np.uint8), "loose")
    with pytest.raises(ValueError, match="raters"):
        staple(np.zeros((3, 3), np.uint8))
    with pytest.raises(ValueError, match="method"):
        consensus_mask(np.zeros((2, 3, 3), np.uint8), "mean")
