"""Krippendorff's α for reliability data with missing values, and the agreement bands.

α = 1 − D_o / D_e, computed from the coincidence matrix of pairable values (Krippendorff 2011,
"Computing Krippendorff's Alpha-Reliability"). A value is *pairable* when its unit holds at least
two values; units with fewer are dropped, as in Krippendorff's definition.

Conventions (the same everywhere in slicereview, see DESIGN.md §6):

* no observed disagreement (D_o = 0) → α = 1.0, even when every value is the same (D_e = 0);
* fewer than two pairable values → α = NaN.

No level builds the value-by-value coincidence matrix, so any number of distinct values works:
nominal and interval use closed forms over per-unit sums, ordinal is interval on the mid-ranks
of the values (its difference function is a difference of mid-ranks), and ratio sums its
difference function over the value pairs within units and, in blocks, over the distinct values
(O(V²) time for V distinct values: about a second at V = 10 000).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")

#: Upper bounds (inclusive) of the agreement bands of the review paper (§4): α ≤ 0.1 is
#: "disagreement", ≤ 0.667 "low", ≤ 0.8 "moderate", anything above is "high".
BAND_LIMITS: tuple[tuple[str, float], ...] = (
    ("disagreement", 0.1),
    ("low", 0.667),
    ("moderate", 0.8),
)
BANDS: tuple[str, ...] = ("disagreement", "low", "moderate", "high")


def band(alpha: float) -> str:
    """Name the agreement band of ``alpha``.

    Returns ``"disagreement"`` (α ≤ 0.1), ``"low"`` (≤ 0.667), ``"moderate"`` (≤ 0.8),
    ``"high"`` (> 0.8), or ``"undefined"`` for NaN.

    Examples
    --------
    >>> band(0.8), band(0.81), band(float("nan"))
    ('moderate', 'high', 'undefined')
    >>> band(0.1 + 1e-15), band(1 - 0.2)
    ('disagreement', 'moderate')
    """
    if math.isnan(alpha):
        return "undefined"
    for name, upper in BAND_LIMITS:
        # A tolerance of 1e-12 keeps an α that is mathematically on an edge (e.g. 0.8 computed
        # as 0.8000000000000002) in the lower band, as the inclusive limits intend.
        if alpha <= upper + 1e-12:
            return name
    return "high"


def _pairable(reliability_data: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(values, unit_index)`` of the pairable values (units with ≥ 2 values)."""
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError(
            f"reliability_data must be 2-D (raters, units), got shape {data.shape}"
        )
    present = ~np.isnan(data)
    if np.isinf(data[present]).any():
        raise ValueError("reliability_data holds an infinite value")
    per_unit = present.sum(axis=0)
    keep = present & (per_unit >= 2)[np.newaxis, :]
    # Column-major walk so that values of one unit are contiguous.
    values = data.T[keep.T]
    units = np.nonzero(keep.T)[0]
    return values, units


def _finish(observed: float, expected: float, n: int) -> float:
    """α = 1 − (n − 1) Σ o·δ² / Σ n_c n_k δ² (called only when some unit disagrees)."""
    return float(1.0 - (n - 1) * observed / expected)


