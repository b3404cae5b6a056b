"""Label Studio-style task agreement [LabelStudio] ("How task agreement and labeling consensus
are calculated").

* :func:`task_agreement` — the mean of the pairwise scores of all annotations of a task, or,
  with a threshold, the share of annotations in the largest group that agrees;
* :func:`agreement_matrix` — annotator × annotator agreement for any pairwise metric;
* :func:`choices_agreement` — "exact matching" of per-control choices;
* :func:`span_iou`, :func:`iou_threshold_agreement`, :func:`match_regions`,
  :func:`precision_recall_f1` — IoU-based agreement of regions, with label matching.

Scores are fractions in [0, 1] (Label Studio prints percent).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from slicereview.engines.agreement.consensus import Shape, shape_iou

T = TypeVar("T")
Metric = Callable[[T, T], float]


def pairwise_scores(annotations: Sequence[T], metric: Metric) -> np.ndarray:
    """Symmetric ``(n, n)`` matrix of ``metric`` over all pairs; the diagonal is 1.0."""
    n = len(annotations)
    scores = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            scores[i, j] = scores[j, i] = float(metric(annotations[i], annotations[j]))
    return scores


def task_agreement(
    annotations: Sequence[T], metric: Metric, threshold: float | None = None
) -> float:
    """Agreement of the annotations of one task.

    Parameters
    ----------
    annotations : sequence
        The annotations of one task (any objects ``metric`` understands).
    metric : callable ``(x, y) -> float``
        Pairwise agreement score in [0, 1].
    threshold : float, optional
        Without it, the task agreement is the mean score over all pairs (Label Studio's
        default method). With it, two annotations *match* when their score is ≥ ``threshold``;
        matching annotations form groups (connected components of the match graph) and the
        task agreement is the size of the largest group over the number of annotations.

    Returns
    -------
    float
        NaN with fewer than two annotations.

    Examples
    --------
    The Label Studio example: word spans ``[start, end)`` with a sentiment label.

    >>> def spans(x, y):
    ...     return span_iou(x[:2], y[:2]) if x[2] == y[2] else 0.0
    >>> anns = [(0, 2, "positive"), (1, 2, "positive"), (1, 2, "negative")]
    >>> round(task_agreement(anns, spans, threshold=0.4), 4)
    0.6667
    >>> round(task_agreement(anns, spans), 4)  # mean of 0.5, 0, 0
    0.1667
    """
    n = len(annotations)
    if n < 2:
        return math.nan
    scores = pairwise_scores(annotations, metric)
    if threshold is None:
        return float(scores[np.triu_indices(n, 1)].mean())
    from scipy.sparse import csgraph, csr_matrix  # lazy: keeps start-up light

    graph = csr_matrix(scores >= threshold)
    _, component = csgraph.connected_components(graph, directed=False)
    return float(np.bincount(component).max() / n)


def agreement_matrix(
    annotations: Mapping[Hashable, Mapping[Hashable, T]], metric: Metric
) -> tuple[list[Hashable], np.ndarray]:
    """Annotator × annotator agreement: mean ``metric`` over the tasks both annotated.

    Parameters
    ----------
    annotations : mapping annotator -> (mapping task -> annotation)
    metric : callable ``(x, y) -> float``

    Returns
    -------
    annotators : list
        Row and column order (the mapping's order).
    matrix : ndarray, shape (A, A)
        NaN where two annotators share no task; the diagonal is each annotator against
        themself (1.0 for any sensible metric).

    Examples
    --------
    >>> same = lambda x, y: float(x == y)
    >>> names, m = agreement_matrix({"ann": {1: "a", 2: "b"}, "bob": {1: "a", 2: "c"}}, same)
    >>> m.tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    names = list(annotations)
    out = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j in range(i, len(names)):
            b = names[j]
            shared = [t for t in annotations[a] if t in annotations[b]]
            if shared:
                value = float(np.mean([metric(annotations[a][t], annotations[b][t])
                                       for t in shared]))
                out[i, j] = out[j, i] = value
    return names, out


def choices_agreement(x: Mapping[str, Any], y: Mapping[str, Any]) -> float:
    """Exact matching of choices per control: the share of controls answered identically.

    Controls are the union of both mappings' keys; a control missing from a mapping, or mapped
    to None, is "not selected", and two unselected controls match. Both empty → 1.0.

    Examples
    --------
    >>> choices_agreement({"c1": "A", "c2": "B", "c3": None}, {"c1": "A", "c2": "C"})
    0.6666666666666666
    """
    controls = set(x) | set(y)
    if not controls:
        return 1.0
    return sum(x.get(c) == y.get(c) for c in controls) / len(controls)


def span_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two 1-D half-open spans ``(start, end)`` (text offsets, time-series ranges).

    Two empty spans → 1.0.

    Examples
    --------
    >>> round(span_iou((0, 20), (10, 30)), 4)
    0.3333
    """
    (a0, a1), (b0, b1) = a, b
    if a1 < a0 or b1 < b0:
        raise ValueError("a span must have end >= start")
    inter = max(0.0, min(a1, b1) - max(a0, b0))
    union = (a1 - a0) + (b1 - b0) - inter
    return 1.0 if union == 0 else float(inter / union)


def iou_threshold_agreement(ious: Iterable[float], threshold: float = 0.5) -> float:
    """Share of region pairs whose IoU is ≥ ``threshold``; no pairs (both empty) → 1.0.

    Examples
    --------
    >>> round(iou_threshold_agreement([0.99, 0.34, 0.82], 0.5), 4)
    0.6667
    """
    values = list(ious)
    if not values:
        return 1.0
    return sum(v >= threshold for v in values) / len(values)


def match_regions(x: Sequence[Shape], y: Sequence[Shape]) -> list[tuple[float, str, str | None]]:
    """Pair each region of ``x`` with the region of ``y`` of highest IoU (any label).

    Returns ``(iou, label_x, label_y)`` per region of ``x``; ``(0.0, label_x, None)`` when
    ``y`` has no regions. Ties go to the earlier region of ``y``.
    """
    out: list[tuple[float, str, str | None]] = []
    for region in x:
        best, label = 0.0, None
        for other in y:
            value = shape_iou(region, other)
            if label is None or value > best:
                best, label = value, other.object_class
        out.append((best, region.object_class, label))
    return out


@dataclass(frozen=True)
class PrecisionRecall:
    """Counts and scores of :func:`precision_recall_f1`."""

    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float


def precision_recall_f1(
    pairs: Iterable[tuple[float, str, str | None]], threshold: float = 0.5
) -> PrecisionRecall:
    """Precision, recall and F1 of region pairs at an IoU threshold, with label matching.

    A pair ``(iou, label_x, label_y)`` is a true positive when IoU ≥ threshold and the labels
    match, a false positive when IoU ≥ threshold and they differ, a false negative when
    IoU < threshold and they match; a pair below the threshold with different labels counts
    nowhere (Label Studio's rule). No pairs at all (both annotations empty) → 1.0 for all three;
    a 0/0 precision or recall otherwise → 0.0, and F1 is 0.0 when precision + recall is 0.

    Examples
    --------
    >>> pairs = [(0.99, "Car", "Car"), (0.34, "Car", "Car"), (0.82, "Car", "Airplane"),
    ...          (0.44, "Car", "Airplane"), (0.67, "Car", "Airplane")]
    >>> r = precision_recall_f1(pairs, 0.5)
    >>> (r.tp, r.fp, r.fn), round(r.precision, 4), r.recall, round(r.f1, 4)
    ((1, 2, 1), 0.3333, 0.5, 0.4)
    """
    items = list(pairs)
    if not items:
        return PrecisionRecall(0, 0, 0, 1.0, 1.0, 1.0)
    tp = sum(1 for v, a, b in items if v >= threshold and a == b)
    fp = sum(1 for v, a, b in items if v >= threshold and a != b)
    fn = sum(1 for v, a, b in items if v < threshold and a == b)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PrecisionRecall(tp, fp, fn, precision, recall, f1)
