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

:func:`outline_uncertain_share` and :func:`outline_disagreement` compute the same two from the
outlines by area (shapely 2), which is what the order rule uses: a mammogram's masks cost
megapixels, its outlines a few polygon operations (300 mammograms with three annotations each:
8.8 s by raster, see docs/performance.md).

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
from typing import Any

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


def _region(polygons: Sequence[tuple[ArrayLike, object]], certain_only: bool = False) -> Any:
    """The union of outlines ``(vertices (N, 2) (x, y), certainty)`` as a shapely geometry
    (each ring made valid first: a self-crossing outline keeps the parts it encloses)."""
    from shapely import Polygon as Shape
    from shapely import make_valid, unary_union

    shapes = [make_valid(Shape(np.asarray(v, dtype=np.float64))) for v, c in polygons
              if len(np.asarray(v)) >= 3 and (not certain_only or str(c) == "certain")]
    return unary_union(shapes) if shapes else None


def outline_uncertain_share(polygons: Sequence[tuple[ArrayLike, object]]) -> float:
    """:func:`uncertain_share` from outlines ``(vertices, certainty)`` by area (shapely), at
    the cost of a few polygon operations instead of a raster of the image: the uncertain area
    not covered by a certain outline over the area of their union; 0.0 when nothing is marked.

    >>> sq = np.array([[0, 0], [4, 0], [4, 4], [0, 4]], float)
    >>> outline_uncertain_share([(sq, "certain"), (sq + [4, 0], "uncertain")])
    0.5
    """
    every = _region(polygons)
    if every is None or every.area == 0:
        return 0.0
    certain = _region(polygons, certain_only=True)
    return float(1.0 - (certain.area if certain is not None else 0.0) / every.area)


def outline_disagreement(annotations: Sequence[Sequence[tuple[ArrayLike, object]]]) -> float:
    """:func:`disagreement` of relaxed regions from outlines by area (shapely): ``1 −`` the
    mean pairwise Dice ``2|A ∩ B| / (|A| + |B|)`` of each annotation's union of outlines (two
    empty ones agree); NaN for fewer than two annotations.

    >>> sq = np.array([[0, 0], [4, 0], [4, 4], [0, 4]], float)
    >>> outline_disagreement([[(sq, "certain")], [(sq + [2, 0], "uncertain")]])
    0.5
    """
    if len(annotations) < 2:
        return math.nan
    regions = [_region(a) for a in annotations]
    pairs = []
    for a, b in combinations(regions, 2):
        area_a = a.area if a is not None else 0.0
        area_b = b.area if b is not None else 0.0
        if area_a + area_b == 0:
            pairs.append(1.0)
        elif a is None or b is None:
            pairs.append(0.0)
        else:
            pairs.append(2.0 * a.intersection(b).area / (area_a + area_b))
    return 1.0 - float(np.mean(pairs))


def ordered(scores: Mapping[int, float], order: Sequence[int]) -> list[int]:
    """``order``'s ids by score, highest first; NaN or missing scores last; ties keep
    ``order``."""
    place = {i: k for k, i in enumerate(order)}

    def key(i: int) -> tuple[bool, float, int]:
        s = scores.get(i, math.nan)
        return (math.isnan(s), -s if not math.isnan(s) else 0.0, place[i])

    return sorted(order, key=key)
