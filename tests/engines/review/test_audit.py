"""Audit slots and the queue's live estimate: the Wilson interval against statsmodels, the
slots' share and placement, members independent of the method, the stratified R@k against a
direct computation and its coverage over simulated reviews, and the degenerate cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.review.audit import (
    block_length,
    estimate,
    interleave,
    is_audit_slot,
    members,
    wilson_interval,
)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.975, 0.99])
def test_wilson_matches_statsmodels(confidence):
    from statsmodels.stats.proportion import proportion_confint

    for n in (1, 2, 5, 17, 40, 333):
        for x in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ours = wilson_interval(x, n, confidence)
            theirs = proportion_confint(x, n, alpha=1 - confidence, method="wilson")
            assert ours == pytest.approx(theirs, abs=1e-12), (x, n)


def test_wilson_degenerate_and_bad_counts():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(3, 2)


def test_one_slot_in_each_block_is_an_audit_slot():
    for share in (0.05, 0.1, 0.3, 0.5):
        size = block_length(share)
        flags = [is_audit_slot(p, share, seed=9) for p in range(size * 50)]
        per_block = [sum(flags[b * size:(b + 1) * size]) for b in range(50)]
        assert per_block == [1] * 50
        offsets = {flags[b * size:(b + 1) * size].index(True) for b in range(50)}
        assert len(offsets) > 1  # not the same place in every block
    with pytest.raises(ValueError, match="audit share"):
        block_length(0.7)


def test_queue_holds_every_image_once_and_audit_slots_show_members_in_order():
    ranked = list(range(1, 501))
    slots = interleave(ranked, 0.05, seed=2)
    assert sorted(i for i, _ in slots) == ranked
    shown = [i for i, audited in slots if audited]
    assert shown == members(ranked, 0.05, seed=2)
    # the other slots keep the method's order
    rest = [i for i, audited in slots if not audited]
    assert rest == sorted(rest)
    # while members last, the audit slots are exactly the seeded ones
    first = [audited for _, audited in slots[:200]]
    assert first == [is_audit_slot(p, 0.05, 2) for p in range(200)]


def test_members_are_a_method_free_bernoulli_sample_nested_in_the_share_and_stable():
    ranked = list(range(1, 4001))
    rng = np.random.default_rng(0)
    shuffled = [int(i) for i in rng.permutation(ranked)]
    assert set(members(ranked, 0.05, 1)) == set(members(shuffled, 0.05, 1))
    assert set(members(ranked, 0.05, 1)) <= set(members(ranked, 0.1, 1))
    assert set(members(ranked[:2000], 0.05, 1)) == {m for m in members(ranked, 0.05, 1)
                                                     if m <= 2000}
    n = len(members(ranked, 0.05, 1))
    assert abs(n - 200) < 4 * math.sqrt(4000 * 0.05 * 0.95)
    assert set(members(ranked, 0.05, 1)) != set(members(ranked, 0.05, 2))


def test_stratified_estimate_matches_a_direct_computation():
    ranked = list(range(1, 301))
    truth = {i: (i % 3 == 0) if i <= 40 else (i % 10 == 0) for i in ranked}
    mem = set(members(ranked, 0.2, seed=5))
    seen = {i: truth[i] for i in ranked if i <= 40 or i in mem}
    e = estimate(ranked, seen, 0.2, 5, k=40)
    p_top = sum(truth[i] for i in ranked[:40]) / 40
    rest = [truth[i] for i in mem if i > 40]
    p_rest = sum(rest) / len(rest)
    assert e.precision.value == pytest.approx(p_top)
    assert e.rest.value == pytest.approx(p_rest)
    assert e.recall == pytest.approx(40 * p_top / (40 * p_top + 260 * p_rest))
    base = [truth[i] for i in mem]
    assert e.base_rate.value == pytest.approx(sum(base) / len(base))
    assert e.lift == pytest.approx(p_top / (sum(base) / len(base)))
    assert e.recall_low <= e.recall <= e.recall_high


def test_recall_interval_covers_the_true_recall_over_simulated_reviews():
    """A noisy method over 600 images (60 relevant); reviewers see its top 30 and the audit
    members: the interval holds the true R@30 in at least 95 % of 200 draws."""
    rng = np.random.default_rng(11)
    covered = 0
    trials = 200
    for t in range(trials):
        relevant = rng.random(600) < 0.1
        score = relevant * 1.0 + rng.normal(0, 0.8, 600)
        ranked = [int(i) + 1 for i in np.argsort(-score, kind="stable")]
        truth = {i: bool(relevant[i - 1]) for i in ranked}
        true_recall = sum(truth[i] for i in ranked[:30]) / max(1, sum(truth.values()))
        mem = set(members(ranked, 0.1, seed=t))
        seen = {i: truth[i] for i in ranked if i in mem or i in set(ranked[:30])}
        e = estimate(ranked, seen, 0.1, t, k=30)
        covered += e.recall_low <= true_recall <= e.recall_high
    assert covered / trials >= 0.95


def test_nothing_reviewed_gives_nan_and_the_whole_interval():
    e = estimate([1, 2, 3], {}, 0.5, 0, k=2)
    assert math.isnan(e.precision.value) and math.isnan(e.base_rate.value)
    assert math.isnan(e.recall) and (e.recall_low, e.recall_high) == (0.0, 1.0)
    assert math.isnan(e.lift)
    with pytest.raises(ValueError, match="k must be"):
        estimate([1], {}, 0.5, 0, k=0)


def test_a_cut_off_past_the_queue_is_the_whole_queue():
    e = estimate([1, 2, 3, 4], {1: True, 2: False, 3: False, 4: False}, 0.5, 0, k=10)
    assert e.k == 4 and e.recall == 1.0 and (e.recall_low, e.recall_high) == (1.0, 1.0)
