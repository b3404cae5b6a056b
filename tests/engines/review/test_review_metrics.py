"""P@k, R@k, NDCG@k against the published cases and scikit-learn."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from slicereview.engines.review import dcg, ndcg_at_k, precision_at_k, recall_at_k

CASES = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json")
    .read_text()
)["cases"]
NDCG = next(c for c in CASES if c["statistic"] == "DCG/NDCG")
PRK = next(c for c in CASES if c["statistic"] == "P@k, R@k")


def test_published_precision_recall_at_k():
    ranked, relevant = PRK["inputs"]["ranked"], PRK["inputs"]["relevant"]
    for key, expected in PRK["expected"].items():
        metric, k = key.split("@")
        fn = precision_at_k if metric == "P" else recall_at_k
        assert fn(ranked, set(relevant), int(k)) == pytest.approx(expected, abs=PRK["tolerance"])


def test_published_ndcg_case():
    from sklearn.metrics import ndcg_score

    grades = NDCG["inputs"]["relevance_in_ranked_order"]
    exp = NDCG["expected"]
    tol = NDCG["tolerance"]
    ranked = list(range(len(grades)))
    relevance = dict(enumerate(grades))
    assert dcg(grades) == pytest.approx(exp["DCG6_linear"], abs=tol)
    assert dcg(sorted(grades, reverse=True)) == pytest.approx(exp["IDCG6_linear"], abs=tol)
    assert dcg(grades, gain="exponential") == pytest.approx(exp["DCG6_exp"], abs=tol)
    assert dcg(sorted(grades, reverse=True), gain="exponential") == pytest.approx(
        exp["IDCG6_exp"], abs=tol)
    assert ndcg_at_k(ranked, relevance) == pytest.approx(exp["nDCG6_linear"], abs=tol)
    assert ndcg_at_k(ranked, relevance, 6) == pytest.approx(exp["nDCG6_linear"], abs=tol)
    assert ndcg_at_k(ranked, relevance, 3) == pytest.approx(exp["nDCG3_linear"], abs=tol)
    assert ndcg_at_k(ranked, relevance, gain="exponential") == pytest.approx(
        exp["nDCG6_exp"], abs=tol)
    assert ndcg_at_k(ranked, relevance, 3, "exponential") == pytest.approx(
        exp["nDCG3_exp"], abs=tol)
    scores = [[len(grades) - i for i in range(len(grades))]]
    assert ndcg_score([grades], scores) == pytest.approx(exp["sklearn_ndcg_full"], abs=tol)
    assert ndcg_score([grades], scores, k=3) == pytest.approx(exp["sklearn_ndcg_k3"], abs=tol)


def test_ndcg_equals_sklearn_on_random_rankings():
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(2)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        grades = rng.integers(0, 4, n)
        if grades.sum() == 0:
            grades[0] = 1
        scores = rng.permutation(n).astype(float)  # no ties: sklearn's tie averaging unused
        ranked = list(np.argsort(-scores))
        relevance = dict(enumerate(grades.tolist()))
        for k in (1, 3, n):
            assert ndcg_at_k(ranked, relevance, k) == pytest.approx(
                ndcg_score([grades], [scores], k=k), rel=1e-12)


def test_precision_recall_against_sklearn_definitions():
    from sklearn.metrics import precision_score, recall_score

    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(5, 30))
        truth = rng.random(n) < 0.4
        if not truth.any():
            truth[0] = True
        ranked = list(rng.permutation(n))
        k = int(rng.integers(1, n + 1))
        predicted = np.zeros(n, bool)
        predicted[ranked[:k]] = True
        relevant = set(np.flatnonzero(truth).tolist())
        assert precision_at_k(ranked, relevant, k) == pytest.approx(
            precision_score(truth, predicted))
        assert recall_at_k(ranked, relevant, k) == pytest.approx(recall_score(truth, predicted))


def test_conventions():
    assert precision_at_k(["a"], {"a"}, 5) == 0.2  # divides by k
    assert math.isnan(recall_at_k(["a"], set(), 1))
    assert math.isnan(ndcg_at_k(["a", "b"], {"a": 0, "b": 0}))
    # Unranked relevant items lower the ideal-normalised score.
    assert ndcg_at_k(["a"], {"a": 1, "z": 3}) < 1.0
    # Graded relevance with a threshold for P@k / R@k.
    grades = {"a": 3, "b": 1, "c": 2}
    assert precision_at_k(["a", "b", "c"], grades, 3, min_grade=2) == pytest.approx(2 / 3)
    assert recall_at_k(["b", "a"], grades, 2, min_grade=2) == 0.5
    with pytest.raises(ValueError):
        precision_at_k(["a"], {"a"}, 0)
    with pytest.raises(ValueError):
        dcg([1, 2], gain="cubic")
