"""Two arms of a randomised design compared, with a cluster bootstrap over images.

What pre-annotation did (docs/models.md): each finished annotation gives one value (its active
time, its Dice with the model, its mean Dice with the other annotators) and belongs to one arm,
*shown* (the annotation started from the model's polygons) or *not shown*, and to one image.
Values of one image are not independent (the same image is easy or hard for everyone), so
the interval resamples **images**, not annotations: the nonparametric cluster bootstrap
[DavisonHinkley1997, §3.8], percentile interval [EfronTibshirani1993, §13.3].

* the arm's value is the pooled mean of its annotations' values;
* the *difference* is shown − not shown;
* the *share of the gap closed* (for an agreement with the model, at most 1) is
  ``(shown − not) / (1 − not)``: an annotator who, when shown the model, keeps its outline
  with probability ``f`` and otherwise draws as they would have, moves a Dice of ``d`` to
  ``f + (1 − f) d`` on average, so the share estimates ``f`` (their tendency to follow).

Degenerate cases: an arm with no value gives NaN for it, the difference and the interval; a
single image gives an interval of zero width at the estimate (every resample is that image).

Examples
--------
>>> values = [(1, True, 0.9), (1, False, 0.7), (2, True, 0.8), (2, False, 0.6)]
>>> c = compare_arms(values, resamples=200)
>>> round(c.shown, 3), round(c.not_shown, 3), round(c.difference, 3), c.images
(0.85, 0.65, 0.2, 2)
>>> round(c.low, 3), round(c.high, 3)
(0.2, 0.2)
>>> round(compare_arms(values, statistic="gap").difference, 3)
0.571
>>> import math; math.isnan(compare_arms([(1, True, 0.5)]).difference)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Resamples of the bootstrap (Monte Carlo error of a 95 % endpoint about ±0.005 of its sd).
RESAMPLES = 4000


@dataclass(frozen=True)
class ArmComparison:
    """Both arms' pooled means, the statistic (difference or share of the gap closed) and
    its percentile interval; how many images and annotations each arm has."""

    shown: float
    not_shown: float
    difference: float
    low: float
    high: float
    images: int
    n_shown: int
    n_not_shown: int
    confidence: float = 0.95
    statistic: str = "difference"


def _statistic(shown: np.ndarray, not_shown: np.ndarray, statistic: str) -> np.ndarray:
    if statistic == "difference":
        return shown - not_shown
    with np.errstate(divide="ignore", invalid="ignore"):
        return (shown - not_shown) / (1.0 - not_shown)


def compare_arms(values: Sequence[tuple[int, bool, float]], *, statistic: str = "difference",
                 resamples: int = RESAMPLES, confidence: float = 0.95, seed: int = 0
                 ) -> ArmComparison:
    """Compare the arms of ``values`` ``(image id, shown, value)`` (NaN values left out).

    Parameters
    ----------
    values : sequence of (int, bool, float)
        One value per annotation.
    statistic : {"difference", "gap"}
        shown − not shown, or the share of the gap to 1 closed (see the module docstring).
    resamples, confidence, seed
        The cluster bootstrap: resamples of the images, the interval's level, its generator.
    """
    if statistic not in ("difference", "gap"):
        raise ValueError(f"statistic must be 'difference' or 'gap', got {statistic!r}")
    kept = [(i, bool(s), float(v)) for i, s, v in values if not math.isnan(float(v))]
    images = sorted({i for i, _, _ in kept})
    index = {i: k for k, i in enumerate(images)}
    sums = np.zeros((2, len(images)))
    counts = np.zeros((2, len(images)))
    for i, s, v in kept:
        sums[int(s), index[i]] += v
        counts[int(s), index[i]] += 1
    n_shown, n_not = int(counts[1].sum()), int(counts[0].sum())
    nan = math.nan
    if n_shown == 0 or n_not == 0:
        shown = float(sums[1].sum() / n_shown) if n_shown else nan
        not_shown = float(sums[0].sum() / n_not) if n_not else nan
        return ArmComparison(shown, not_shown, nan, nan, nan, len(images), n_shown, n_not,
                             confidence, statistic)
    shown, not_shown = sums[1].sum() / n_shown, sums[0].sum() / n_not
    estimate = float(_statistic(np.array(shown), np.array(not_shown), statistic))
    rng = np.random.default_rng(seed)
    m = len(images)
    weights = rng.multinomial(m, np.full(m, 1.0 / m), size=resamples).astype(float)  # (B, M)
    with np.errstate(divide="ignore", invalid="ignore"):
        boot_s = (weights @ sums[1]) / (weights @ counts[1])
        boot_n = (weights @ sums[0]) / (weights @ counts[0])
    boot = _statistic(boot_s, boot_n, statistic)
    boot = boot[np.isfinite(boot)]  # (a resample without one arm has no statistic)
    alpha = (1.0 - confidence) / 2.0
    low, high = (np.quantile(boot, [alpha, 1.0 - alpha]) if len(boot) else (nan, nan))
    return ArmComparison(float(shown), float(not_shown), estimate, float(low), float(high), m,
                         n_shown, n_not, confidence, statistic)
