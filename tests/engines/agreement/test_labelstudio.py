"""Label Studio-style task agreement against the worked examples of its documentation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from slicereview.engines.agreement import (
    Shape,
    agreement_matrix,
    choices_agreement,
    iou_threshold_agreement,
    match_regions,
    precision_recall_f1,
    span_iou,
    task_agreement,
)

CASES = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json")
    .read_text()
)["cases"]
GROUPING = next(c for c in CASES if c["name"] == "label_studio_task_agreement_threshold_grouping")
PRF = next(c for c in CASES if c["name"] == "label_studio_precision_recall_f1_at_iou")


def _span_metric(x, y):
    """Word-span IoU when the labels agree, else 0 (the documentation's example metric)."""
    return span_iou(x[:2], y[:2]) if x[2] == y[2] else 0.0


# "Excellent tool" / positive, "tool" / positive, "tool" / negative as word spans [start, end)
ANNOTATIONS = [(0, 2, "positive"), (1, 2, "positive"), (1, 2, "negative")]


def test_published_threshold_grouping_example():
    inp = GROUPING["inputs"]
    assert _span_metric(ANNOTATIONS[0], ANNOTATIONS[1]) == inp["pair_scores"]["(1,2)"]
    assert _span_metric(ANNOTATIONS[1], ANNOTATIONS[2]) == inp["pair_scores"]["(2,3)"]
    got = task_agreement(ANNOTATIONS, _span_metric, threshold=inp["grouping_threshold"])
    assert got == pytest.approx(GROUPING["expected"]["task_agreement"], abs=GROUPING["tolerance"])


def test_default_is_mean_of_pairwise_scores():
    assert task_agreement(ANNOTATIONS, _span_metric) == pytest.approx(0.5 / 3)
    assert math.isnan(task_agreement(ANNOTATIONS[:1], _span_metric))
    # Two groups of two that disagree with each other: the largest group holds half.
    same = [(0, 1, "a"), (0, 1, "a"), (5, 6, "a"), (5, 6, "a")]
    assert task_agreement(same, _span_metric, threshold=0.5) == 0.5


def test_published_precision_recall_f1_example():
    pairs = [(p["iou"], *p["labels"]) for p in PRF["inputs"]["pairs"]]
    r = precision_recall_f1(pairs, PRF["inputs"]["threshold"])
    exp = PRF["expected"]
    assert (r.tp, r.fp, r.fn) == (exp["TP"], exp["FP"], exp["FN"])
    assert r.precision == pytest.approx(exp["precision"], abs=1e-12)
    assert r.recall == pytest.approx(exp["recall"], abs=1e-12)
    assert r.f1 == pytest.approx(exp["f1"], abs=1e-12)


def test_precision_recall_conventions():
    assert precision_recall_f1([]).f1 == 1.0
    none = precision_recall_f1([(0.1, "a", "b")])
    assert (none.precision, none.recall, none.f1) == (0.0, 0.0, 0.0)
    assert precision_recall_f1([(0.5, "a", "a")], threshold=0.5).tp == 1  # ≥ threshold


def test_iou_threshold_and_span_examples():
    assert iou_threshold_agreement([0.99, 0.34, 0.82], 0.5) == pytest.approx(2 / 3)
    assert iou_threshold_agreement([]) == 1.0
    assert span_iou((0, 20), (10, 30)) == pytest.approx(1 / 3)
    assert span_iou((3, 3), (3, 3)) == 1.0
    with pytest.raises(ValueError):
        span_iou((5, 1), (0, 1))


def test_choices_exact_matching_examples():
    x = {"choices1": "A", "choices2": "B"}
    assert choices_agreement(x, {"choices1": "A", "choices2": "B"}) == 1.0
    assert choices_agreement(x, {"choices1": "A", "choices2": "C"}) == 0.5
    assert choices_agreement(x, {"choices1": "C", "choices2": "D"}) == 0.0
    y = {"choices1": "A", "choices2": "C", "choices3": None}
    assert choices_agreement({**x, "choices3": None}, y) == pytest.approx(2 / 3)
    assert choices_agreement({}, {}) == 1.0


def test_match_regions_keeps_max_iou():
    x = [Shape("Car", (0, 0, 10, 10)), Shape("Car", (50, 50, 60, 60))]
    y = [Shape("Airplane", (0, 0, 10, 9)), Shape("Car", (0, 0, 10, 5))]
    pairs = match_regions(x, y)
    assert pairs[0] == (pytest.approx(0.9), "Car", "Airplane")
    assert pairs[1] == (0.0, "Car", "Airplane")  # no overlap: first region, IoU 0
    assert match_regions(x, []) == [(0.0, "Car", None), (0.0, "Car", None)]


def test_agreement_matrix():
    same = lambda x, y: float(x == y)  # noqa: E731
    data = {"a": {1: "x", 2: "y", 3: "z"}, "b": {1: "x", 2: "q"}, "c": {9: "x"}}
    names, m = agreement_matrix(data, same)
    assert names == ["a", "b", "c"]
    assert m[0, 1] == m[1, 0] == 0.5
    assert np.isnan(m[0, 2]) and np.isnan(m[1, 2])
    assert np.all(np.diag(m) == 1.0)
