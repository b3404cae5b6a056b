"""Reliability between sessions, checked against scipy and pingouin."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.ranking import Ranking
from slicereview.engines.ranking.reliability import (
    SessionScores,
    TimeStats,
    format_report,
    reliability,
    scores_from_ranking,
    time_stats,
)

T = time_stats([])


def _s(sid, scores, kind="sort"):
    return SessionScores(sid, f"s{sid}", f"r{sid}", kind, dict(scores), T)


def test_time_stats_flag_outliers_without_dropping_them():
    t = time_stats([1000, 2000, 4000, 21000, 60000])
    assert (t.count, t.outliers) == (5, 2)
    assert t.mean_s == pytest.approx(7 / 3) and t.median_s == 2.0 and t.total_s == 88.0
    empty = time_stats([])
    assert empty.count == 0 and math.isnan(empty.mean_s) and empty.total_s == 0


def test_strict_rankings_match_scipy_and_pingouin():
    import pandas as pd
    import pingouin
    from scipy import stats

    rng = np.random.default_rng(1)
    n = 30
    a = rng.permutation(n).astype(float)
    b = a + rng.normal(0, 6, n)
    c = a + rng.normal(0, 9, n)
    sessions = [_s(i + 1, dict(enumerate(x))) for i, x in enumerate((a, b, c))]
    r = reliability(sessions)
    assert r.randomisations == 1 and r.n_images == n  # no ties: nothing to randomise
    p = r.pairs[0]
    ra, rb = stats.rankdata(-a), stats.rankdata(-b)
    assert p.pearson == pytest.approx(stats.pearsonr(a, b)[0])
    assert p.spearman == pytest.approx(stats.spearmanr(a, b)[0])
    assert p.kendall_tau_b == pytest.approx(stats.kendalltau(a, b)[0])
    long = pd.DataFrame({"target": np.tile(np.arange(n), 2), "rater": np.repeat([0, 1], n),
                         "score": np.concatenate([ra, rb])})
    icc = pingouin.intraclass_corr(long, "target", "rater", "score").set_index("Type")
    assert p.icc2k == pytest.approx(icc.loc["ICC(A,k)", "ICC"])
    top5 = len(set(np.argsort(-a)[:5]) & set(np.argsort(-b)[:5]))
    assert p.top_n[5] == top5 and set(p.top_n) == set(range(2, 26))
    all3 = [set(np.argsort(-x)[:10]) for x in (a, b, c)]
    assert r.top_n_all[10] == len(all3[0] & all3[1] & all3[2])
    assert len(r.pairs) == 3 and "ICC(2,k)" in format_report(r)


def test_ties_are_broken_randomly_and_averaged():
    n = 8
    tied = _s(1, dict.fromkeys(range(n), 0.0), "classify")
    strict = _s(2, {i: float(i) for i in range(n)})
    r = reliability([tied, strict], randomisations=400, seed=3)
    assert r.randomisations == 400
    # A random ranking against a fixed one: expected top-N overlap N*N/n, correlations ~0.
    assert r.pairs[0].top_n[4] == pytest.approx(4 * 4 / n, abs=0.15)
    assert abs(r.pairs[0].spearman) < 0.1 and abs(r.pairs[0].kendall_tau_b) < 0.1
    assert math.isnan(r.pairs[0].pearson)  # a constant score has no variance
    same = reliability([strict, _s(3, {i: float(i) for i in range(n)})])
    assert same.pairs[0].spearman == pytest.approx(1.0)
    assert same.pairs[0].kendall_tau_b == pytest.approx(1.0)
    assert same.pairs[0].icc2k == pytest.approx(1.0) and same.pairs[0].top_n[3] == 3


def test_degenerate_inputs():
    with pytest.raises(ValueError, match="at least two"):
        reliability([_s(1, {1: 1.0})])
    r = reliability([_s(1, {1: 1.0, 2: 0.0}), _s(2, {2: 1.0, 1: 0.0, 9: 3.0})])
    assert r.n_images == 2 and math.isnan(r.pairs[0].spearman) and math.isnan(r.icc2k)
    assert r.pairs[0].top_n == {2: 2.0}


def test_scores_from_ranking_put_unranked_last():
    s = scores_from_ranking(Ranking(tiers=[["a"], ["b", "c"]], unranked=["d"]))
    assert s == {"a": 0.0, "b": -1.0, "c": -1.0, "d": -2.0}


def test_tie_breaks_do_not_depend_on_the_order_sessions_and_images_arrive():
    """The GUI and the CLI build the same sessions in different orders (the GUI's scores
    follow answering order, the CLI's the file's order): the report must be the same."""
    rng = np.random.default_rng(3)
    t = TimeStats(0, float("nan"), float("nan"), 0, 0.0)
    grades = {i: int(rng.integers(0, 4)) for i in range(1, 41)}
    tiers = {i: int(rng.integers(0, 8)) for i in range(1, 41)}
    a = SessionScores(4, "A", "ann", "classify", {i: float(g) for i, g in grades.items()}, t)
    b = SessionScores(7, "B", "bob", "sort", {i: -float(v) for i, v in tiers.items()}, t)
    shuffled = dict(reversed(list(b.scores.items())))
    b2 = SessionScores(7, "B", "bob", "sort", shuffled, t)
    one = reliability([a, b], randomisations=20)
    other = reliability([b2, a], randomisations=20)
    assert one.pairs[0].kendall_tau_b == other.pairs[0].kendall_tau_b
    assert one.pairs[0].spearman == other.pairs[0].spearman
    assert one.icc2k == other.icc2k
