"""Consensus masks of several annotators: pixel-wise majority vote and STAPLE.

Both take the annotators' label images of one image, ``uint8 (R, H, W)`` with 0 background,
1 certain, 2 uncertain (docs/design.md, "Conventions"), and a *level*: ``"strict"`` counts only
certain pixels as marked, ``"relaxed"`` (default) counts certain and uncertain pixels.

* :func:`majority_vote` — a pixel is in the consensus when **strictly more than half** of the
  annotators marked it (``2 · votes > R``). A tie (an even number of annotators split half and
  half) is *not* in the mask: a consensus claims what most annotators claim, and half is not
  most. One annotator: their own mask.
* :func:`staple` — Warfield's STAPLE [Warfield2004] (simultaneous truth and performance level
  estimation) as ITK's / SimpleITK's ``STAPLEImageFilter`` computes it: an EM estimate of each
  pixel's probability of being foreground and of each annotator's sensitivity and specificity. The
  mask is ``probability > 0.5`` (a pixel more likely in than out; exactly 0.5 is out, as for
  majority ties). The EM runs over the vote patterns, not the pixels
  (:mod:`slicereview.engines.agreement.staple_em`: same numbers as SimpleITK to ~1e-12, e.g.
  3 × 2900 × 4500 in a fraction of SimpleITK's 3.6 s); SimpleITK is only the test oracle.

Degenerate cases (defined, never a silent 0):

* **one annotator** — majority: their mask. STAPLE: probability 1.0 on their mask, 0.0
  elsewhere, sensitivity 1.0 and specificity 1.0 (they agree with themselves).
* **nobody marked anything** — an empty mask, probability 0.0 everywhere; sensitivity is NaN
  (there is no foreground to find), specificity 1.0. SimpleITK itself returns NaN everywhere.
* **every annotator identical** (including everyone marking every pixel) — the common mask,
  probability 0/1, sensitivity 1.0 where anything is marked (else NaN), specificity 1.0 where
  anything is left unmarked (else NaN). These cases are answered without running the filter,
  which would return NaN when nothing is left unmarked or nothing is marked.

Example
-------
>>> import numpy as np
>>> lab = np.zeros((3, 4, 4), np.uint8)
>>> lab[0, :2, :2] = 1; lab[1, :2, :3] = 1; lab[2, 0, 0] = 2
>>> majority_vote(lab).astype(int)[0]
array([1, 1, 0, 0])
>>> majority_vote(lab, "strict").sum(), majority_vote(lab, "relaxed").sum()
(np.int64(4), np.int64(4))
>>> r = staple(lab[:2])
>>> r.mask.sum() >= 4, r.probability.dtype.name
(np.True_, 'float32')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from slicereview.engines.agreement.staple_em import (
    StapleEM,
    staple_batch,
    staple_counts,
    vote_patterns,
)

Level = Literal["strict", "relaxed"]
#: Methods of :func:`consensus_mask`.
CONSENSUS_METHODS = ("majority", "staple")


@dataclass(frozen=True)
class StapleResult:
    """STAPLE's estimate for one image.

    Attributes
    ----------
    probability : ndarray of float32, shape (H, W)
        Each pixel's estimated probability of being foreground, in [0, 1].
    mask : ndarray of bool, shape (H, W)
        ``probability > 0.5``.
    sensitivity, specificity : tuple of float
        One per annotator, in input order (NaN where undefined, see the module docstring).
    """

    probability: np.ndarray
    mask: np.ndarray
    sensitivity: tuple[float, ...]
    specificity: tuple[float, ...]


def roi_masks(labels: ArrayLike, level: Level = "relaxed") -> np.ndarray:
    """``bool (R, H, W)``: what each annotator marked at ``level``.

    >>> roi_masks(np.array([[[0, 1, 2]]], np.uint8), "strict").tolist()
    [[[False, True, False]]]
    """
    arr = np.asarray(labels)
    if arr.ndim != 3 or arr.shape[0] < 1:
        raise ValueError(f"labels must be (raters ≥ 1, height, width), got shape {arr.shape}")
    if level == "strict":
        return arr == 1
    if level == "relaxed":
        return arr != 0
    raise ValueError(f"level must be 'strict' or 'relaxed', got {level!r}")


def majority_vote(labels: ArrayLike, level: Level = "relaxed") -> np.ndarray:
    """Pixels marked by strictly more than half of the annotators, ``bool (H, W)``.

    Parameters
    ----------
    labels : array_like of uint8, shape (R, H, W)
        One label image per annotator (R ≥ 1): 0 background, 1 certain, 2 uncertain.
    level : {"relaxed", "strict"}
        Relaxed: certain or uncertain pixels count as marked; strict: certain only.

    Returns
    -------
    ndarray of bool, shape (H, W)
        Ties (R even, exactly R/2 votes) are left out.

    Examples
    --------
    >>> lab = np.array([[[1, 1, 0, 2]], [[1, 0, 0, 2]]], np.uint8)   # two annotators
    >>> majority_vote(lab).astype(int).tolist()                        # 1 of 2 is a tie
    [[1, 0, 0, 1]]
    >>> majority_vote(lab, "strict").astype(int).tolist()
    [[1, 0, 0, 0]]
    """
    masks = roi_masks(labels, level)
    votes = masks.sum(axis=0, dtype=np.int64)
    return 2 * votes > masks.shape[0]


def staple(labels: ArrayLike, level: Level = "relaxed") -> StapleResult:
    """STAPLE consensus (ITK's ``STAPLEImageFilter`` EM, foreground value 1, its default
    iteration limit and convergence threshold, run over vote patterns by
    :func:`~slicereview.engines.agreement.staple_em.staple_counts`).

    Parameters
    ----------
    labels : array_like of uint8, shape (R, H, W)
        One label image per annotator (R ≥ 1): 0 background, 1 certain, 2 uncertain.
    level : {"relaxed", "strict"}
        Which pixels count as marked.

    Returns
    -------
    StapleResult

    Examples
    --------
    >>> lab = np.zeros((3, 6, 6), np.uint8)
    >>> lab[:, 1:4, 1:4] = 1
    >>> lab[2, 4, 1:4] = 1                 # the third annotator draws one row more
    >>> r = staple(lab)
    >>> int(r.mask.sum()), [round(s, 2) for s in r.sensitivity]
    (9, [1.0, 1.0, 1.0])
    >>> staple(np.zeros((2, 3, 3), np.uint8)).sensitivity
    (nan, nan)
    """
    masks = roi_masks(labels, level)
    n = masks.shape[0]
    codes, counts = vote_patterns(masks)
    em, sensitivity, specificity = _estimate(counts, n)
    if em is None:                                     # identical masks: their common mask
        common = masks[0]
        return StapleResult(common.astype(np.float32), common.copy(), sensitivity, specificity)
    # a 0/0 pattern (ITK: NaN) is not foreground; float32 as the product always showed it
    table = np.clip(np.nan_to_num(em.table(n), nan=0.0), 0.0, 1.0).astype(np.float32)
    probability = table[codes]
    return StapleResult(probability, probability > 0.5, sensitivity, specificity)


def staple_performance(labels: ArrayLike, level: Level = "relaxed"
                       ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Only each annotator's STAPLE sensitivity and specificity (as :func:`staple`, without
    mapping the probability back to the pixels): the owner's report calls it per image.

    >>> lab = np.zeros((3, 4, 4), np.uint8); lab[:2, 1:3, 1:3] = 1
    >>> [round(x, 3) for x in staple_performance(lab)[0]]
    [1.0, 1.0, 0.0]
    """
    masks = roi_masks(labels, level)
    _, sensitivity, specificity = _estimate(vote_patterns(masks)[1], masks.shape[0])
    return sensitivity, specificity


