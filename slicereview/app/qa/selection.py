"""Active selection: the order in which a batch hands out its images, the rule held once.

*Next image to annotate* (:func:`slicereview.app.qa.claiming.next_image`, ``slicereview
claim``) and work packages (:func:`slicereview.app.qa.packages.package`) take a batch's
images in its **selection order** (:data:`ORDERS`), stored per batch:

* ``batch`` (the default, what every batch did before) — the order the batch was defined in;
* ``random`` — a seeded random permutation of it (SHA-256 of the seed and the image id, so an
  image keeps its place when others join);
* ``uncertainty`` — by a given rater's stored work on each image, most uncertain first: the
  area of its uncertain polygons over certain + uncertain
  (:func:`~slicereview.engines.review.selection.uncertain_share`). Meant for a model's
  predictions, it works for any rater (the rater is named when the order is set); an image the
  rater did not annotate comes after the others;
* ``disagreement`` — by the disagreement among the annotations already finished on the image
  (each annotator's latest round; raters of the annotator role only, so a reviewer's or
  an expert's gold is left out):
  ``1 −`` their mean pairwise Dice
  (:func:`~slicereview.engines.review.selection.disagreement`). An image with fewer than two
  finished annotations has no disagreement yet; it comes **first** (in batch order), so every
  image gets the two annotations that measure it before any image gets a third.

Scores are read when the order is used (each claim), so a claim follows the work done until
then; ties and unscored images keep the batch order. Only the task owner sets an order
(:func:`set_order`); it is stored in the project's ``meta`` (``selection.batch.ID``), which on
a server every login reads and only reviewers and owners write.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon, Certainty
>>> from slicereview.store import Project
>>> from slicereview.app.qa.workflow import define_batch
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.png").write_bytes(b"a")
>>> with Project.create(folder / "p.srproj") as project:
...     ids = project.images.add_source(folder / "a.png", "0" * 64, "png",
...                                     [NewImage(8, 8, frame=k) for k in range(3)])
...     owner, model = project.raters.add("owner", "owner"), project.raters.add("model")
...     batch = define_batch(project, "b", "formal", ids, annotators_per_image=2)
...     sq = np.array([[1, 1], [5, 1], [5, 5], [1, 5]], float)
...     for image, certainty in zip(ids[:2], ("certain", "uncertain")):
...         ann = project.annotations.for_image(model, image)
...         _ = project.polygons.replace(ann.id, [Polygon(sq, Certainty(certainty))])
...     _ = set_order(project, owner, batch, "uncertainty", rater_id=model)
...     order_of(project, batch).order, ordered_images(project, batch)
('uncertainty', [2, 1, 3])
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.engines.masks import binary_mask, rasterize
from slicereview.engines.review.selection import disagreement, ordered, uncertain_share
from slicereview.model import Annotation, AnnotationStatus, Role
from slicereview.store import Project

#: The selection orders, the default first.
ORDERS = ("batch", "random", "uncertainty", "disagreement")
FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
_KEY = "selection.batch.{}"


@dataclass(frozen=True)
class SelectionOrder:
    """A batch's selection order.

    Attributes
    ----------
    order : str
        One of :data:`ORDERS`.
    rater_id : int or None
        Whose work the ``uncertainty`` order reads (a model rater, or any rater).
    seed : int
        The ``random`` order's seed.
    """

    order: str = "batch"
    rater_id: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"the selection order must be one of {', '.join(ORDERS)}, "
                             f"got {self.order!r}")
        if self.order == "uncertainty" and self.rater_id is None:
            raise ValueError("the uncertainty order reads one rater's work (a model's "
                             "predictions): name the rater")

    def describe(self, project: Project) -> str:
        """One line for people: ``uncertainty of model's work``, ``random (seed 3)``, ..."""
        if self.order == "uncertainty" and self.rater_id is not None:
            return f"uncertainty of {project.raters.get(self.rater_id).name}'s work"
        if self.order == "random":
            return f"random (seed {self.seed})"
        return {"batch": "the batch's order", "disagreement":
                "disagreement among the finished annotations"}[self.order]


def order_of(project: Project, batch_id: int) -> SelectionOrder:
    """The batch's stored selection order (``batch`` when none was set)."""
    text = project.meta(_KEY.format(batch_id))
    if not text:
        return SelectionOrder()
    data = json.loads(text)
    return SelectionOrder(data.get("order", "batch"), data.get("rater_id"),
                          int(data.get("seed", 0)))


