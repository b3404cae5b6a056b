"""Krippendorff's α for reliability data with missing values, and the agreement bands.

α = 1 − D_o / D_e, computed from the coincidence matrix of pairable values ([Krippendorff2011],
"Computing Krippendorff's Alpha-Reliability"). A value is *pairable* when its unit holds at least
two values; units with fewer are dropped, as in Krippendorff's definition.

Conventions (the same everywhere in slicereview, see docs/design.md, "Conventions"):

* no observed disagreement (D_o = 0) → α = 1.0, even when every value is the same (D_e = 0);
* fewer than two pairable values → α = NaN.

How it counts (the cost is counting, not arithmetic): each unit's values are counted per value
into a values × units table with one ``np.bincount`` over ``value code × units + unit`` keys per
block of units. Integers of a narrow range (category codes, grades) are coded by their offset
from the smallest value, other values by ``np.unique`` once. Blocks keep every temporary small: on
a 10 × 100 000 matrix, whole-array temporaries cost more in fresh memory pages than the
arithmetic. From the table, nominal and interval use closed forms over per-unit sums, ordinal is
interval on the mid-ranks of the values (its difference function is a difference of mid-ranks),
and ratio sums δ² over the coincidence matrix. With more than ``_DENSE_VALUES`` distinct values
the (unit, value) cells are counted by sorting their keys instead, and ratio sums δ² over the
pairs of cells within units and, in blocks, over the distinct values (O(V²) time for V distinct
values: about a second at V = 10 000). Sums over units avoid BLAS, whose worker threads stall
when the machine is busy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")

#: Upper bounds (inclusive) of the agreement bands of [CrowdSegQA, §4]: α ≤ 0.1 is
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


#: Up to this many distinct values (and cells), count the values of each unit per value into a
#: dense units × values table, block by block of units with one ``np.bincount`` each.
_DENSE_VALUES = 64
_DENSE_CELLS = 1 << 22
#: Values per block: temporaries this small are reused by the allocator, while whole-array
#: temporaries of a 10 × 100 000 matrix cost more in fresh memory pages than in arithmetic.
_BLOCK = 1 << 14
#: Ratio level from the table: the V × V coincidence matrix (U·V² multiply-adds, no BLAS: its
#: threads stall on a busy machine) up to this many values, else pairs of cells within units.
_RATIO_MATRIX_VALUES = 16


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
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError(
            f"reliability_data must be 2-D (raters, units), got shape {data.shape}"
        )
    if np.isinf(data).any():
        raise ValueError("reliability_data holds an infinite value")
    present = ~np.isnan(data)
    per_unit = present.sum(axis=0)
    per_unit[per_unit < 2] = 0  # a value is pairable when its unit holds at least two
    n = int(per_unit.sum())
    if n < 2:
        return float("nan")
    keep = present & (per_unit > 0)[np.newaxis, :]
    lo, hi = float(np.fmin.reduce(data, axis=None)), float(np.fmax.reduce(data, axis=None))
    if level == "ratio" and lo < 0 and (data[keep] < 0).any():
        raise ValueError("the ratio level needs non-negative values")
    weight = np.zeros(per_unit.size)  # 1 / (m_u − 1), 0 for dropped units
    np.divide(1.0, per_unit - 1.0, out=weight, where=per_unit >= 2)

    table = None
    if hi - lo < _DENSE_VALUES and data.shape[1] * (hi - lo + 1) <= _DENSE_CELLS:
        # Integers of a narrow range (categories, grades): coded by offset, no sorting.
        domain = lo + np.arange(int(hi - lo) + 1)
        table = _count_table(data, keep, domain.size, lambda b: b - lo)
    if table is None:
        values = data[keep]
        domain = np.unique(values)
        if domain.size > _DENSE_VALUES or data.shape[1] * domain.size > _DENSE_CELLS:
            units = np.broadcast_to(np.arange(data.shape[1]), data.shape)[keep]
            return _from_cells(_cells(values, units, per_unit, domain), weight, level)
        table = _count_table(data, keep, domain.size,
                             lambda b: np.searchsorted(domain, b).astype(float))
        assert table is not None  # searchsorted codes are integers
    return _from_table(table, per_unit.astype(float), weight, domain, level)


def _count_table(
    data: np.ndarray, keep: np.ndarray, n_values: int, code: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray | None:
    """The ``(V, U)`` float64 table of ``n_cu``, how often unit ``u`` holds value ``c`` (columns
    of dropped units are 0), counted per block of units with one ``np.bincount``.

    Values-major, so that the per-unit sums over values below run over contiguous rows.
    ``code`` maps a block of values to their float codes ``0 .. V − 1``; ``None`` when a kept
    value's code is not an integer (the values are not the integers of the domain).
    """
    n_raters, n_units = data.shape
    step = max(1, _BLOCK // max(n_raters, 1))
    table = np.empty((n_values, n_units))
    for start in range(0, n_units, step):
        block = slice(start, min(start + step, n_units))
        # Missing and unpairable values get code V, counted in a row that is dropped.
        codes = np.where(keep[:, block], code(data[:, block]), n_values)
        index = codes.astype(np.intp)
        if not np.array_equal(index, codes):
            return None
        width = index.shape[1]
        index *= width
        index += np.arange(width)  # key = value code × block width + unit in block
        counts = np.bincount(index.ravel(), minlength=(n_values + 1) * width)
        table[:, block] = counts.reshape(n_values + 1, width)[:n_values]
    return table


def _from_table(
    table: np.ndarray, per_unit: np.ndarray, weight: np.ndarray, domain: np.ndarray, level: str,
) -> float:
    """α from the ``(V, U)`` count table, ``(U,)`` values per unit ``m_u`` and weights
    ``1 / (m_u − 1)``, and the ``(V,)`` ascending value domain (unused values count 0)."""
    # D_o = 0 exactly when each unit holds one distinct value (δ² > 0 for any two different
    # values at every level); tested on integer counts, so rounding cannot blur the convention.
    if not (np.maximum.reduce(table, axis=0) < per_unit).any():
        return 1.0
    n = float(per_unit.sum())
    totals = table.sum(axis=1)
    if level == "nominal":
        # Σ_{c≠k} o_ck = Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1); Σ_{c≠k} n_c n_k = n² − Σ n_c².
        same = sum(_dot(weight, row * row) for row in table)
        observed = _dot(weight, per_unit**2) - same
        return _finish(observed, n * n - float(np.dot(totals, totals)), int(n))
    if level == "ratio":
        if domain.size > _RATIO_MATRIX_VALUES:
            cells = np.flatnonzero(table.T)
            unit, code = np.divmod(cells, domain.size)
            as_cells = _Cells(domain, unit, code, table.T.ravel()[cells], per_unit, int(n))
            return _ratio_cells(as_cells, weight, totals)
        # Coincidences o_ck = Σ_u n_uc n_uk / (m_u − 1) (the diagonal meets δ² = 0).
        weighted = table * weight
        coincidences = np.array([[_dot(a, b) for b in table] for a in weighted])
        delta2 = _ratio_delta2(domain[:, None], domain[None, :])
        return _finish(float(np.sum(coincidences * delta2)), float(totals @ delta2 @ totals),
                       int(n))
    scale = _ordinal_scale(totals) if level == "ordinal" else domain
    x = scale - np.dot(totals, scale) / n  # centred: δ² is shift-free, rounding is not
    # Σ_{i≠j in u} (x_i − x_j)² = 2 m_u Σ_c n_uc (x_c − x̄_u)².
    sums = np.zeros(per_unit.size)
    for x_c, row in zip(x, table, strict=True):
        sums += x_c * row
    means = np.zeros(per_unit.size)
    np.divide(sums, per_unit, out=means, where=per_unit > 0)
    spread = np.zeros(per_unit.size)
    for x_c, row in zip(x, table, strict=True):
        spread += row * (x_c - means) ** 2
    observed = 2.0 * _dot(weight * per_unit, spread)
    expected = 2.0 * n * float(np.dot(totals, x * x))  # Σ n_c x_c = 0 after centring
    return _finish(observed, expected, int(n))


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a·b of two ``(U,)`` vectors without BLAS, whose threads stall on a busy machine."""
    return float(np.einsum("i,i->", a, b))


