"""Active selection: how much an image would gain from one more annotation, and the order that
follows (the rule that uses it is :mod:`slicereview.app.qa.selection`).

Two scores, higher = annotate sooner:

* **uncertainty** of one rater's (a model's) work on the image —
  :func:`uncertain_share`: the area of its *uncertain* pixels relative to its certain plus
  uncertain pixels (its label image, :mod:`slicereview.engines.masks`), the share of what it
  marked that it was unsure of; 0 when it marked nothing (it saw nothing to doubt). Where a
  probability map is stored, :func:`mean_entropy` is the mean binary entropy (bits) instead,
  the classic uncertainty-sampling score [Settles2009];
* **disagreement** among the annotations already on the image — :func:`disagreement`:
  ``1 −`` the mean pairwise Dice of their relaxed masks (certain or uncertain pixels), the
  query-by-committee idea [Settles2009] with the annotators as the committee. Two empty masks
  agree (Dice 1); fewer than two annotations → NaN (nothing to disagree yet).

:func:`ordered` turns scores into an order: highest first, NaN last, ties (and NaN) in the
order given (the batch's), so an order is a pure function of the scores and that order.

Example
-------
>>> import numpy as np
>>> labels = np.zeros((4, 4), np.uint8); labels[0, :2] = 1; labels[1, :2] = 2
>>> uncertain_share(labels)
0.5
>>> a = np.zeros((4, 4), bool); a[:2] = True
>>> round(disagreement([a, a, np.zeros((4, 4), bool)]), 4)
0.6667
>>> ordered({1: 0.2, 2: float("nan"), 3: 0.9, 4: 0.2}, [4, 3, 2, 1])
[3, 4, 1, 2]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike

from slicereview.engines.agreement.overlap import dice
from slicereview.engines.masks import CERTAIN, UNCERTAIN


def uncertain_share(labels: ArrayLike) -> float:
    """Uncertain pixels over certain + uncertain pixels of a label image ``uint8 (H, W)``;
    0.0 when nothing is marked."""
    lab = np.asarray(labels)
    certain = int(np.count_nonzero(lab == CERTAIN))
    uncertain = int(np.count_nonzero(lab == UNCERTAIN))
    return uncertain / (certain + uncertain) if certain + uncertain else 0.0


def mean_entropy(probability: ArrayLike, where: ArrayLike | None = None) -> float:
    """Mean binary entropy in bits, ``−p log2 p − (1−p) log2 (1−p)``, of a probability map
    ``float (H, W)`` in [0, 1] (optionally over the pixels of a ``bool`` mask ``where``);
    NaN when no pixel is counted.

    >>> mean_entropy(np.array([[0.5, 0.0], [1.0, 0.5]]))
    0.5
    """
    p = np.asarray(probability, dtype=np.float64)
    if where is not None:
        p = p[np.asarray(where, dtype=bool)]
    if p.size == 0:
        return math.nan
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("probabilities must lie in [0, 1] (and not be NaN)")
    q = np.clip(p, 1e-300, 1.0)
    r = np.clip(1 - p, 1e-300, 1.0)
    h = -(p * np.log2(q) + (1 - p) * np.log2(r))
    return float(h.mean())


def disagreement(masks: Sequence[ArrayLike]) -> float:
    """``1 −`` mean pairwise Dice of boolean masks ``(H, W)``; NaN for fewer than two."""
    if len(masks) < 2:
        return math.nan
    pairs = [dice(a, b) for a, b in combinations(masks, 2)]
    return 1.0 - float(np.mean(pairs))


def ordered(scores: Mapping[int, float], order: Sequence[int]) -> list[int]:
    """``order``'s ids by score, highest first; NaN or missing scores last; ties keep
    ``order``."""
    place = {i: k for k, i in enumerate(order)}

    def key(i: int) -> tuple[bool, float, int]:
        s = scores.get(i, math.nan)
        return (math.isnan(s), -s if not math.isnan(s) else 0.0, place[i])

    return sorted(order, key=key)
