"""Edge cases and exact comparison counts of the ranking algorithms."""

from __future__ import annotations

import itertools
import math

import pytest

from slicereview.demo.raters import SimulatedRater, run_sort
from slicereview.engines.ranking import (
    ALGORITHMS,
    DEFAULT,
    NeedAnswer,
    Ranking,
    algorithm_version,
    estimate_comparisons,
    replay,
)
from slicereview.engines.ranking.algorithms import _jacobsthal_order


def test_registry_and_default():
    assert set(ALGORITHMS) == {"timsort", "merge-insertion", "tie-aware-merge-insertion", "top-k"}
    assert DEFAULT == "tie-aware-merge-insertion"
    assert all(isinstance(v, int) and v >= 1 for v in ALGORITHMS.values())
    with pytest.raises(ValueError, match="unknown ranking algorithm"):
        algorithm_version("bogosort")
    with pytest.raises(ValueError):
        replay([1, 2], {}, "bogosort")


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_degenerate_inputs(algorithm):
    assert replay([], {}, algorithm) == Ranking(tiers=[])
    one = replay(["x"], {}, algorithm)
    assert isinstance(one, Ranking)
    assert one.order + one.unranked == ["x"]
    with pytest.raises(ValueError, match="distinct"):
        replay([1, 1], {}, algorithm)


def test_answers_are_symmetric_and_foreign_answers_ignored():
    a = replay([1, 2], {(1, 2): "left", (7, 8): "left"})
    b = replay([1, 2], {(2, 1): "right"})
    assert a == b == Ranking(tiers=[[1], [2]], answered=1)
    assert replay([1, 2], {(1, 2): "same"}) == Ranking(tiers=[[1, 2]], answered=1)
    with pytest.raises(ValueError, match="left, right or same"):
        replay([1, 2], {(1, 2): "up"})


def test_plain_merge_insertion_joins_only_neighbours_answered_same():
    out = replay([1, 2], {(1, 2): "same"}, "merge-insertion")
    assert out == Ranking(tiers=[[1, 2]], answered=1)


def test_jacobsthal_insertion_order():
    assert _jacobsthal_order(1) == []
    assert _jacobsthal_order(6) == [3, 2, 5, 4, 6]
    assert _jacobsthal_order(12)[:10] == [3, 2, 5, 4, 11, 10, 9, 8, 7, 6]


#: Worst-case comparisons of Ford–Johnson (OEIS A001768).
FJ_WORST = [0, 0, 1, 3, 5, 7, 10, 13]


@pytest.mark.parametrize("n", range(1, 8))
@pytest.mark.parametrize("algorithm", ["merge-insertion", "tie-aware-merge-insertion"])
def test_merge_insertion_worst_case_is_ford_johnson(n, algorithm):
    worst = 0
    for perm in itertools.permutations(range(n)):
        truth = {item: float(v) for item, v in zip(range(n), perm, strict=True)}
        run = run_sort(list(range(n)), SimulatedRater(truth), algorithm)
        assert run.ranking.order == sorted(truth, key=lambda i: -truth[i])
        worst = max(worst, run.comparisons)
    assert worst == FJ_WORST[n] == estimate_comparisons(n)
    assert worst >= math.ceil(math.log2(math.factorial(n)))


def test_all_items_the_same_takes_n_minus_one_questions_when_tie_aware():
    truth = dict.fromkeys(range(40), 1.0)
    run = run_sort(list(truth), SimulatedRater(truth))
    assert run.ranking.tiers == [list(range(40))]
    assert run.comparisons == 39


@pytest.mark.parametrize("k", [0, 1, 3, 12, 20])
def test_top_k_bounds(k):
    truth = {i: float((i * 37) % 12) for i in range(12)}
    run = run_sort(list(truth), SimulatedRater(truth), "top-k", k)
    assert len(run.ranking.order) == min(k, 12)
    assert run.ranking.order == sorted(truth, key=lambda i: -truth[i])[: min(k, 12)]


def test_need_answer_reports_progress():
    out = replay(list(range(10)), {})
    assert isinstance(out, NeedAnswer)
    assert out.answered == 0 and out.estimated_total == estimate_comparisons(10) == 22
    assert estimate_comparisons(200, "top-k", 10) == 199 + 9 * 8


def test_timsort_questions_come_from_cpython_sorted():
    from functools import cmp_to_key

    truth = {i: float((i * 13) % 17) for i in range(17)}
    asked = []

    def cmp(x, y):
        asked.append((x, y))
        return -((truth[x] > truth[y]) - (truth[x] < truth[y]))

    expected = sorted(truth, key=cmp_to_key(cmp))
    run = run_sort(list(truth), SimulatedRater(truth), "timsort")
    first_asks, seen = [], set()
    for pair in asked:  # sorted() may ask a pair twice; the replay answers repeats itself
        if frozenset(pair) not in seen:
            seen.add(frozenset(pair))
            first_asks.append(pair)
    assert list(run.answers) == first_asks
    assert run.ranking.order == expected
