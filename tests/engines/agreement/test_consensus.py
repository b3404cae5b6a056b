"""Labelbox-style consensus, following the worked statements of the method document."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.agreement import (
    Classification,
    Label,
    Shape,
    benchmark_score,
    class_consensus,
    classification_consensus,
    consensus_scores,
    label_consensus,
    pair_shapes,
    shape_consensus,
    shape_iou,
)


def C(name, kind, answer):
    return Classification(name, kind, answer)


def test_radio_and_text():
    assert classification_consensus(C("q", "radio", "a"), C("q", "radio", "a")) == 1.0
    assert classification_consensus(C("q", "radio", "a"), C("q", "radio", "b")) == 0.0
    assert classification_consensus(C("t", "text", "Test Text"), C("t", "text", "Test Text")) == 1
    assert classification_consensus(C("t", "text", "test Text"), C("t", "text", "Test Text")) == 0
    assert classification_consensus(C("t", "text", "Test Text "), C("t", "text", "Test Text")) == 0


def test_checklist_example():
    # C([1,2,3],[2,3]) == C([1,2,3],[2,3,4]) == 2/3
    a = C("c", "checklist", ["1", "2", "3"])
    assert classification_consensus(a, C("c", "checklist", ["2", "3"])) == pytest.approx(2 / 3)
    assert classification_consensus(a, C("c", "checklist", ["2", "3", "4"])) == pytest.approx(2 / 3)
    assert classification_consensus(C("c", "checklist", []), C("c", "checklist", [])) == 1.0


def test_dropdown_example():
    urban_day = C("d", "dropdown", ("Urban", "Day"))
    assert classification_consensus(urban_day, C("d", "dropdown", ("Urban", "Night"))) == 0.5
    assert classification_consensus(C("d", "dropdown", ("Rural", "Day")), urban_day) == 0.5
    assert classification_consensus(urban_day, C("d", "dropdown", ("Urban",))) == 0.5
    assert classification_consensus(urban_day, urban_day) == 1.0


def test_classification_validation():
    with pytest.raises(ValueError, match="kind"):
        C("q", "slider", "1")
    with pytest.raises(ValueError, match="sequence"):
        C("c", "checklist", "abc")
    with pytest.raises(ValueError, match="string"):
        C("q", "radio", ("a",))
    with pytest.raises(ValueError, match="radio"):
        classification_consensus(C("q", "radio", "a"), C("q", "text", "a"))


def _mask(shape, r0, c0, r1, c1):
    m = np.zeros(shape, bool)
    m[r0:r1, c0:c1] = True
    return m


def test_shape_iou_masks_boxes_mixed():
    box_a = Shape("v", (0, 0, 4, 4))
    box_b = Shape("v", (2, 2, 6, 6))
    assert shape_iou(box_a, box_b) == pytest.approx(4 / 28)
    mask_b = Shape("v", _mask((10, 10), 2, 2, 6, 6))
    assert shape_iou(box_a, mask_b) == pytest.approx(4 / 28)
    assert shape_iou(mask_b, Shape("v", _mask((10, 10), 2, 2, 6, 6))) == 1.0
    assert shape_iou(box_a, Shape("v", (5, 5, 7, 7))) == 0.0
    empty = Shape("v", np.zeros((10, 10), bool))
    assert shape_iou(empty, Shape("v", np.zeros((10, 10), bool))) == 1.0
    assert shape_iou(empty, box_a) == 0.0
    with pytest.raises(ValueError):
        Shape("v", (3, 0, 1, 2))


def test_pairing_nearest_first_with_conflicts_repaired():
    b_shapes = [Shape("v", (0, 0, 10, 10)), Shape("v", (20, 20, 30, 30))]
    # Both A shapes overlap B0 most; A1 matches B0 better, so A0 re-pairs with B1.
    a_shapes = [Shape("v", (0, 0, 10, 4)), Shape("v", (0, 0, 10, 9))]
    assert pair_shapes(a_shapes, b_shapes) == [1, 0]
    # More A shapes than B: the worst match stays unpaired.
    three = [*a_shapes, Shape("v", (0, 0, 10, 2))]
    assert pair_shapes(three, b_shapes[:1]) == [None, 0, None]
    # Disjoint shapes pair with their nearest neighbour by centroid.
    far = [Shape("v", (100, 100, 101, 101)), Shape("v", (0, 12, 1, 13))]
    assert pair_shapes(far, b_shapes) == [1, 0]
    # Both want B1 (nearest); the nearer keeps it and the other takes B0.
    both = [Shape("v", (100, 100, 101, 101)), Shape("v", (0, 40, 1, 41))]
    assert pair_shapes(both, b_shapes) == [0, 1]
    assert pair_shapes([], b_shapes) == []
    assert pair_shapes(a_shapes, []) == [None, None]


def test_pair_and_class_totals_with_nested():
    a = Shape("v", (0, 0, 10, 10), [C("calcified", "radio", "yes"), C("n", "text", "x")])
    b = Shape("v", (0, 0, 10, 5), [C("calcified", "radio", "yes")])
    # (IoU 0.5 + 1 + 0 (missing on B)) / (1 + max(2, 1))
    assert shape_consensus(a, b) == pytest.approx(1.5 / 3)
    extra = Shape("v", (50, 50, 60, 60))
    # one pair + one unpaired shape (0) over max(2, 1) shapes
    assert class_consensus([a, extra], [b]) == pytest.approx(1.5 / 3 / 2)
    assert class_consensus([], []) == 1.0


def test_label_consensus_aggregation_uses_max_counts():
    a = Label(
        [C("dense", "radio", "yes"), C("tags", "checklist", ["x", "y"])],
        [Shape("vessel", (0, 0, 10, 10)), Shape("mass", (20, 20, 30, 30))],
    )
    b = Label(
        [C("dense", "radio", "yes"), C("quality", "radio", "good")],
        [Shape("vessel", (0, 0, 10, 5))],
    )
    # globals: dense 1, tags and quality unmatched → 0; classes: vessel 0.5, mass 0
    # denominator max(2, 2) + max(2, 1) = 4
    assert label_consensus(a, b) == pytest.approx((1 + 0.5) / 4)
    assert label_consensus(Label(), Label()) == 1.0
    assert label_consensus(a, Label()) == 0.0


def test_final_consensus_and_benchmark():
    ref = Label([C("q", "radio", "a")], [Shape("v", (0, 0, 10, 10))])
    l2 = Label([C("q", "radio", "a")], [Shape("v", (0, 0, 10, 5))])
    l3 = Label([C("q", "radio", "b")], [Shape("v", (0, 0, 10, 10))])
    labels = [ref, l2, l3]
    scores = consensus_scores(labels)
    expected0 = (label_consensus(ref, l2) + label_consensus(ref, l3)) / 2
    assert scores[0] == pytest.approx(expected0)
    assert scores[0] == pytest.approx(((1 + 0.5) / 2 + (0 + 1) / 2) / 2)
    assert scores[2] == pytest.approx((label_consensus(l3, ref) + label_consensus(l3, l2)) / 2)
    assert benchmark_score(l2, ref) == pytest.approx(0.75)
    assert all(math.isnan(s) for s in consensus_scores([ref]))
    assert consensus_scores([]) == []


def test_duplicate_classification_names_rejected():
    a = Label([C("q", "radio", "a"), C("q", "radio", "b")])
    with pytest.raises(ValueError, match="twice"):
        label_consensus(a, a)
