"""The cluster bootstrap of two arms (slicereview.engines.agreement.arms) against an
independent computation: scipy.stats.bootstrap (percentile method) of the per-image
differences, which equal the pooled statistic when every image has one value in each arm;
and its degenerate cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.agreement.arms import compare_arms


def _paired(n: int, shift: float, seed: int) -> tuple[list, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.4, 0.8, n)  # (images differ: a cluster effect)
    shown = np.clip(base + shift + rng.normal(0, 0.08, n), 0, 1)
    not_shown = np.clip(base + rng.normal(0, 0.08, n), 0, 1)
    values = [(i, True, s) for i, s in enumerate(shown)] + \
             [(i, False, v) for i, v in enumerate(not_shown)]
    return values, shown - not_shown


@pytest.mark.parametrize("n,shift,seed", [(30, 0.1, 1), (80, 0.0, 2), (12, 0.3, 3)])
def test_the_interval_matches_scipys_percentile_bootstrap_of_the_paired_differences(
        n, shift, seed):
    from scipy import stats

    values, d = _paired(n, shift, seed)
    ours = compare_arms(values, resamples=20000, seed=seed)
    theirs = stats.bootstrap((d,), np.mean, method="percentile", n_resamples=20000,
                             confidence_level=0.95, random_state=seed + 100)
    assert ours.difference == pytest.approx(float(d.mean()), abs=1e-12)
    se = float(d.std(ddof=1) / math.sqrt(n))
    # (two Monte Carlo runs of the same interval: their endpoints differ by a small part of
    # the standard error)
    assert ours.low == pytest.approx(theirs.confidence_interval.low, abs=0.12 * se)
    assert ours.high == pytest.approx(theirs.confidence_interval.high, abs=0.12 * se)
    # and both are near the normal interval for these sizes
    assert ours.high - ours.low == pytest.approx(2 * 1.96 * se, rel=0.25)


def test_the_gap_statistic_is_the_share_closed():
    values = [(0, True, 1.0), (0, False, 0.5), (1, True, 0.75), (1, False, 0.5)]
    c = compare_arms(values, statistic="gap", resamples=500)
    assert c.difference == pytest.approx((0.875 - 0.5) / 0.5)
    assert c.low == pytest.approx(0.5) and c.high == pytest.approx(1.0)


def test_degenerate_cases_have_their_documented_answer():
    empty = compare_arms([])
    assert math.isnan(empty.shown) and math.isnan(empty.difference) and empty.images == 0
    one_arm = compare_arms([(1, True, 0.4), (2, True, 0.6), (3, True, float("nan"))])
    assert one_arm.shown == pytest.approx(0.5) and one_arm.n_shown == 2
    assert math.isnan(one_arm.not_shown) and math.isnan(one_arm.low)
    one_image = compare_arms([(1, True, 0.9), (1, False, 0.6)])
    assert one_image.low == one_image.high == pytest.approx(0.3)
    same = compare_arms([(i, s, 0.7) for i in range(5) for s in (True, False)])
    assert (same.difference, same.low, same.high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="'difference' or 'gap'"):
        compare_arms([], statistic="ratio")
