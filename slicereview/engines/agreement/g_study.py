"""Generalizability coefficient for random annotators (crowd annotations).

:func:`generalizability` handles crowd data where items do not all have the same annotators:
a two-way additive ANOVA ``score ~ item + annotator`` with sequential (type I) sums of squares,
items first — the ``anova(lm(answer ~ item + annotator))`` of the generalizability-coefficient
write-up [Piwowar2008] — and ICC(2,1) for random annotators from its mean squares.
:func:`raters_needed` turns a single-rater coefficient into the number of annotators whose
mean reaches a target (Spearman–Brown).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np


def _ratio(num: float, den: float) -> float:
    return num / den if den != 0 else float("nan")


@dataclass(frozen=True)
class Generalizability:
    """Two-way (item + annotator) ANOVA of crowd scores and the coefficient derived from it.

    Attributes
    ----------
    icc21 : float
        Generalizability coefficient of one random annotator, ICC(2,1).
    n_items, n_annotators, n_scores : int
    items_ms, annotators_ms, error_ms : float
        Sequential (type I) mean squares: items, annotators after items, residual.
    items_df, annotators_df, error_df : int
    """

    icc21: float
    n_items: int
    n_annotators: int
    n_scores: int
    items_ms: float
    annotators_ms: float
    error_ms: float
    items_df: int
    annotators_df: int
    error_df: int

    def icc2k(self, k: int) -> float:
        """Coefficient of the mean of ``k`` random annotators (Spearman–Brown step-up)."""
        return k * self.icc21 / (1 + (k - 1) * self.icc21)

    def raters_needed(self, target: float) -> int:
        """Annotators per item needed to reach ``target`` (see :func:`raters_needed`)."""
        return raters_needed(self.icc21, target)


def icc21_from_mean_squares(
    items_ms: float, annotators_ms: float, error_ms: float, annotators_df: int, items_df: int
) -> float:
    """ICC(2,1) for random annotators from ANOVA mean squares (write-up formula).

    ``(qMS − eMS) / (qMS + aDF·eMS + (aDF + 1)(aMS − eMS) / (qDF + 1))`` with ``q`` the items
    ("questions") and ``a`` the annotators. NaN when the denominator is 0.

    Examples
    --------
    >>> round(icc21_from_mean_squares(11.24, 32.48, 1.02, 3, 5), 6)
    0.289737
    """
    den = (items_ms + annotators_df * error_ms
           + (annotators_df + 1) * (annotators_ms - error_ms) / (items_df + 1))
    return _ratio(items_ms - error_ms, den)


def generalizability(ratings_long: Iterable[tuple[Hashable, Hashable, float]]) -> Generalizability:
    """Generalizability coefficient ICC(2,1) of crowd scores with varying annotators per item.

    Parameters
    ----------
    ratings_long : iterable of (item, annotator, score)
        One row per score, long format; items and annotators are any hashable ids. Items need
        not share annotators, but the design must link them (otherwise annotator and item
        effects are confounded — the annotator degrees of freedom drop accordingly).

    Returns
    -------
    Generalizability
        The sequential ANOVA (``score ~ item + annotator``) and ``icc21``. For a complete
        table this equals ICC(2,1) of :func:`intraclass_correlation`.

    Notes
    -----
    The annotator sum of squares adjusted for items is computed from the reduced normal
    equations ``C b = Q`` of the incomplete two-way layout (``C = diag(r) − Nᵀ diag(1/k) N``,
    ``N`` the item × annotator count table), so the cost is O(scores + items·annotators +
    annotators³), not a dense regression.

    Examples
    --------
    >>> rows = [("q1", "a", 1), ("q1", "b", 1), ("q2", "b", 0), ("q2", "c", 0),
    ...         ("q3", "a", 1), ("q3", "c", 0), ("q4", "a", 0), ("q4", "b", 0)]
    >>> round(generalizability(rows).icc21, 3)
    0.515
    """
    items: dict[Hashable, int] = {}
    annotators: dict[Hashable, int] = {}
    ii, jj, yy = [], [], []
    for item, annotator, score in ratings_long:
        value = float(score)
        if math.isnan(value):
            continue
        ii.append(items.setdefault(item, len(items)))
        jj.append(annotators.setdefault(annotator, len(annotators)))
        yy.append(value)
    n_obs, n_items, n_ann = len(yy), len(items), len(annotators)
    if n_items < 2 or n_ann < 2:
        raise ValueError(f"need at least 2 items and 2 annotators, got {n_items} and {n_ann}")
    i = np.asarray(ii)
    j = np.asarray(jj)
    y = np.asarray(yy)
    y = y - y.mean()  # sums of squares are shift-free; centring keeps them accurate

    k_i = np.bincount(i, minlength=n_items).astype(float)  # scores per item
    r_j = np.bincount(j, minlength=n_ann).astype(float)  # scores per annotator
    item_sum = np.bincount(i, weights=y, minlength=n_items)
    item_mean = item_sum / k_i
    ss_items = float(np.sum(item_sum * item_mean))  # Σ T_i² / k_i (grand mean is 0)
    counts = np.zeros((n_items, n_ann))
    np.add.at(counts, (i, j), 1.0)
    c = np.diag(r_j) - counts.T @ (counts / k_i[:, None])
    q = np.bincount(j, weights=y, minlength=n_ann) - counts.T @ item_mean
    b, *_ = np.linalg.lstsq(c, q, rcond=None)
    ss_ann = max(float(b @ q), 0.0)
    df_ann = int(np.linalg.matrix_rank(c))
    ss_total = float(np.sum(y**2))
    ss_error = max(ss_total - ss_items - ss_ann, 0.0)
    df_items = n_items - 1
    df_error = n_obs - 1 - df_items - df_ann
    if df_error < 1:
        raise ValueError("no residual degrees of freedom: every item needs more scores")
    items_ms = ss_items / df_items
    ann_ms = ss_ann / df_ann if df_ann else float("nan")
    error_ms = ss_error / df_error
    return Generalizability(
        icc21=icc21_from_mean_squares(items_ms, ann_ms, error_ms, df_ann, df_items),
        n_items=n_items,
        n_annotators=n_ann,
        n_scores=n_obs,
        items_ms=items_ms,
        annotators_ms=ann_ms,
        error_ms=error_ms,
        items_df=df_items,
        annotators_df=df_ann,
        error_df=df_error,
    )


def raters_needed(icc: float, target: float) -> int:
    """Raters per item whose mean reaches a target reliability (Spearman–Brown).

    ``⌈target·(1 − icc) / (icc·(1 − target))⌉``, at least 1.

    Parameters
    ----------
    icc : float
        Single-rater reliability, e.g. ICC(2,1); must be in (0, 1].
    target : float
        Wanted reliability of the mean of the raters, in (0, 1).

    Examples
    --------
    >>> [raters_needed(0.289737, g) for g in (0.7, 0.8, 0.9)]
    [6, 10, 23]
    """
    if not 0 < target < 1:
        raise ValueError(f"target must be in (0, 1), got {target}")
    if math.isnan(icc) or not 0 < icc <= 1:
        raise ValueError(f"no number of raters reaches {target} from a single-rater "
                         f"reliability of {icc}; it must be in (0, 1]")
    needed = target * (1 - icc) / (icc * (1 - target))
    # Guard against 5.0000000001 → 6 from rounding in the ratio.
    return max(1, math.ceil(needed - 1e-9))
