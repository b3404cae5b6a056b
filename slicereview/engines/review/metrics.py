"""Ranking evaluation: precision@k, recall@k and NDCG@k with graded relevance ([CrowdSegQA, §5.4]).

``ranked`` is a sequence of item ids, the first the most urgent. ``relevance`` is either a
mapping ``item -> grade`` (graded ground truth, e.g. 0 = fine … 3 = must be reviewed) or a
collection of relevant items (grade 1 each); items it does not mention have grade 0.

Conventions
-----------
* P@k divides by ``k`` even when fewer than ``k`` items are ranked.
* An item is *relevant* for P@k and R@k when its grade is ≥ ``min_grade`` (default: > 0).
* R@k divides by the number of relevant items in ``relevance``, ranked or not; NaN if none.
* NDCG@k [JarvelinKekalainen2002] uses linear gain and a log2 discount,
  ``DCG@k = Σ_{i=1..k} grade_i / log2(i + 1)``, the convention of ``sklearn.metrics.ndcg_score``.
  The ideal ranking sorts *every* graded item of ``relevance`` (unranked ones included) by grade;
  when ``ranked`` holds every item this is exactly
  ``sklearn.metrics.ndcg_score([grades], [scores], k=k)``. ``gain="exponential"`` uses
  ``2**grade − 1`` instead. NDCG is NaN when no item has a positive grade (sklearn returns 0).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping, Sequence

import numpy as np

Relevance = Mapping[Hashable, float] | Collection[Hashable]


def _grades(relevance: Relevance) -> Mapping[Hashable, float]:
    if isinstance(relevance, Mapping):
        return relevance
    return dict.fromkeys(relevance, 1.0)


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


def _relevant(grade: float, min_grade: float | None) -> bool:
    return grade >= min_grade if min_grade is not None else grade > 0


def precision_at_k(
    ranked: Sequence[Hashable], relevance: Relevance, k: int, min_grade: float | None = None
) -> float:
    """Share of the first ``k`` ranked items that are relevant (divided by ``k``).

    Examples
    --------
    >>> precision_at_k(["d1", "d2", "d3"], {"d1", "d3", "d9"}, 3)
    0.6666666666666666
    """
    _check_k(k)
    grades = _grades(relevance)
    hits = sum(_relevant(grades.get(item, 0.0), min_grade) for item in ranked[:k])
    return hits / k


def recall_at_k(
    ranked: Sequence[Hashable], relevance: Relevance, k: int, min_grade: float | None = None
) -> float:
    """Share of all relevant items found in the first ``k`` ranked items; NaN if none relevant.

    Examples
    --------
    >>> recall_at_k(["d1", "d2", "d3"], {"d1", "d3", "d9"}, 3)
    0.6666666666666666
    """
    _check_k(k)
    grades = _grades(relevance)
    total = sum(_relevant(g, min_grade) for g in grades.values())
    if total == 0:
        return math.nan
    hits = sum(_relevant(grades.get(item, 0.0), min_grade) for item in ranked[:k])
    return hits / total


def dcg(grades_in_rank_order: Sequence[float], k: int | None = None,
        gain: str = "linear") -> float:
    """Discounted cumulative gain of grades listed in rank order (first = rank 1).

    Examples
    --------
    >>> round(dcg([3, 2, 3, 0, 1, 2]), 6)
    6.861127
    """
    g = np.asarray(grades_in_rank_order, dtype=float)[: (None if k is None else k)]
    if gain == "exponential":
        g = np.power(2.0, g) - 1.0
    elif gain != "linear":
        raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")
    return float(np.sum(g / np.log2(np.arange(2, g.size + 2))))


def ndcg_at_k(
    ranked: Sequence[Hashable], relevance: Relevance, k: int | None = None,
    gain: str = "linear",
) -> float:
    """Normalised DCG of the first ``k`` ranked items (all when ``k`` is None).

    Examples
    --------
    >>> grades = {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "f": 2}
    >>> round(ndcg_at_k(list("abcdef"), grades), 6)
    0.960808
    >>> round(ndcg_at_k(list("abcdef"), grades, k=3), 6)
    0.977781
    """
    if k is not None:
        _check_k(k)
    grades = _grades(relevance)
    actual = dcg([grades.get(item, 0.0) for item in ranked], k, gain)
    ideal = dcg(sorted(grades.values(), reverse=True), k, gain)
    if ideal == 0:
        return math.nan
    return actual / ideal
