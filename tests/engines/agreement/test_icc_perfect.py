"""ICC F tests and intervals when the residual (or within) mean square is exactly zero."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.agreement import intraclass_correlation


def test_identical_raters_give_infinite_f_zero_p_and_a_point_interval():
    x = np.tile(np.arange(6.0)[:, None], (1, 3))  # every rater gives every target the same
    for form in intraclass_correlation(x):
        assert form.value == pytest.approx(1.0)
        assert math.isinf(form.f) and form.f > 0
        assert form.p == 0.0
        assert form.ci95 == pytest.approx((1.0, 1.0))


def test_constant_rater_offsets_are_the_limit_of_vanishing_noise():
    # Raters differ by constant offsets: consistency is perfect (ICC(3,·) = 1), absolute
    # agreement is not. Every number must be the limit of the same table with tiny noise.
    x = np.tile(np.arange(8.0)[:, None], (1, 3)) + np.array([0.0, 0.5, 1.5])
    exact = intraclass_correlation(x)
    noisy = intraclass_correlation(x + 1e-7 * np.random.default_rng(0).normal(size=x.shape))
    for a, b in zip(exact, noisy, strict=True):
        assert a.value == pytest.approx(b.value, abs=1e-6), a.name
        assert a.ci95 == pytest.approx(b.ci95, abs=1e-4), a.name
        assert a.p == pytest.approx(b.p, abs=1e-6), a.name
    assert math.isinf(exact["ICC(3,1)"].f) and exact["ICC(3,1)"].ci95 == (1.0, 1.0)
    assert math.isfinite(exact["ICC(1,1)"].f)  # offsets are within-target variance