def _ordinal_scale(totals: np.ndarray) -> np.ndarray:
    """Mid-ranks ``z_c = Σ_{g≤c} n_g − n_c / 2`` of the ``(V,)`` ascending values.

    δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2 = z_k − z_c: ordinal α is interval α on mid-ranks.
    """
    return np.cumsum(totals) - totals / 2.0


class _Cells(NamedTuple):
    """Pairable values counted per unit and value, as the non-empty cells of the table.

    ``unit``, ``code`` and ``count`` are ``(E,)`` arrays sorted by unit (then code): unit ``u``
    holds value ``distinct[c]`` ``count`` times. ``per_unit`` is ``(U,)``: the number of pairable
    values of each unit (0 for a dropped unit); ``n`` their total.
    """

    distinct: np.ndarray  # (V,) float64, ascending
    unit: np.ndarray  # (E,) intp
    code: np.ndarray  # (E,) intp
    weight: np.ndarray  # (E,) float64, how often the value occurs in the unit
    per_unit: np.ndarray  # (U,) float64
    n: int


def _cells(
    values: np.ndarray, units: np.ndarray, per_unit: np.ndarray, distinct: np.ndarray,
) -> _Cells:
    """Count the pairable ``values`` (of ``units``) per unit and value (see :class:`_Cells`)."""
    n_values = distinct.size
    keys = units * n_values + np.searchsorted(distinct, values)
    if per_unit.size * n_values <= max(_DENSE_CELLS, 4 * values.size):
        table = np.bincount(keys, minlength=per_unit.size * n_values)
        cells = np.flatnonzero(table)
        count = table[cells]
    else:
        cells, count = np.unique(keys, return_counts=True)
    unit, code = np.divmod(cells, n_values)
    return _Cells(distinct, unit, code, count.astype(float), per_unit.astype(float), values.size)


