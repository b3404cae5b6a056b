"""Agreement of two raters' rankings: Pearson, Spearman, Kendall τ-b and top-N intersection.

These are the rank statistics of SliceLabeler [Jang2022]; ICC(2,k) of the
same two score vectors comes from
:func:`slicereview.engines.agreement.intraclass_correlation` (see :func:`rank_agreement`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class RankCorrelations:
    """Correlations of two score vectors over the same items, with two-sided p-values.

    A correlation is NaN when a vector is constant (no ordering to compare).
    """

    pearson: float
    spearman: float
    kendall_tau_b: float
    pearson_p: float
    spearman_p: float
    kendall_p: float
    n: int


def rank_correlations(a_scores: ArrayLike, b_scores: ArrayLike) -> RankCorrelations:
    """Pearson r, Spearman ρ (average ranks for ties) and Kendall τ-b [Kendall1945] of paired
    scores.

    Parameters
    ----------
    a_scores, b_scores : array_like, shape (n,)
        The two raters' scores (or ranks, or grades) of the same ``n`` items, same order;
        n ≥ 2. Missing values are not allowed.

    Examples
    --------
    >>> r = rank_correlations([1, 2, 2, 3, 4, 4, 4, 5], [2, 1, 3, 3, 5, 4, 4, 6])
    >>> round(r.pearson, 4), round(r.spearman, 4), round(r.kendall_tau_b, 4)
    (0.8868, 0.9256, 0.8407)
    """
    a = np.asarray(a_scores, dtype=float)
    b = np.asarray(b_scores, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"scores must be two 1-D arrays of one length, got {a.shape}, {b.shape}")
    if a.size < 2:
        raise ValueError("need at least two items")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("scores hold missing values")
    if np.all(a == a[0]) or np.all(b == b[0]):
        nan = math.nan
        return RankCorrelations(nan, nan, nan, nan, nan, nan, int(a.size))
    from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up

    pearson = stats.pearsonr(a, b)
    spearman = stats.spearmanr(a, b)
    kendall = stats.kendalltau(a, b, variant="b")
    return RankCorrelations(
        pearson=float(pearson.statistic),
        spearman=float(spearman.statistic),
        kendall_tau_b=float(kendall.statistic),
        pearson_p=float(pearson.pvalue),
        spearman_p=float(spearman.pvalue),
        kendall_p=float(kendall.pvalue),
        n=int(a.size),
    )


def top_n_intersection(
    ranking_a: Sequence[Hashable], ranking_b: Sequence[Hashable],
    ns: Iterable[int] = range(2, 26),
) -> dict[int, int]:
    """Number of items in the top ``N`` of both rankings, for each ``N`` in ``ns``.

    Parameters
    ----------
    ranking_a, ranking_b : sequence of item ids
        Each rater's ranking, first = top (e.g. most severe artifact). Items not ranked by
        one rater never count. When ``N`` exceeds a ranking's length the whole ranking is its
        top ``N``.
    ns : iterable of int
        The ``N`` values; default 2..25 as in [Jang2022].

    Examples
    --------
    >>> top_n_intersection(list("abcdef"), list("bacfed"), ns=[1, 2, 3, 4])
    {1: 0, 2: 2, 3: 3, 4: 3}
    """
    if len(set(ranking_a)) != len(ranking_a) or len(set(ranking_b)) != len(ranking_b):
        raise ValueError("a ranking lists an item twice")
    out = {}
    for n in ns:
        if n < 1:
            raise ValueError(f"N must be at least 1, got {n}")
        out[int(n)] = len(set(ranking_a[:n]) & set(ranking_b[:n]))
    return out


@dataclass(frozen=True)
class RankAgreement:
    """All inter-rater reliability numbers the rating report shows for two raters."""

    correlations: RankCorrelations
    icc2k: float
    top_n: dict[int, int]


def rank_agreement(
    a_scores: ArrayLike, b_scores: ArrayLike, ns: Iterable[int] = range(2, 26),
    higher_is_top: bool = True,
) -> RankAgreement:
    """Correlations, ICC(2,k) and top-N intersection of two raters' scores of the same items.

    The top-N sets rank items by score (highest first when ``higher_is_top``), ties broken by
    item position, so the numbers are reproducible.

    Examples
    --------
    >>> r = rank_agreement([5, 4, 3, 2, 1], [4, 5, 3, 1, 2], ns=[2, 3])
    >>> round(r.correlations.spearman, 2), r.top_n
    (0.8, {2: 2, 3: 3})
    """
    from slicereview.engines.agreement.icc import intraclass_correlation

    a = np.asarray(a_scores, dtype=float)
    b = np.asarray(b_scores, dtype=float)
    correlations = rank_correlations(a, b)
    icc = intraclass_correlation(np.column_stack([a, b])).icc2k
    sign = -1.0 if higher_is_top else 1.0
    order_a = list(np.argsort(sign * a, kind="stable"))
    order_b = list(np.argsort(sign * b, kind="stable"))
    return RankAgreement(correlations, float(icc), top_n_intersection(order_a, order_b, ns))