def staple_rates(counts: Sequence[np.ndarray], raters: Sequence[int]
                 ) -> list[tuple[tuple[float, ...], tuple[float, ...]]]:
    """:func:`staple_performance` of many images from their vote-pattern counts
    (:func:`~.staple_em.vote_patterns`, relaxed or strict as the caller chose): images with the
    same number of annotators run in one :func:`~.staple_em.staple_batch`.

    >>> lab = np.zeros((3, 4, 4), np.uint8); lab[:2, 1:3, 1:3] = 1
    >>> counts = vote_patterns(roi_masks(lab, "relaxed"))[1]
    >>> staple_rates([counts], [3]) == [staple_performance(lab)]
    True
    """
    out: list[tuple[tuple[float, ...], tuple[float, ...]]] = [((), ())] * len(counts)
    batches: dict[int, list[int]] = {}
    for k, (row, n) in enumerate(zip(counts, raters, strict=True)):
        same = _identical_rates(row, n)
        if same is None:
            batches.setdefault(n, []).append(k)
        else:
            out[k] = same
    for n, rows in batches.items():
        sensitivity, specificity = staple_batch(np.stack([counts[k] for k in rows]), n)
        for k, se, sp in zip(rows, sensitivity, specificity, strict=True):
            out[k] = (tuple(float(x) for x in se), tuple(float(x) for x in sp))
    return out


def _identical_rates(counts: np.ndarray, n: int
                     ) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """The rates when every annotator drew the same mask (only the patterns "nobody" and
    "everybody" occur; see the module doc), else ``None``."""
    everybody = (1 << n) - 1
    if n == 1 or counts[1:everybody].sum() == 0:
        sens = 1.0 if counts[everybody] else math.nan
        spec = 1.0 if counts[0] else math.nan
        return (sens,) * n, (spec,) * n
    return None


def _estimate(counts: np.ndarray, n: int
              ) -> tuple[StapleEM | None, tuple[float, ...], tuple[float, ...]]:
    """The EM on the pattern counts, or ``None`` with the module's rates when every annotator
    drew the same mask."""
    same = _identical_rates(counts, n)
    if same is not None:
        return None, same[0], same[1]
    em = staple_counts(counts, n)
    return em, em.sensitivity, em.specificity


def consensus_mask(labels: ArrayLike, method: str = "majority",
                   level: Level = "relaxed") -> tuple[np.ndarray, StapleResult | None]:
    """The consensus ``bool (H, W)`` by ``method`` (``"majority"`` or ``"staple"``), and the
    :class:`StapleResult` for STAPLE (``None`` for majority).

    >>> mask, extra = consensus_mask(np.ones((3, 2, 2), np.uint8), "majority")
    >>> bool(mask.all()), extra is None
    (True, True)
    """
    if method == "majority":
        return majority_vote(labels, level), None
    if method == "staple":
        result = staple(labels, level)
        return result.mask, result
    raise ValueError(f"method must be one of {', '.join(CONSENSUS_METHODS)}, got {method!r}")
