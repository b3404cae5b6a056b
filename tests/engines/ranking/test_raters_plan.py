"""Per-rater reliability (Crowd-BT), the rater-noise estimate, and the planning simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from slicereview.engines.ranking.active import ActiveRanking
from slicereview.engines.ranking.plan import LogisticRater, RepeatedSort, plan, simulate
from slicereview.engines.ranking.raters import crowd_bt, estimate_noise, rater_reliability


def _answers(truth, noise, pairs, rater, seed, flip=False):
    sim = LogisticRater(truth, noise, seed)
    out = []
    for a, b in pairs:
        first = sim.prefers_first(a, b)
        out.append((a, b, 1.0 if first != flip else 0.0, rater))
    return out


def _pairs(n, m, seed):
    rng = np.random.default_rng(seed)
    return [tuple(int(x) for x in rng.choice(n, 2, replace=False)) for _ in range(m)]


def test_crowd_bt_reliability_tells_good_random_and_reversed_raters():
    n = 15
    truth = np.random.default_rng(0).normal(size=n)
    answers = (_answers(truth, 0.1, _pairs(n, 120, 1), "good1", 1)
               + _answers(truth, 0.1, _pairs(n, 120, 2), "good2", 2)
               + _answers(truth, 100.0, _pairs(n, 120, 3), "coin", 3)
               + _answers(truth, 0.1, _pairs(n, 120, 4), "reversed", 4, flip=True))
    rel = rater_reliability(range(n), answers)
    assert rel["good1"].eta > 0.8 and rel["good2"].eta > 0.8
    assert 0.3 < rel["coin"].eta < 0.7
    assert rel["reversed"].eta < 0.2 and rel["reversed"].agreement < 0.3
    assert rel["good1"].answers == 120 and rel["good1"].agreement > 0.8


def test_eta_is_the_maximum_likelihood_of_the_crowd_bt_model():
    """Checked against scipy's bounded scalar optimiser on the same likelihood."""
    n = 10
    truth = np.random.default_rng(5).normal(size=n)
    others = _answers(truth, 0.2, _pairs(n, 150, 6), "ref", 6)
    own = _answers(truth, 0.6, _pairs(n, 60, 7), "me", 7)
    own += [(0, 1, 0.5, "me"), (2, 3, 0.5, "me")]
    result = crowd_bt(range(n), others + own)
    eta, scores = result.raters["me"].eta, result.scores
    assert result.iterations < 200

    def nll(e):
        total = 0.0
        for a, b, s, _ in own:
            p = 1 / (1 + math.exp(-(scores[a] - scores[b])))
            total -= s * math.log(e * p + (1 - e) * (1 - p))
            total -= (1 - s) * math.log(e * (1 - p) + (1 - e) * p)
        return total

    ref = minimize_scalar(nll, bounds=(1e-9, 1 - 1e-9), method="bounded",
                          options={"xatol": 1e-10}).x
    assert eta == pytest.approx(ref, abs=1e-5)


def test_one_rater_and_no_answers():
    rel = rater_reliability(["a", "b"], [("a", "b", 1.0, None)])
    assert rel[None].answers == 1 and rel[None].eta > 0.5
    assert rater_reliability(["a", "b"], []) == {}
    assert crowd_bt(["a"], [("a", "b", 1.0, "x")]).scores == {"a": 0.0}


@pytest.mark.parametrize("noise", [0.15, 0.5])
def test_noise_estimate_from_repeats_and_triads(noise):
    n = 40
    truth = np.random.default_rng(11).normal(size=n)
    truth = (truth - truth.mean()) / truth.std()
    everything = [(a, b) for a in range(n) for b in range(a + 1, n)]
    answers = _answers(truth, noise, everything * 2, "ann", 12)
    est = estimate_noise(range(n), answers)
    assert est.repeat_pairs == len(everything) and est.triads == n * (n - 1) * (n - 2) // 6
    assert est.intransitive > 0 and not est.bound
    assert pytest.approx(noise, rel=0.25) == est.T


