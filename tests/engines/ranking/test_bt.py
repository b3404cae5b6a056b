"""Bradley–Terry scores and standard errors (engines.ranking.bt), checked against choix (the
scores) and a statsmodels logistic regression (the standard errors), plus the degenerate cases
documented in the module."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.ranking.bt import BT_ALPHA, Z95, fit, outcomes, precision


def _random_answers(n: int, m: int, seed: int, ties: float = 0.0):
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    rows = []
    for _ in range(m):
        a, b = (int(x) for x in rng.choice(n, 2, replace=False))
        if rng.random() < ties:
            rows.append((a, b, 0.5))
        else:
            p = 1 / (1 + math.exp(-(truth[a] - truth[b])))
            rows.append((a, b, 1.0 if rng.random() < p else 0.0))
    return rows


def _choix_data(rows):
    """choix data for the same objective: decided answers twice, a tie once each way (so the
    likelihood is doubled; choix's alpha must then be doubled too)."""
    data = []
    for a, b, s in rows:
        if s == 1.0:
            data += [(a, b), (a, b)]
        elif s == 0.0:
            data += [(b, a), (b, a)]
        else:
            data += [(a, b), (b, a)]
    return data


@pytest.mark.parametrize("ties", [0.0, 0.3])
def test_scores_equal_choix_opt_pairwise(ties):
    import choix

    rows = _random_answers(12, 150, seed=3, ties=ties)
    f = fit(range(12), rows)
    ref = choix.opt_pairwise(12, _choix_data(rows), alpha=2 * BT_ALPHA, tol=1e-10)
    assert np.allclose([f.scores[i] for i in range(12)], ref - ref.mean(), atol=1e-5)


def _statsmodels_cov(rows, n):
    """Covariance of centred scores from an unpenalised binomial GLM (reference coding, item 0
    dropped), an independent computation of the maximum-likelihood standard errors."""
    import statsmodels.api as sm

    x = np.zeros((len(rows), n))
    y = np.zeros(len(rows))
    for k, (a, b, s) in enumerate(rows):
        x[k, a], x[k, b], y[k] = 1.0, -1.0, s
    res = sm.GLM(y, x[:, 1:], family=sm.families.Binomial()).fit()
    embed = np.zeros((n, n - 1))
    embed[1:, :] = np.eye(n - 1)
    centre = np.eye(n) - 1.0 / n
    beta = centre @ embed @ res.params
    return beta, centre @ embed @ res.cov_params() @ embed.T @ centre


@pytest.mark.parametrize("ties", [0.0, 0.25])
def test_standard_errors_equal_statsmodels_logistic_regression(ties):
    rows = _random_answers(8, 400, seed=11, ties=ties)
    f = fit(range(8), rows, alpha=1e-9, covariance=True)
    beta, cov = _statsmodels_cov(rows, 8)
    assert np.allclose([f.scores[i] for i in range(8)], beta, atol=1e-5)
    assert np.allclose([f.se[i] for i in range(8)], np.sqrt(np.diag(cov)), rtol=1e-5)
    assert np.allclose(f.covariance, cov, atol=1e-7)


def test_default_penalty_standard_errors_are_the_penalised_hessian_of_choix():
    """At the default α the SE comes from choix's own Hessian of its objective (an independent
    implementation of the same second derivatives), centred."""
    import choix

    rows = _random_answers(10, 120, seed=5)
    f = fit(range(10), rows, covariance=True)
    theta = np.array([f.scores[i] for i in range(10)])
    fcts = choix.opt.PairwiseFcts(_choix_data(rows), 2 * BT_ALPHA)
    sigma = np.linalg.inv(fcts.hessian(theta) / 2)  # the doubled objective's Hessian, halved
    centre = np.eye(10) - 0.1
    assert np.allclose(f.covariance, centre @ sigma @ centre, atol=1e-9)
    w = np.zeros((10, 10))
    for a, b, s in rows:
        w[a, b] += s
        w[b, a] += 1 - s
    assert np.allclose(precision(w, theta, BT_ALPHA), fcts.hessian(theta) / 2)


def test_interval_and_ranked():
    rows = _random_answers(6, 200, seed=2)
    f = fit(list("abcdef"), [("abcdef"[a], "abcdef"[b], s) for a, b, s in rows])
    lo, hi = f.interval("a")
    assert hi - lo == pytest.approx(2 * Z95 * f.se["a"])
    scores = [s for _, s, _ in f.ranked()]
    assert scores == sorted(scores, reverse=True)
    assert sum(f.comparisons.values()) == 400 and sum(f.wins.values()) == 200
    assert "Bradley–Terry" in f.method and "0.01" in f.method


def test_no_answers_and_one_item():
    f = fit(["a", "b"], [])
    assert f.scores == {"a": 0.0, "b": 0.0} and all(math.isnan(v) for v in f.se.values())
    f = fit(["a"], [("a", "b", 1.0)])
    assert f.scores == {"a": 0.0} and math.isnan(f.se["a"])
    assert fit(["a", "b"], [("a", "a", 1.0)]).comparisons == {"a": 0, "b": 0}


def test_one_answer():
    f = fit(["a", "b", "c"], [("a", "b", 1.0)])
    assert f.scores["a"] == pytest.approx(-f.scores["b"]) and f.scores["a"] > 0
    assert f.se["a"] == pytest.approx(f.se["b"]) and f.se["a"] > 1.0
    assert f.scores["c"] == 0.0 and math.isnan(f.se["c"]) and f.comparisons["c"] == 0


def test_an_image_that_won_everything_is_finite_with_the_widest_interval():
    rows = [r for r in _random_answers(8, 300, seed=7) if 0 not in r[:2]]
    rows += [(0, k, 1.0) for k in range(1, 8) for _ in range(3)]
    f = fit(range(8), rows)
    assert math.isfinite(f.scores[0]) and f.scores[0] == max(f.scores.values())
    assert f.se[0] == max(f.se.values()) and math.isfinite(f.se[0])
    # ... and one that lost everything, the mirror image.
    g = fit(range(8), [(a, b, 1.0 - s) for a, b, s in rows])
    assert g.scores[0] == pytest.approx(-f.scores[0], abs=1e-6)
    assert g.se[0] == pytest.approx(f.se[0])


def test_ties_only():
    rows = [(a, b, 0.5) for a in range(4) for b in range(a + 1, 4)]
    f = fit(range(4), rows)
    assert all(abs(v) < 1e-9 for v in f.scores.values())
    assert all(0 < v < 10 for v in f.se.values())
    assert len(set(round(v, 12) for v in f.se.values())) == 1


def test_two_groups_never_compared_have_large_errors():
    within = [(0, 1, 1.0), (1, 0, 0.0), (2, 3, 1.0), (3, 2, 1.0)] * 5
    linked = within + [(1, 2, 1.0), (2, 1, 0.0)] * 5
    apart, together = fit(range(4), within), fit(range(4), linked)
    assert all(apart.se[i] > 1.5 * together.se[i] for i in range(4))


def test_outcomes_and_bad_choice():
    assert outcomes([{("a", "b"): "left"}]) == [("a", "b", 1.0)]
    with pytest.raises(ValueError, match="left, right or same"):
        outcomes([{("a", "b"): "up"}])
    with pytest.raises(ValueError, match="alpha"):
        fit(["a", "b"], [], alpha=0)
    with pytest.raises(ValueError, match="distinct"):
        fit(["a", "a"], [])


def test_sparse_newton_finds_the_dense_optimum_and_large_fits_skip_the_covariance():
    """From SPARSE_FROM items the steps are sparse solves: the same MAP as the dense Newton
    (ties included); above DENSE_LIMIT the scores are fitted and the SEs are NaN."""
    from slicereview.engines.ranking import bt

    n = bt.SPARSE_FROM + 50
    rows = np.array(_random_answers(n, 6 * n, seed=5, ties=0.1))
    a, b, s = rows[:, 0].astype(int), rows[:, 1].astype(int), rows[:, 2]
    dense = bt.newton_map(bt.win_matrix(n, a, b, s), BT_ALPHA)
    assert np.allclose(bt.map_scores(n, a, b, s, BT_ALPHA), dense, atol=1e-8)
    big = bt.DENSE_LIMIT + 1
    chain = [(k, k + 1, 1.0) for k in range(big - 1)] + [(0, big - 1, 0.5)]
    f = fit(range(big), chain)
    assert all(math.isnan(e) for e in f.se.values())
    assert [i for i, _, _ in f.ranked()][:3] == [0, 1, 2]
    assert abs(sum(f.scores.values())) < 1e-6
