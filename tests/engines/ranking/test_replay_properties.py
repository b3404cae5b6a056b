"""Property tests of the replay engine: any total preorder, any algorithm, a perfect oracle."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.demo.raters import SimulatedRater, run_sort
from slicereview.engines.ranking import ALGORITHMS, NeedAnswer, Ranking, Replayer, replay

preorders = st.lists(st.integers(0, 5), min_size=0, max_size=24)
algorithms = st.sampled_from(sorted(ALGORITHMS))


def _k(algorithm: str, n: int, k_draw: int) -> int | None:
    return k_draw if algorithm == "top-k" else None


@given(levels=preorders, algorithm=algorithms, k=st.integers(0, 30))
def test_perfect_oracle_gives_a_correct_ranking(levels, algorithm, k):
    truth = {f"img{i}": float(v) for i, v in enumerate(levels)}
    items = list(truth)
    run = run_sort(items, SimulatedRater(truth), algorithm, _k(algorithm, len(items), k))
    ranking = run.ranking
    ranked = ranking.order
    assert sorted(ranked + ranking.unranked) == sorted(items)
    values = [truth[i] for i in ranked]
    assert values == sorted(values, reverse=True)
    for tier in ranking.tiers:
        assert len({truth[i] for i in tier}) == 1
    if algorithm == "top-k":
        assert len(ranked) == min(k, len(items))
        if ranked and ranking.unranked:
            assert min(values) >= max(truth[i] for i in ranking.unranked)
    else:
        assert not ranking.unranked
    if algorithm == "tie-aware-merge-insertion":
        # Tiers are exactly the levels of the preorder.
        assert len(ranking.tiers) == len(set(levels))
    assert run.comparisons <= len(items) * (len(items) - 1) // 2
    assert ranking.answered == run.comparisons


@given(levels=preorders, algorithm=algorithms, cut=st.floats(0, 1))
def test_resuming_from_any_prefix_asks_the_same_next_question(levels, algorithm, cut):
    truth = {i: float(v) for i, v in enumerate(levels)}
    items = list(truth)
    run = run_sort(items, SimulatedRater(truth), algorithm)
    asked = list(run.answers.items())
    p = int(cut * len(asked))
    resumed = replay(items, dict(asked[:p]), algorithm)
    if p < len(asked):
        assert isinstance(resumed, NeedAnswer)
        assert resumed.pair == asked[p][0]
        assert resumed.answered == p
        assert resumed.estimated_total > p
    else:
        assert resumed == run.ranking


@given(levels=preorders, algorithm=algorithms, cut=st.floats(0, 1))
def test_undo_then_reanswer_is_idempotent(levels, algorithm, cut):
    truth = {i: float(v) for i, v in enumerate(levels)}
    items = list(truth)
    rater = SimulatedRater(truth)
    asked = list(run_sort(items, rater, algorithm).answers.items())
    if not asked:
        return
    p = max(1, int(cut * len(asked)))
    r = Replayer(items, dict(asked[: p - 1]), algorithm)
    before = r.result()
    (a, b), choice = asked[p - 1]
    r.add_answer(a, b, choice)
    after = r.result()
    r.remove_answer(a, b)
    assert r.result() == before
    r.add_answer(a, b, choice)
    assert r.result() == after == replay(items, dict(asked[:p]), algorithm)


def _random_answer(seed: int, a: object, b: object) -> str:
    h = hashlib.blake2b(repr((seed, min(a, b), max(a, b))).encode()).digest()[0] % 3
    answer = ("left", "right", "same")[h]
    if a > b and answer != "same":  # the same judgement whichever way round it is asked
        answer = "right" if answer == "left" else "left"
    return answer


@given(n=st.integers(0, 20), algorithm=algorithms, seed=st.integers(0, 1000))
def test_inconsistent_answers_still_terminate_with_a_partition(n, algorithm, seed):
    items = list(range(n))
    r = Replayer(items, {}, algorithm, k=5)
    for _ in range(n * n + 1):
        out = r.result()
        if isinstance(out, Ranking):
            break
        a, b = out.pair
        r.add_answer(a, b, _random_answer(seed, a, b))
    assert isinstance(out, Ranking)
    assert sorted(out.order + out.unranked) == items


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_incremental_equals_full_replay_at_every_step(algorithm):
    truth = {i: float((i * 7) % 5) for i in range(23)}
    items = list(truth)
    rater = SimulatedRater(truth, noise=0.8, seed=3)
    r = Replayer(items, {}, algorithm)
    answers: dict = {}
    while isinstance(out := r.result(), NeedAnswer):
        assert out == replay(items, answers, algorithm)
        a, b = out.pair
        answers[(b, a)] = {"left": "right", "right": "left", "same": "same"}[rater.answer(a, b)]
        r.add_answer(b, a, answers[(b, a)])  # stored the other way round: (a, b) == (b, a)
    assert out == replay(items, answers, algorithm)