def test_noise_needs_contradictions_to_be_measured():
    items = list(range(12))
    # A sort never shows noise: no repeats, no intransitive triad possible.
    r = ActiveRanking(items, seed=2)
    while r.sorting:
        a, b = r.next_pair()
        r.add(a, b, max(a, b))
    est = estimate_noise(items, [(x.a, x.b, x.s, None) for x in r.answers])
    assert est.repeat_pairs == 0 and est.intransitive == 0
    assert est.T is None or est.bound
    # A perfectly consistent exhaustive session: only an upper guess.
    perfect = [(a, b, 1.0, None) for a in items for b in items if a > b]
    consistent = estimate_noise(items, perfect)
    assert consistent.bound and consistent.T is not None and consistent.intransitive == 0
    assert estimate_noise(items, []).T is None


def test_simulation_is_seeded_and_improves_with_answers():
    first = simulate(20, 0.3, per_image=(3, 6), seeds=2)
    assert first == simulate(20, 0.3, per_image=(3, 6), seeds=2)
    assert first.tau[1] > first.tau[0] and len(first.taus) == 2
    assert 0 < first.expected_tau[0] < 1 and first.sort_answers > 0
    base = simulate(20, 0.3, per_image=(6,), seeds=2, method="resort")
    assert math.isnan(base.expected_tau[0]) and 0 < base.tau[0] < 1
    with pytest.raises(ValueError, match="unknown method"):
        simulate(20, 0.3, method="guess")
    with pytest.raises(ValueError, match="noise"):
        LogisticRater([0.0, 1.0], 0.0)


def test_repeated_sort_starts_a_new_pass():
    r = RepeatedSort(range(6), seed=1)
    for _ in range(40):
        a, b = r.next_pair()
        r.add(a, b, max(a, b))
    assert r.passes >= 2 and [i for i, _, _ in r.fit().ranked()] == [5, 4, 3, 2, 1, 0]


def test_plan():
    easy = plan(15, 0.15, target=0.6, max_per_image=6, seeds=2)
    assert easy.per_image is not None and easy.comparisons == round(easy.per_image * 15)
    assert easy.simulation.tau[int(easy.per_image) - 1] >= 0.6
    # It stops at the budget found: the curve is the simulation's up to there.
    assert easy.simulation.per_image[-1] == easy.per_image
    same = simulate(15, 0.15, per_image=easy.simulation.per_image, seeds=2)
    assert same.tau == easy.simulation.tau
    assert all(t < 0.6 for t in easy.simulation.tau[:-1]) or len(easy.simulation.tau) == 1
    never = plan(15, 0.5, target=0.999, max_per_image=3, seeds=1)
    assert never.per_image is None and never.comparisons is None
    assert never.simulation.per_image == (1.0, 2.0, 3.0)
    for bad in ({"target": 1.0}, {"target": 0.0}, {"seeds": 0}):
        with pytest.raises(ValueError):
            plan(15, 0.5, **{"target": 0.9, **bad})


def test_crowd_bt_sparse_steps_give_the_dense_fit(monkeypatch):
    """Crowd-BT's M-steps switch to sparse solves at SPARSE_FROM items: the same fit."""
    from slicereview.engines.ranking import raters as engine

    rng = np.random.default_rng(3)
    truth = rng.normal(size=60)
    answers = []
    for k in range(600):
        a, b = (int(x) for x in rng.choice(60, 2, replace=False))
        good = 1.0 / (1.0 + np.exp(-(truth[a] - truth[b])))
        answers.append((a, b, float(rng.random() < good), "r1" if k % 3 else "r2"))
    dense = engine.crowd_bt(range(60), answers)
    monkeypatch.setattr(engine, "SPARSE_FROM", 2)
    sparse = engine.crowd_bt(range(60), answers)
    assert np.allclose([sparse.scores[i] for i in range(60)],
                       [dense.scores[i] for i in range(60)], atol=1e-6)
    assert abs(sparse.raters["r1"].eta - dense.raters["r1"].eta) < 1e-6
