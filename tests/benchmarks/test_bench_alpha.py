"""krippendorff_alpha against the ``krippendorff`` package on 10 raters × 100,000 units.

~10 % of the values missing. Nominal: 5 categories; every level also on 5 integer grades and
on a 20-level grade with rater noise (values 0 .. 22). Both are timed in the same run,
interleaved, best of REPEAT (the machines are noisy; a ratio holds, an absolute time does not),
and must agree to 1e-12. Target: ours at least 3× faster at every level. Run with ``-s`` to
see the numbers.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from slicereview.engines.agreement import krippendorff_alpha

pytestmark = pytest.mark.benchmark

R, U, REPEAT = 10, 100_000, 7
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _data(kind: str) -> np.ndarray:
    rng = np.random.default_rng(2024)
    if kind == "5 categories":
        data = rng.integers(0, 5, size=(R, U)).astype(float)
    else:  # "20 grades": a true grade per unit plus rater noise
        data = np.abs(rng.integers(0, 20, size=U) + rng.integers(-2, 3, size=(R, U))).astype(float)
    data[rng.random(data.shape) < 0.1] = np.nan
    return data


def _best_of(ours, theirs) -> tuple[float, float, float, float]:
    t_ours = t_theirs = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        a = ours()
        t_ours = min(t_ours, time.perf_counter() - start)
        start = time.perf_counter()
        b = theirs()
        t_theirs = min(t_theirs, time.perf_counter() - start)
    return t_ours, t_theirs, a, b


@pytest.mark.parametrize("kind", ["5 categories", "20 grades"])
@pytest.mark.parametrize("level", LEVELS)
def test_alpha_speed_against_krippendorff(level, kind):
    import krippendorff

    data = _data(kind)
    ours, theirs, a, b = _best_of(
        lambda: krippendorff_alpha(data, level),
        lambda: krippendorff.alpha(reliability_data=data, level_of_measurement=level),
    )
    ratio = theirs / ours
    print(f"\nalpha {level} {R}x{U} {kind}: ours {ours * 1e3:.1f} ms, krippendorff "
          f"{theirs * 1e3:.1f} ms, ratio {ratio:.1f}x (alpha {a:.6f}, diff {a - b:.1e})")
    assert a == pytest.approx(b, rel=0, abs=1e-12)
    assert ratio >= 3
