"""ActiveRanking: the opening sort, deterministic proposals, exact rebuild and undo, several
raters, ties, and the Gaussian posterior it chooses pairs from."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.ranking import ActiveRanking
from slicereview.engines.ranking.active import Answer
from slicereview.engines.ranking.bt import win_matrix
from slicereview.engines.ranking.plan import LogisticRater
from slicereview.engines.ranking.posterior import CRITERIA, Posterior
from slicereview.engines.ranking.replay import Ranking, Replayer
from slicereview.engines.ranking.schedule import shuffled


def _session(n=30, noise=0.3, answers=150, seed=3, **options):
    truth = np.random.default_rng(seed).normal(size=n)
    rater = LogisticRater(truth, noise, seed)
    r = ActiveRanking(range(n), seed=seed, **options)
    asked = []
    for _ in range(answers):
        a, b = r.next_pair()
        asked.append((a, b))
        r.add(a, b, a if rater.prefers_first(a, b) else b, rater="sim")
    return r, asked, truth


def test_opens_with_the_tie_aware_sort_and_a_consistent_rater_pays_no_more():
    items = [f"img{i}" for i in range(20)]
    truth = {item: (i * 7) % 20 for i, item in enumerate(items)}
    r = ActiveRanking(items, seed=5)
    sort = Replayer(shuffled(items, 5), {}, "tie-aware-merge-insertion")
    while r.sorting:
        pair = r.next_pair()
        question = sort.result()
        assert pair == question.pair
        a, b = pair
        winner = a if truth[a] > truth[b] else b
        r.add(a, b, winner)
        sort.add_answer(a, b, "left" if winner == a else "right")
    finished = sort.result()
    assert isinstance(finished, Ranking) and r.sort_end == finished.answered
    assert [item for item, _, _ in r.ranking()] == sorted(items, key=lambda i: -truth[i])


@pytest.mark.parametrize("criterion", CRITERIA)
def test_same_answers_same_pairs(criterion):
    _, first, _ = _session(criterion=criterion, answers=120)
    _, second, _ = _session(criterion=criterion, answers=120)
    assert first == second


@pytest.mark.parametrize("after_sort", [-40, 0, 1, 9, 10, 11, 57])
def test_rebuild_resumes_exactly(after_sort):
    """Cuts in the sort, at its end, at and between anchors (every 10 answers for n = 30)."""
    live, _, _ = _session(answers=200)
    assert live.anchor_every == 10 and live.sort_end is not None
    answers = live.answers
    cut = live.sort_end + after_sort
    partial = ActiveRanking.rebuild(range(30), answers[:cut], seed=3)
    replay = ActiveRanking(range(30), seed=3)
    for x in answers[:cut]:
        replay.add(x.a, x.b, x.winner, x.rater)
    assert partial.next_pair() == replay.next_pair()
    if replay.sort_end is not None:
        assert np.array_equal(partial.posterior().theta, replay.posterior().theta)
        assert np.array_equal(partial.posterior().sigma, replay.posterior().sigma)
    assert partial.ranking() == replay.ranking()
    again = ActiveRanking.rebuild(range(30), answers, seed=3)
    assert again.next_pair() == live.next_pair()


def test_undo_proposes_what_was_proposed_before():
    r, asked, _ = _session(answers=120)
    answers = r.answers
    for k in range(5):
        removed = r.undo()
        assert removed == answers[-1 - k]
        assert r.next_pair() == asked[-1 - k]
        assert len(r.answers) == len(answers) - 1 - k
    assert r.ranking() == ActiveRanking.rebuild(range(30), answers[:-5], seed=3).ranking()
    empty = ActiveRanking(["a", "b"])
    assert empty.undo() is None


def test_exclude_spreads_pairs_among_raters():
    r, _, _ = _session(answers=100)
    first = r.next_pair()
    second = r.next_pair(exclude=[first])
    assert frozenset(second) != frozenset(first)
    third = r.next_pair(exclude=[first, second[::-1]])
    assert frozenset(third) not in {frozenset(first), frozenset(second)}
    # During the sort too: another rater gets a pair chosen from the answers so far.
    s = ActiveRanking(range(10), seed=1)
    pair = s.next_pair()
    other = s.next_pair(exclude=[pair])
    assert frozenset(other) != frozenset(pair) and s.sorting
    # Everything excluded: still a pair.
    every = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    small = ActiveRanking(range(3))
    small.add(0, 1, 0)
    small.add(1, 2, 1)
    assert frozenset(small.next_pair(exclude=every)) in {frozenset(p) for p in every}


def test_ties_and_repeats():
    r = ActiveRanking(["a", "b", "c"], seed=0)
    for _ in range(4):
        r.add("a", "b", None)  # "equal", four times: a pair may repeat
    r.add("a", "c", "a")
    r.add("b", "c", "b")
    fit = r.fit()
    assert fit.scores["a"] == pytest.approx(fit.scores["b"])
    assert fit.comparisons["a"] == 5 and r.answers[0] == Answer("a", "b", 0.5)
    assert r.answers[0].winner is None and r.answers[-1].winner == "b"


def test_bad_input():
    r = ActiveRanking(["a", "b"])
    with pytest.raises(ValueError, match="both be items"):
        r.add("a", "z", "a")
    with pytest.raises(ValueError, match="itself"):
        r.add("a", "a", "a")
    with pytest.raises(ValueError, match="winner must be"):
        r.add("a", "b", "c")
    with pytest.raises(ValueError, match="distinct"):
        ActiveRanking(["a", "a"])
    with pytest.raises(ValueError, match="unknown criterion"):
        ActiveRanking(["a", "b"], criterion="best")
    with pytest.raises(ValueError, match="at least two"):
        ActiveRanking(["a"]).next_pair()
    assert ActiveRanking(["a"]).ranking() == [("a", 0.0, pytest.approx(math.nan, nan_ok=True))]
    with pytest.raises(ValueError, match="not about two items"):
        ActiveRanking.rebuild(["a", "b"], [Answer("a", "z", 1.0)])


def test_two_items():
    r = ActiveRanking(["x", "y"], seed=2)
    assert set(r.next_pair()) == {"x", "y"}
    r.add("x", "y", "y")
    assert not r.sorting and set(r.next_pair()) == {"x", "y"}
    assert r.ranking()[0][0] == "y"


def test_confidence_grows_with_answers():
    r, _, truth = _session(n=25, noise=0.2, answers=60)
    early = r.posterior().expected_tau()
    for _ in range(200):
        a, b = r.next_pair()
        r.add(a, b, a if truth[a] > truth[b] else b)
    late = r.posterior().expected_tau()
    assert 0.0 < early < late <= 1.0
    rank, spread = r.posterior().rank_spread()
    order = np.argsort(-r.posterior().theta)
    assert rank[order[0]] == pytest.approx(rank.min()) and np.all(spread >= 0)
    assert sorted(rank) == pytest.approx(sorted(rank)) and rank.sum() == pytest.approx(
        25 * 26 / 2)


def test_kalman_update_tracks_the_laplace_fit():
    """Answers folded in one by one end close to the Laplace fit of all of them."""
    truth = np.random.default_rng(0).normal(size=12)
    rater = LogisticRater(truth, 0.5, 0)
    rng = np.random.default_rng(1)
    rows = []
    post = Posterior.prior(12)
    for _ in range(400):
        a, b = (int(x) for x in rng.choice(12, 2, replace=False))
        s = 1.0 if rater.prefers_first(a, b) else 0.0
        rows.append((a, b, s))
        post.update(a, b, s)
    a, b, s = (np.array(c) for c in zip(*rows, strict=True))
    exact = Posterior.laplace(win_matrix(12, a, b, s))
    assert np.corrcoef(post.theta, exact.theta)[0, 1] > 0.99
    assert np.allclose(np.diag(post.sigma), np.diag(exact.sigma), rtol=0.25)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_best_pair_is_the_argmax_of_every_pair(criterion):
    """The pruned search of "misorder" gives the pair the full matrix gives."""
    r, _, _ = _session(n=40, noise=0.2, answers=400, criterion=criterion)
    post = r.posterior()
    full = np.triu(post.scores(criterion), 1)
    full[np.tril_indices(40)] = -np.inf
    assert post.best_pair(criterion) == divmod(int(np.argmax(full)), 40)
    banned = np.zeros((40, 40), dtype=bool)
    i, j = post.best_pair(criterion)
    banned[i, j] = banned[j, i] = True
    full[i, j] = -np.inf
    assert post.best_pair(criterion, banned) == divmod(int(np.argmax(full)), 40)
    # With everything all but certain, the search falls back to every pair.
    sure = Posterior(np.arange(5) * 100.0, np.eye(5) * 1e-3)
    scores = np.triu(sure.scores(criterion), 1)
    scores[np.tril_indices(5)] = -np.inf
    assert sure.best_pair(criterion) == divmod(int(np.argmax(scores)), 5)


def test_confidence_meter_raters_and_noise():
    r, _, truth = _session(n=20, noise=0.3, answers=160)
    for _ in range(40):  # a second rater, repeating pairs
        a, b = r.next_pair()
        r.add(a, b, a if truth[a] > truth[b] else b, rater="careful")
    meter = r.confidence(least=3)
    assert meter.answers == 200 and meter.per_image == 10.0
    assert meter.expected_tau == pytest.approx(r.posterior().expected_tau())
    spreads = [sd for _, _, sd in meter.least_certain]
    assert len(spreads) == 3 and spreads == sorted(spreads, reverse=True)
    _, all_spread = r.posterior().rank_spread()
    assert spreads[0] == pytest.approx(all_spread.max())
    raters = r.raters()
    assert set(raters) == {"sim", "careful"} and raters["careful"].answers == 40
    assert raters["careful"].agreement > 0.8
    noise = r.noise()
    assert noise.repeat_pairs > 0 and noise.T is not None and 0.05 < noise.T < 1.5
