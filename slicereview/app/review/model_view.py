"""The model in QA, per image: the model's prediction against the annotators' consensus
(majority vote and STAPLE) and against gold, per image and per box; the boxes the model found
that no annotator marked, and the reverse; how far the model is from the consensus (what the
queue's ``model-disagreement`` method ranks by). Docs: docs/models.md, "The model in QA".

Rules held here, once:

* **the model's mask** — its newest finished annotation of the image
  (:func:`slicereview.app.qa.preannotation.model_annotation`), relaxed ROI (certain and
  uncertain pixels); no prediction: nothing to compare (``None``, NaN in the queue).
* **the people** — the annotations given (a queue row's: each annotator's latest finished
  round), never a model's; the consensus is of their relaxed masks: the majority vote (more
  than half) and STAPLE's mask (probability > 0.5), :mod:`slicereview.engines.agreement.
  consensus_masks`. One annotator: their mask is the consensus.
* **gold** — the image's gold standard when it has one (relaxed).
* **the measures** — :func:`slicereview.engines.agreement.model_agreement.compare` (Dice,
  HD95 with SimpleITK, sensitivity, specificity) per image and inside each box of the union
  of the model's and the people's masks (:func:`~.model_agreement.boxes`, against the
  majority).
* **model disagreement** — ``1 − Dice(model, majority)``.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                     [NewImage(20, 20)])
>>> def square(name, x0, size):
...     ann = project.annotations.for_image(project.raters.add(name), image)
...     v = np.array([[x0, x0], [x0 + size, x0], [x0 + size, x0 + size], [x0, x0 + size]], float)
...     _ = project.polygons.replace(ann.id, [Polygon(v)])
...     project.annotations.set_status(ann.id, "submitted")
...     return ann
>>> people = [square("a", 2, 8).id, square("b", 2, 8).id]
>>> model = square("net", 4, 8).rater_id
>>> view = model_on_image(project, image, people, model)
>>> round(view.majority.dice, 3), round(view.staple.dice, 3), view.gold is None
(0.562, 0.562, True)
>>> [b.where for b in view.boxes], view.model_only, view.people_only
(['both'], [], [])
>>> round(model_disagreements(project, {image: tuple(people)}, model)[image], 3)
0.438
>>> project.close()
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.app.qa.preannotation import model_annotation, model_label
from slicereview.engines.agreement.model_agreement import ModelBox, Overlap, boxes, compare
from slicereview.engines.masks import rasterize
from slicereview.model import Polygon
from slicereview.store import Project


@dataclass(frozen=True)
class ModelOnImage:
    """The model on one image (module docstring). ``mask``: ``bool (H, W)``."""

    image_id: int
    model_id: int
    label: str
    annotation_id: int
    polygons: tuple[Polygon, ...]
    mask: np.ndarray
    majority: Overlap
    staple: Overlap
    gold: Overlap | None
    boxes: tuple[ModelBox, ...]

    @property
    def model_only(self) -> list[tuple[int, int, int, int]]:
        """Boxes the model found that no annotator marked (``(row0, col0, row1, col1)``)."""
        return [b.bbox for b in self.boxes if b.where == "model only"]

    @property
    def people_only(self) -> list[tuple[int, int, int, int]]:
        """Boxes the annotators marked that the model missed."""
        return [b.bbox for b in self.boxes if b.where == "people only"]


def _shape(project: Project, image_id: int) -> tuple[int, int]:
    image = project.images.get(image_id)
    return image.rows, image.cols


def people_labels(project: Project, annotation_ids: Sequence[int], shape: tuple[int, int]
                  ) -> np.ndarray:
    """The people's label images ``uint8 (R, H, W)``."""
    labels = np.zeros((len(annotation_ids), *shape), np.uint8)
    for k, ann in enumerate(annotation_ids):
        labels[k] = rasterize(project.polygons.of(ann), shape)
    return labels


def model_on_image(project: Project, image_id: int, annotation_ids: Sequence[int],
                   model_id: int) -> ModelOnImage | None:
    """The model against the people of ``annotation_ids`` and gold on ``image_id``;
    ``None`` when the model did not predict the image."""
    from slicereview.app.qa.workflow import gold_labels
    from slicereview.engines.agreement.consensus_masks import majority_vote, staple

    prediction = model_annotation(project, model_id, image_id)
    if prediction is None:
        return None
    shape = _shape(project, image_id)
    polygons = tuple(project.polygons.of(prediction))
    mask = rasterize(polygons, shape) > 0
    labels = people_labels(project, annotation_ids, shape)
    if len(labels):
        majority = np.asarray(majority_vote(labels))
        agreed = np.asarray(staple(labels).mask)
    else:
        majority = agreed = np.zeros(shape, bool)
    gold = gold_labels(project, image_id)
    return ModelOnImage(
        image_id, model_id, model_label(project.raters.get(model_id)), prediction, polygons,
        mask, compare(mask, majority), compare(mask, agreed),
        None if gold is None else compare(mask, gold > 0),
        tuple(boxes(mask, labels > 0, majority)))


def model_disagreements(project: Project, annotations: Mapping[int, Sequence[int]],
                        model_id: int) -> dict[int, float]:
    """``1 − Dice(model, majority)`` of each image of ``annotations`` (image id → the
    people's annotation ids); NaN where the model did not predict the image."""
    from slicereview.engines.agreement.consensus_masks import majority_vote
    from slicereview.engines.agreement.overlap import dice

    out = {}
    for image_id, ids in annotations.items():
        prediction = model_annotation(project, model_id, image_id)
        if prediction is None:
            out[image_id] = math.nan
            continue
        shape = _shape(project, image_id)
        mask = rasterize(project.polygons.of(prediction), shape) > 0
        labels = people_labels(project, ids, shape)
        majority = majority_vote(labels) if len(labels) else np.zeros(shape, bool)
        out[image_id] = 1.0 - dice(mask, majority)
    return out
