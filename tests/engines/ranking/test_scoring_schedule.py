"""Scores (win-loss, Bradley–Terry), tiers, and the seeded schedules."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.engines.ranking.schedule import (
    exhaustive_schedule,
    next_unanswered,
    placement,
    presentation_order,
    shuffled,
)
from slicereview.engines.ranking.scoring import (
    bradley_terry,
    competition_ranks,
    tiers_from_scores,
    win_loss_scores,
)


def test_win_loss_counts():
    answers = {(1, 2): "left", (3, 1): "right", (2, 3): "same", (1, 9): "left"}
    assert win_loss_scores([1, 2, 3], answers) == {1: 2, 2: -1, 3: -1}


def test_bradley_terry_matches_choix_and_pools_passes():
    import choix

    items = ["a", "b", "c", "d"]
    one = {("a", "b"): "left", ("b", "c"): "left", ("c", "d"): "same", ("d", "a"): "right"}
    s = bradley_terry(items, [one])
    # A "same" is half a win each way: choix's likelihood doubled (decided answers twice, the
    # tie once each way) with a doubled penalty has the same maximum.
    data = [(0, 1), (0, 1), (1, 2), (1, 2), (2, 3), (3, 2), (0, 3), (0, 3)]
    ref = choix.opt_pairwise(4, data, alpha=0.02, tol=1e-10)
    assert np.allclose([s[i] for i in items], ref - ref.mean(), atol=1e-6)
    assert s["a"] > s["b"] > max(s["c"], s["d"])
    assert sum(s.values()) == pytest.approx(0.0, abs=1e-9)
    # A second pass that disagrees on (a, b) pulls them together.
    two = bradley_terry(items, [one, {("b", "a"): "left"}])
    assert two["a"] - two["b"] < s["a"] - s["b"]
    assert bradley_terry(items, []) == dict.fromkeys(items, 0.0)
    assert bradley_terry(["x"], [one]) == {"x": 0.0}


def test_perfectly_consistent_sparse_answers_give_finite_ordered_scores():
    items = list(range(20))
    chain = {(i, i + 1): "left" for i in range(19)}
    s = bradley_terry(items, [chain])
    assert all(np.isfinite(list(s.values())))
    assert [s[i] for i in items] == sorted(s.values(), reverse=True)


def test_tiers_and_competition_ranks():
    tiers = tiers_from_scores({1: 0.5, 2: 2.0, 3: 0.5, 4: -1.0})
    assert tiers == [[2], [1, 3], [4]]
    assert competition_ranks(tiers) == {2: 1, 1: 2, 3: 2, 4: 4}
    assert tiers_from_scores({}) == []


def test_schedules_are_seeded_and_complete():
    items = list(range(1, 21))
    assert shuffled(items, 5) == shuffled(list(reversed(items)), 5) != shuffled(items, 6)
    sched = exhaustive_schedule(items, seed=9)
    assert len(sched) == 190 and len({frozenset(p) for p in sched}) == 190
    assert sched == exhaustive_schedule(items, seed=9) != exhaustive_schedule(items, seed=10)
    lefts = sum(left < right for left, right in sched)
    assert 70 < lefts < 120  # about half the pairs show the higher id on the left
    assert all(placement(9, *p) == p for p in sched)
    done = {frozenset(p) for p in sched[:5]}
    assert next_unanswered(sched, done) == 5
    assert next_unanswered(sched, {frozenset(p) for p in sched}) is None


def test_presentation_order_keeps_the_first_images_when_more_are_added():
    first = presentation_order(list(range(10)), seed=3)
    assert sorted(first) == list(range(10)) and first != list(range(10))
    more = presentation_order(list(range(14)), seed=3, initial_count=10)
    assert more[:10] == first and sorted(more[10:]) == [10, 11, 12, 13]