def krippendorff_alpha(reliability_data: ArrayLike, level: Level = "nominal") -> float:
    """Krippendorff's α of ``(raters, units)`` reliability data.

    Parameters
    ----------
    reliability_data : array_like, shape (R, U)
        One row per rater (coder), one column per unit; NaN (or ``None``) marks a missing value.
        Values are numbers; for the nominal level they are only compared for equality.
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement, which chooses the difference function δ².

    Returns
    -------
    float
        α. 1.0 when there is no observed disagreement; NaN with fewer than two pairable
        values (a value is pairable when its unit holds at least two values).

    Examples
    --------
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    ...         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    >>> round(krippendorff_alpha(data, "nominal"), 3)
    0.743
    >>> round(krippendorff_alpha(data, "interval"), 3)
    0.849
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    values, units = _pairable(reliability_data)
    n = values.size
    if n < 2:
        return float("nan")
    if level == "ratio" and (values < 0).any():
        raise ValueError("the ratio level needs non-negative values")
    # D_o = 0 exactly when every unit's values are equal (δ² > 0 for any two different
    # values at every level); test it on the values so rounding cannot blur the convention.
    first = np.flatnonzero(np.r_[True, units[1:] != units[:-1]])
    if np.array_equal(values, np.repeat(values[first], np.diff(np.r_[first, n]))):
        return 1.0
    m_u = np.bincount(units)  # values per unit (0 for dropped units)
    weight = np.zeros(m_u.size)
    np.divide(1.0, m_u - 1, out=weight, where=m_u >= 2)

    if level == "ordinal":
        # δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2 = z_k − z_c with z_c = Σ_{g≤c} n_g − n_c/2, the
        # mid-rank of value c among the pairable values: ordinal α is interval α on mid-ranks.
        _, codes, counts = np.unique(values, return_inverse=True, return_counts=True)
        values = (np.cumsum(counts) - counts / 2.0)[codes]
        level = "interval"

    if level == "interval":
        # Σ_{i≠j in u} (v_i − v_j)² = 2 (m Σv² − (Σv)²): no coincidence matrix needed.
        centred = values - values.mean()  # shift for numerical stability; δ² is shift-free
        s1 = np.bincount(units, weights=centred, minlength=m_u.size)
        s2 = np.bincount(units, weights=centred**2, minlength=m_u.size)
        observed = float(np.sum(weight * 2.0 * (m_u * s2 - s1**2)))
        expected = 2.0 * (n * float(np.sum(centred**2)) - float(np.sum(centred)) ** 2)
        return _finish(max(observed, 0.0), expected, n)

    if level == "nominal":
        # Σ_{c≠k} o_ck = Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1); Σ_{c≠k} n_c n_k = n² − Σ n_c².
        _, codes, counts = np.unique(values, return_inverse=True, return_counts=True)
        pair_keys, n_uc = np.unique(units.astype(np.int64) * counts.size + codes,
                                    return_counts=True)
        pair_unit = pair_keys // counts.size  # n_uc: how often unit u holds value c
        same = np.bincount(pair_unit, weights=n_uc.astype(float) ** 2, minlength=m_u.size)
        observed = float(np.sum(weight * (m_u.astype(float) ** 2 - same)))
        expected = float(n) ** 2 - float(np.sum(counts.astype(float) ** 2))
        return _finish(observed, expected, n)

    # ratio: δ² = ((c − k) / (c + k))² has no closed form; sum it over the pairs of values
    # within each unit (Σ m_u² pairs) and over the distinct-value pairs in blocks.
    sizes = np.diff(np.r_[first, n])
    group = np.repeat(np.arange(first.size), sizes)  # group of each value
    reps = sizes[group]  # each value pairs with every value of its unit
    left = np.repeat(np.arange(n), reps)
    offset = np.arange(left.size) - np.repeat(np.cumsum(reps) - reps, reps)
    right = first[group][left] + offset
    observed = float(np.sum(_ratio_delta2(values[left], values[right]) * weight[units[left]]))
    distinct, counts = np.unique(values, return_counts=True)
    counts = counts.astype(float)
    expected = 0.0
    for lo in range(0, distinct.size, 1024):
        block = _ratio_delta2(distinct[lo:lo + 1024, None], distinct[None, :])
        expected += float(counts[lo:lo + 1024] @ block @ counts)
    return _finish(observed, expected, n)


def _ratio_delta2(c: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Ratio difference ((c − k) / (c + k))², 0 when both are 0 (broadcasting)."""
    diff = c - k
    total = c + k
    out = np.zeros(np.broadcast(diff, total).shape)
    np.divide(diff, total, out=out, where=total != 0)
    return out**2
