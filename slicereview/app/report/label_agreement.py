"""Per-image agreement the way two labelling platforms compute it, for the per-image table of
the report and the Overview tab and for ``queue --csv``.

* **mean pairwise consensus** (Labelbox's consensus method, J. Thomas, "Labelbox Consensus
  Calculation Method"; :func:`~slicereview.engines.agreement.consensus_scores`) — each
  annotation is a *label*: its image-level answers (questions of the project) and its polygons
  as shapes, every polygon one shape of the class ``region`` (its label when it has one)
  carrying its per-polygon answers as nested classifications. Certainty is not a class: a
  certain and an uncertain outline of the same spot pair up. Each label's consensus is the mean
  of its pairwise scores with the others (shapes paired nearest first by IoU); the image's value
  is the mean over its labels.
* **mean pairwise mask IoU** (Label Studio's task agreement, "How task agreement and labeling
  consensus are calculated", default method; :func:`~slicereview.engines.agreement.
  task_agreement`) — the mean over annotator pairs of the IoU of their masks (relaxed: certain
  or uncertain pixels count as marked; two empty masks agree, 1.0).

Both are NaN with fewer than two annotations. Answers to questions the project does not know
(or whose kind does not fit the answer) are left out.

Example
-------
>>> import numpy as np
>>> from slicereview.model import Polygon
>>> square = lambda x: Polygon(np.array([[x, 1], [x + 4, 1], [x + 4, 5], [x, 5]], float))
>>> a = Work({"density": "A"}, (square(1),))
>>> b = Work({"density": "B"}, (square(3),))
>>> scores = label_scores((8, 8), [a, b], {"density": "radio"})
>>> round(scores.consensus, 4), round(scores.mask_iou, 4)    # (0 + 1/3) / 2, IoU 8 / 24
(0.1667, 0.3333)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from slicereview.engines.agreement import (
    Classification,
    Label,
    Shape,
    consensus_scores,
    iou,
    task_agreement,
)
from slicereview.engines.masks import binary_mask, polygon_crop, rasterize

#: Column names (CSV) and headers (tables) of the two values.
CONSENSUS = "mean_pairwise_consensus"
MASK_IOU = "mean_pairwise_mask_iou"
HEADERS = {CONSENSUS: "mean pairwise consensus (Labelbox)",
           MASK_IOU: "mean pairwise mask IoU (Label Studio)"}
REGION = "region"


@dataclass(frozen=True)
class Work:
    """One annotation as the two methods see it: image-level answers and polygons."""

    answers: Mapping[str, Any] = field(default_factory=dict)
    #: :class:`~slicereview.model.Polygon` or anything with ``vertices``, ``certainty``,
    #: ``label`` and ``classifications``.
    polygons: Sequence[Any] = ()


@dataclass(frozen=True)
class LabelScores:
    consensus: float
    mask_iou: float

    def as_dict(self) -> dict[str, float]:
        return {CONSENSUS: self.consensus, MASK_IOU: self.mask_iou}


def _classifications(answers: Mapping[str, Any], kinds: Mapping[str, str]
                     ) -> list[Classification]:
    out = []
    for key, value in answers.items():
        kind = kinds.get(key)
        if kind in ("radio", "text") and isinstance(value, str):
            out.append(Classification(key, kind, value))  # type: ignore[arg-type]
        elif kind in ("checklist", "dropdown") and isinstance(value, list):
            out.append(Classification(key, kind, tuple(str(v) for v in value)))  # type: ignore[arg-type]
    return out


def label_of(work: Work, image_shape: tuple[int, int], kinds: Mapping[str, str],
             crops: Sequence | None = None) -> Label:
    """The Labelbox label of one annotation (see the module doc); ``crops``: its polygons'
    pixels when already filled (:func:`~slicereview.engines.masks.rasterize`'s ``crops``)."""
    shapes = []
    for k, p in enumerate(work.polygons):
        nested = _classifications(p.classifications, kinds)
        found = polygon_crop(p.vertices, image_shape) if crops is None else crops[k]
        top, crop = ((0, 0), np.zeros((0, 0), bool)) if found is None else (found[:2],
                                                                          found[2])
        shapes.append(Shape.from_crop(p.label or REGION, top, crop, nested))
    return Label(tuple(_classifications(work.answers, kinds)), tuple(shapes))


def label_scores(image_shape: tuple[int, int], works: Sequence[Work],
                 kinds: Mapping[str, str], masks: Sequence[np.ndarray] | None = None,
                 crops: Sequence[Sequence] | None = None) -> LabelScores:
    """Both values of one image's annotations (``kinds``: question key → kind; ``masks``: the
    annotations' relaxed masks and ``crops`` their polygons' pixels, when already
    rasterised)."""
    if len(works) < 2:
        return LabelScores(math.nan, math.nan)
    labels = [label_of(w, image_shape, kinds, None if crops is None else crops[k])
              for k, w in enumerate(works)]
    consensus = float(np.mean(consensus_scores(labels)))
    if masks is None:
        masks = [binary_mask(rasterize(w.polygons, image_shape), "relaxed") for w in works]
    return LabelScores(consensus, task_agreement(list(masks), iou))


def question_kinds(project: Any) -> dict[str, str]:
    """Question key → kind, retired questions included (their answers are stored)."""
    return {q.name: q.kind for q in project.questions.all(retired=True)}


def image_scores(project: Any, image_id: int, annotation_ids: Sequence[int],
                 kinds: Mapping[str, str] | None = None) -> LabelScores:
    """Both values of the given annotations of one image (a queue row's)."""
    _, rows, cols = project.images.cases()[image_id]
    works = [Work(project.annotations.get(a).classifications, tuple(project.polygons.of(a)))
             for a in annotation_ids]
    return label_scores((int(rows), int(cols)), works,
                        question_kinds(project) if kinds is None else kinds)
