"""[CrowdSegQA, §5.4] ground truth, P/R/NDCG@k per method, and the [CrowdSegQA, Fig. 6]
curves file."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from slicereview.engines.review.evaluation import BASE_METHODS as METHODS  # (by default)
from slicereview.engines.review.evaluation import (
    MethodEvaluation,
    ReviewSignal,
    evaluate_methods,
    plot_curves,
    review_relevance,
)
from slicereview.engines.review.features import ImageFeatures
from slicereview.engines.review.priority import priority

BASE = ImageFeatures(0.9, 0.9, 0.0, 0, 0.0, 10.0, math.nan, math.nan,
                     0, 0, 0, 1, 1, 1.0, 10, 100)


def test_ground_truth_rules_in_precedence_order():
    expert, comment, plain = (ReviewSignal(expert_review=True), ReviewSignal(commented=True),
                              ReviewSignal())
    reviews = {
        1: [plain, expert],            # expert review wins over a low α and a comment
        2: [comment, expert],
        3: [plain, comment],           # a comment wins over a low α
        4: [plain],                    # no comment: α decides
        5: [],
        6: [plain],
        7: [plain],
    }
    alphas = {1: 0.1, 2: 0.9, 3: 0.2, 4: 0.667, 5: 0.6670000000000001, 6: 0.67,
              7: math.nan, 8: -0.3}
    assert review_relevance(reviews, alphas) == {1: 3, 2: 3, 3: 2, 4: 1, 5: 1, 6: 0, 7: 0, 8: 1}
    # Images with reviews but no α are graded by the reviews only.
    assert review_relevance({9: [comment], 10: [plain]}, {}) == {9: 2, 10: 0}


def _batch(m: int = 12, seed: int = 0) -> tuple[dict[int, ImageFeatures], dict[int, int]]:
    rng = np.random.default_rng(seed)
    features, relevance = {}, {}
    for i in range(m):
        alpha = float(rng.uniform(-0.2, 1.0))
        n = int(rng.integers(0, 5))
        features[i] = replace(BASE, strict_alpha=alpha, relaxed_alpha=alpha + 0.05,
                              n_disagreement=int(rng.integers(0, 3)), n_low=int(rng.integers(3)),
                              n_boxes=n, wbbox=float(rng.uniform(0, 50)) * n, box_area=20 * n)
        relevance[i] = int(rng.choice([0, 0, 1, 2, 3]))
    return features, relevance


def test_evaluate_methods_matches_metrics_and_sklearn():
    from sklearn.metrics import ndcg_score

    features, relevance = _batch()
    ev = evaluate_methods(features, relevance, seed=4)
    m = len(features)
    assert ev.ks == tuple(range(1, m + 1))
    assert list(ev.rankings) == list(METHODS)
    relevant = {i for i, g in relevance.items() if g > 0}
    grades = np.array([[relevance[i] for i in range(m)]])
    for method in METHODS:
        ranked = priority(features, method, seed=4)
        assert ev.rankings[method] == tuple(ranked)
        for j, k in enumerate(ev.ks):
            hits = len(relevant & set(ranked[:k]))
            assert ev.precision[method][j] == pytest.approx(hits / k)
            assert ev.recall[method][j] == pytest.approx(hits / len(relevant))
            # sklearn's NDCG from scores that reproduce our order (no ties).
            score = np.array([[m - ranked.index(i) for i in range(m)]])
            assert ev.ndcg[method][j] == pytest.approx(ndcg_score(grades, score, k=k))
        assert ev.recall[method][-1] == 1.0 and ev.ndcg[method][-1] <= 1.0
    p, r, n = ev.row("box-score", 3)
    assert (p, r, n) == (ev.precision["box-score"][2], ev.recall["box-score"][2],
                         ev.ndcg["box-score"][2])
    assert "box-score" in ev.table(3) and "P@3" in ev.table(3)


def test_selected_methods_and_cut_offs():
    features, relevance = _batch()
    ev = evaluate_methods(features, relevance, methods=["random"], ks=[5, 1], seed=2)
    assert ev.ks == (1, 5) and list(ev.precision) == ["random"]
    with pytest.raises(ValueError):
        evaluate_methods(features, relevance, ks=[0])


def test_no_relevant_image_gives_nan_recall_and_ndcg():
    features, _ = _batch(4)
    ev = evaluate_methods(features, {}, methods=["image-sort"])
    assert ev.precision["image-sort"] == (0.0,) * 4
    assert all(math.isnan(v) for v in ev.recall["image-sort"] + ev.ndcg["image-sort"])


def test_curves_file_holds_the_computed_values(tmp_path):
    features, relevance = _batch(15)
    ev = evaluate_methods(features, relevance)
    path = tmp_path / "fig6.png"
    fig = plot_curves(ev, path)
    assert path.stat().st_size > 5_000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["P@k", "R@k", "NDCG@k"]
    for ax, values in zip(fig.axes, (ev.precision, ev.recall, ev.ndcg), strict=True):
        assert [line.get_label() for line in ax.get_lines()] == list(METHODS)
        for line, method in zip(ax.get_lines(), METHODS, strict=True):
            np.testing.assert_array_equal(line.get_xdata(), ev.ks)
            np.testing.assert_allclose(line.get_ydata(), values[method])
    svg = tmp_path / "fig6.svg"
    plot_curves(MethodEvaluation((1,), {"x": (1,)}, {"x": (1.0,)}, {"x": (math.nan,)},
                                 {"x": (math.nan,)}), svg)
    assert svg.read_text().startswith("<?xml")