def _from_cells(cells: _Cells, weight: np.ndarray, level: str) -> float:
    """α from the non-empty cells, for many distinct values (no V × V matrix is built)."""
    if not (cells.unit[1:] == cells.unit[:-1]).any():  # one distinct value per unit: D_o = 0
        return 1.0
    totals = np.bincount(cells.code, weights=cells.weight, minlength=cells.distinct.size)
    if level == "nominal":
        # Σ_{c≠k} o_ck = Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1); Σ_{c≠k} n_c n_k = n² − Σ n_c².
        m = cells.per_unit
        same = _dot(weight[cells.unit], cells.weight**2)
        observed = _dot(weight, m * m) - same
        expected = float(cells.n) ** 2 - float(np.dot(totals, totals))
        return _finish(observed, expected, cells.n)
    if level == "ratio":
        return _ratio_cells(cells, weight, totals)
    scale = _ordinal_scale(totals) if level == "ordinal" else cells.distinct
    return _interval_cells(cells, weight, totals, scale)


def _interval_cells(
    cells: _Cells, weight: np.ndarray, totals: np.ndarray, scale: np.ndarray,
) -> float:
    """Σ_{i≠j in u} (x_i − x_j)² = 2 m_u Σ_i (x_i − x̄_u)²; ``scale`` is the ``(V,)`` value of
    each distinct value on the interval scale."""
    n_units = cells.per_unit.size
    x = scale - np.dot(totals, scale) / cells.n  # centred: δ² is shift-free, rounding is not
    x_cell = x[cells.code]
    sums = np.bincount(cells.unit, weights=cells.weight * x_cell, minlength=n_units)
    means = np.zeros(n_units)
    np.divide(sums, cells.per_unit, out=means, where=cells.per_unit > 0)
    dev = x_cell - means[cells.unit]
    squares = np.bincount(cells.unit, weights=cells.weight * dev * dev, minlength=n_units)
    observed = 2.0 * _dot(weight * cells.per_unit, squares)
    expected = 2.0 * cells.n * float(np.dot(totals, x * x))  # Σ n_c x_c = 0 after centring
    return _finish(observed, expected, cells.n)


def _ratio_cells(cells: _Cells, weight: np.ndarray, totals: np.ndarray) -> float:
    """δ² = ((c − k) / (c + k))² has no closed form: sum it over the pairs of cells within
    units and, in blocks, over the pairs of distinct values (O(V²) time)."""
    distinct, unit, count = cells.distinct, cells.unit, cells.weight
    n_cells = unit.size
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    sizes = np.diff(np.r_[starts, n_cells])
    # Each cell pairs with the later cells of its unit; the factor 2 counts both orders.
    group = np.repeat(np.arange(starts.size), sizes)
    reps = starts[group] + sizes[group] - 1 - np.arange(n_cells)
    left = np.repeat(np.arange(n_cells), reps)
    right = left + 1 + np.arange(left.size) - np.repeat(np.cumsum(reps) - reps, reps)
    values = distinct[cells.code]
    observed = 2.0 * float(np.sum(
        _ratio_delta2(values[left], values[right]) * count[left] * count[right]
        * weight[unit[left]]
    ))
    expected = 0.0
    for lo in range(0, distinct.size, 1024):
        block = _ratio_delta2(distinct[lo:lo + 1024, None], distinct[None, :])
        expected += float(totals[lo:lo + 1024] @ block @ totals)
    return _finish(observed, expected, cells.n)


def _ratio_delta2(c: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Ratio difference ((c − k) / (c + k))², 0 when both are 0 (broadcasting)."""
    diff = c - k
    total = c + k
    out = np.zeros(np.broadcast(diff, total).shape)
    np.divide(diff, total, out=out, where=total != 0)
    return out**2
