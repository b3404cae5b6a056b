"""What the project model learns from: the accepted images and their truth, held once here.

**An accepted image** is one that reviewers accepted work on: among the finished
annotations (``submitted`` or ``nothing_to_annotate``; repeats left out) of people (not of a
model rater) in any phase but onboarding, take per annotator the newest one that has a
decision (the latest phase and round); the image is accepted when at least one of those
decisions is *accept* and none is *expert review* (an image sent to an expert waits for the
expert). Its *accepted annotations* are those; rejected ones (sent back for revision) and
annotations not reviewed yet are left out of its truth.

**Its truth** (a label image ``uint8 (rows, cols)``: 0 background, 1 region, 2 uncertain):

* its **gold** where the image has one (an expert's annotation or an imported mask): gold
  outranks the consensus;
* else **one accepted annotation**: its label image as drawn (its uncertain polygons 2);
* else the **consensus of the accepted annotations** (majority, as ``export --consensus
  majority``): 1 where strictly more than half marked the pixel *certain*; 0 where strictly
  more than half left it unmarked; 2 (uncertain) everywhere else -- the pixels they disagree
  on, and those most marked uncertain.

Uncertain pixels (2) are **left out** of training and of the held-out scores
(:mod:`slicereview.engines.learning.sampling`): neither region nor background.

Example
-------
>>> labels = np.array([[[1, 1, 0, 2]], [[1, 0, 0, 2]], [[1, 2, 0, 0]]], np.uint8)
>>> consensus(labels)
array([[1, 2, 0, 2]], dtype=uint8)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from slicereview.app.models.raters import model_ids
from slicereview.model import AnnotationStatus, Decision, Phase
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
_PHASE_ORDER = {Phase.ONBOARDING: 0, Phase.PILOT: 1, Phase.FORMAL: 2}


@dataclass(frozen=True)
class TrainingImage:
    """One accepted image: its id and case id, where its truth comes from (``"gold"``,
    ``"annotation"`` or ``"consensus"``) and the accepted annotations' ids."""

    image_id: int
    case_id: str
    truth: str
    annotation_ids: tuple[int, ...]


def accepted_images(project: Project) -> list[TrainingImage]:
    """The project's accepted images (see the module text), by image id."""
    finished = [a for a in project.annotations.all(status=list(FINISHED))
                if a.phase != Phase.ONBOARDING and a.round > 0]
    decisions = project.reviews.current_decisions([a.id for a in finished])
    models = model_ids(project)  # (a model's predictions never train the project model)
    newest: dict[tuple[int, int], tuple[tuple[int, int, int], int, str]] = {}
    for a in finished:
        if a.id not in decisions:
            continue
        if a.rater_id in models:
            continue
        order = (_PHASE_ORDER.get(a.phase, 0), a.round, a.id)
        key = (a.image_id, a.rater_id)
        decision = str(decisions[a.id].decision)
        if key not in newest or order > newest[key][0]:
            newest[key] = (order, a.id, decision)
    by_image: dict[int, list[tuple[int, str]]] = {}
    for (image_id, _), (_, annotation_id, decision) in newest.items():
        by_image.setdefault(image_id, []).append((annotation_id, decision))
    gold = set(project.workflow.gold_images())
    found = []
    for image_id in sorted(by_image):
        decided = by_image[image_id]
        ids = tuple(sorted(a for a, d in decided if d == Decision.ACCEPT))
        if not ids or any(d == Decision.EXPERT_REVIEW for _, d in decided):
            continue
        truth = "gold" if image_id in gold else "annotation" if len(ids) == 1 else "consensus"
        found.append(TrainingImage(image_id, project.images.get(image_id).case_id, truth, ids))
    return found


def consensus(labels: np.ndarray) -> np.ndarray:
    """The majority label image of ``n`` label images ``uint8 (n, H, W)`` (module text)."""
    stack = np.asarray(labels)
    half = stack.shape[0] / 2
    certain = np.count_nonzero(stack == 1, axis=0) > half
    unmarked = np.count_nonzero(stack == 0, axis=0) > half
    out = np.full(stack.shape[1:], 2, np.uint8)
    out[unmarked] = 0
    out[certain] = 1
    return out


def truth_reader(project: Project, item: TrainingImage) -> Callable[[], np.ndarray]:
    """A reader of an accepted image's truth label image that touches no project: what it
    needs (the gold's mask or the annotations' polygons) is read now, in the caller's
    thread; the rasterising is done when called."""
    from slicereview.app.gold import gold_labels
    from slicereview.engines.masks import rasterize

    image = project.images.get(item.image_id)
    shape = (image.rows, image.cols)
    if item.truth == "gold":
        labels = gold_labels(project, item.image_id)
        assert labels is not None
        return lambda: labels
    drawn = [project.polygons.of(a) for a in item.annotation_ids]
    if len(drawn) == 1:
        return lambda: rasterize(drawn[0], shape)
    return lambda: consensus(np.stack([rasterize(p, shape) for p in drawn]))