def set_order(project: Project, owner_id: int, batch_id: int, order: str,
              rater_id: int | None = None, seed: int = 0) -> SelectionOrder:
    """Store the batch's selection order (one transaction); only the task owner sets it.

    Raises
    ------
    PermissionError
        ``owner_id`` is not an owner.
    ValueError
        An unknown order, or ``uncertainty`` without a rater.
    KeyError
        No such batch or rater.
    """
    if project.raters.get(owner_id).role is not Role.OWNER:
        raise PermissionError(f"{project.raters.get(owner_id).name} is not an owner: only "
                              "the task owner sets a batch's selection order")
    project.workflow.batch(batch_id)
    chosen = SelectionOrder(order, rater_id if order == "uncertainty" else None, int(seed))
    if chosen.rater_id is not None:
        project.raters.get(chosen.rater_id)
    project.set_meta(_KEY.format(batch_id), json.dumps(
        {"order": chosen.order, "rater_id": chosen.rater_id, "seed": chosen.seed}))
    return chosen


def _latest(annotations: Sequence[Annotation]) -> dict[int, dict[int, Annotation]]:
    """image id → rater id → the rater's latest round (the store lists rounds in order)."""
    out: dict[int, dict[int, Annotation]] = {}
    for ann in annotations:
        out.setdefault(ann.image_id, {})[ann.rater_id] = ann
    return out


def _labels(project: Project, annotations: Sequence[Annotation], shape: tuple[int, int]
            ) -> list[np.ndarray]:
    """Label images of ``annotations``, cropped to the box round all of their polygons (Dice
    and area shares are the same there as over the whole image, at a crop's cost)."""
    polygons = [project.polygons.of(a.id) for a in annotations]
    points = [p.vertices for ps in polygons for p in ps if len(p.vertices)]
    if not points:
        return [np.zeros((1, 1), np.uint8) for _ in annotations]
    every = np.concatenate(points)
    x0 = max(0, int(math.floor(every[:, 0].min())))
    y0 = max(0, int(math.floor(every[:, 1].min())))
    x1 = min(shape[1], int(math.ceil(every[:, 0].max())) + 1)
    y1 = min(shape[0], int(math.ceil(every[:, 1].max())) + 1)
    crop = (max(1, y1 - y0), max(1, x1 - x0))
    shift = np.array([x0, y0], float)
    return [rasterize([_Shifted(p.vertices - shift, p.certainty) for p in ps], crop)
            for ps in polygons]


@dataclass(frozen=True)
class _Shifted:
    vertices: np.ndarray
    certainty: object


def scores(project: Project, batch_id: int, selection: SelectionOrder | None = None
           ) -> dict[int, float]:
    """image id → the order's score (higher = sooner) for the batch's images that have one;
    ``{}`` for ``batch`` and ``random``."""
    sel = selection or order_of(project, batch_id)
    if sel.order in ("batch", "random"):
        return {}
    batch = project.workflow.batch(batch_id)
    members = set(project.image_sets.members(batch.image_set_id))
    images = {im.id: im for im in project.images.all(sorted(members))}
    out: dict[int, float] = {}
    if sel.order == "uncertainty":
        mine = _latest([a for a in project.annotations.all(rater_id=sel.rater_id,
                                                           phase=batch.phase)
                        if a.image_id in members])
        for image_id, by_rater in mine.items():
            ann = next(iter(by_rater.values()))
            shape = (images[image_id].rows, images[image_id].cols)
            out[image_id] = uncertain_share(_labels(project, [ann], shape)[0])
        return out
    people = {r.id for r in project.raters.all() if r.role is Role.ANNOTATOR}
    finished = _latest([a for a in project.annotations.all(phase=batch.phase, status=FINISHED)
                        if a.image_id in members and a.rater_id in people
                        and a.rater_id != sel.rater_id])
    for image_id in members:
        anns = list(finished.get(image_id, {}).values())
        if len(anns) < 2:
            out[image_id] = math.inf  # nothing to measure yet: the first two come first
            continue
        shape = (images[image_id].rows, images[image_id].cols)
        out[image_id] = disagreement([binary_mask(lab, "relaxed")
                                      for lab in _labels(project, anns, shape)])
    return out


def _random_key(seed: int, image_id: int) -> bytes:
    return hashlib.sha256(f"selection:{seed}:{image_id}".encode()).digest()


def ordered_images(project: Project, batch_id: int,
                   selection: SelectionOrder | None = None) -> list[int]:
    """The batch's images in its selection order (see the module docstring)."""
    sel = selection or order_of(project, batch_id)
    batch = project.workflow.batch(batch_id)
    order = list(project.image_sets.members(batch.image_set_id))
    if sel.order == "batch":
        return order
    if sel.order == "random":
        return sorted(order, key=lambda i: _random_key(sel.seed, i))
    return ordered(scores(project, batch_id, sel), order)
