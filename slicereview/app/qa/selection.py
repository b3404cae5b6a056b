"""Active selection: the order in which a batch hands out its images, the rule held once.

*Next image to annotate* (:func:`slicereview.app.qa.claiming.next_image`, ``slicereview
claim``) and work packages (:func:`slicereview.app.qa.packages.package`) take a batch's
images in its **selection order** (:data:`ORDERS`), stored per batch:

* ``batch`` (the default, what every batch did before) — the order the batch was defined in;
* ``random`` — a seeded random permutation of it (SHA-256 of the seed and the image id, so an
  image keeps its place when others join);
* ``uncertainty`` — by a given rater's stored work on each image, most uncertain first: the
  area of its uncertain polygons over certain + uncertain
  (:func:`~slicereview.engines.review.selection.outline_uncertain_share`, by area of the
  outlines). Meant for a model rater's
  predictions (:func:`slicereview.app.models.raters.model_rater`: its finished annotations),
  it works for any rater (named when the order is set); an image the rater did not annotate
  comes after the others. A model that keeps its probabilities (the project model) stores its
  own per-image uncertainty instead, the mean binary entropy of its probability map
  (:func:`store_uncertainty`, :func:`~slicereview.engines.review.selection.mean_entropy`):
  then its images are ordered by those values, and an image without one comes after;
* ``disagreement`` — by the disagreement among the annotations already finished on the image
  (each annotator's latest round; people of the annotator role only, so a model's
  predictions and a reviewer's or an expert's gold are left out):
  ``1 −`` their mean pairwise Dice by area of the outlines
  (:func:`~slicereview.engines.review.selection.outline_disagreement`). An image with fewer than two
  finished annotations has no disagreement yet; it comes **first** (in batch order), so every
  image gets the two annotations that measure it before any image gets a third.

Scores are read when the order is used (each claim), so a claim follows the work done until
then; ties and unscored images keep the batch order. Only the task owner sets an order
(:func:`set_order`); it is stored in the project's ``meta`` (``selection.batch.ID``), which on
a server every login reads and only reviewers and owners write.

**On a server** an annotator's login reads only its own annotations (the database's policies,
docs/server.md): it can measure neither the others' disagreement nor a model's uncertainty.
So the order is also stored as a *snapshot*, the ranked image ids as a login that reads
everything computed them (when the order is set, and on :func:`refresh_order`: ``slicereview
selection ... --refresh``, or *Set order* again), and an annotator's login claims in that
snapshot's order (images missing from it after the others, in batch order). A file, an owner's
or a reviewer's login computes the order live.

**A work package** (:func:`slicereview.app.qa.packages.package`) holds neither the others'
work nor a model's predictions either, so its project carries each batch's snapshot computed
when it was made (:func:`packed_orders`) and claims in it, like an annotator's login; its
image list (the Annotate tab's, :func:`in_package_order`) lists the images in the package's
order, so *Next image* (Page Down) there goes down the batch's selection order too.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> from slicereview.app.models.predictions import store_prediction
>>> from slicereview.app.models.raters import model_rater
>>> from slicereview.app.qa.workflow import define_batch
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.png").write_bytes(b"a")
>>> with Project.create(folder / "p.srproj") as project:
...     ids = project.images.add_source(folder / "a.png", "0" * 64, "png",
...                                     [NewImage(8, 8, frame=k) for k in range(3)])
...     owner, model = project.raters.add("owner", "owner"), model_rater(project, "net", "1")
...     batch = define_batch(project, "b", "formal", ids, annotators_per_image=2)
...     for image, label in zip(ids[:2], (1, 2)):   # certain, uncertain
...         labels = np.zeros((8, 8), np.uint8); labels[2:6, 2:6] = label
...         _ = store_prediction(project, model, image, labels)
...     _ = set_order(project, owner, batch, "uncertainty", rater_id=model.id)
...     order_of(project, batch).describe(project), ordered_images(project, batch)
("uncertainty of net@1's work", [2, 1, 3])
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.app.models.raters import people
from slicereview.engines.review.selection import (
    ordered,
    outline_disagreement,
    outline_uncertain_share,
)
from slicereview.model import Annotation, AnnotationStatus, Role
from slicereview.store import Project
from slicereview.store._base import now_iso

#: The selection orders, the default first.
ORDERS = ("batch", "random", "uncertainty", "disagreement")
FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
_KEY = "selection.batch.{}"
_UNCERTAINTY = "selection.uncertainty.{}"
_CACHE = "selection.cache.{}"


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
            return f"uncertainty of {project.raters.get(self.rater_id).label}'s work"
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
        {"order": chosen.order, "rater_id": chosen.rater_id, "seed": chosen.seed,
         "ranked": _live(project, batch_id, chosen), "ranked_at": now_iso()}))
    return chosen


def refresh_order(project: Project, rater_id: int, batch_id: int) -> list[int]:
    """Store a new snapshot of the batch's order, computed now (see the module docstring);
    by an owner or a reviewer (``PermissionError`` otherwise). Returns it."""
    rater = project.raters.get(rater_id)
    if rater.role not in (Role.OWNER, Role.REVIEWER):
        raise PermissionError(f"{rater.name} is an annotator: an owner or a reviewer, who "
                              "reads everyone's work, computes the order")
    chosen = order_of(project, batch_id)
    ranked = _live(project, batch_id, chosen)
    project.set_meta(_KEY.format(batch_id), json.dumps(
        {"order": chosen.order, "rater_id": chosen.rater_id, "seed": chosen.seed,
         "ranked": ranked, "ranked_at": now_iso()}))
    return ranked


def snapshot(project: Project, batch_id: int) -> tuple[list[int], str | None]:
    """The stored snapshot of the batch's order and when it was computed."""
    text = project.meta(_KEY.format(batch_id))
    data = json.loads(text) if text else {}
    return [int(i) for i in data.get("ranked", [])], data.get("ranked_at")


def reads_everything(project: Project) -> bool:
    """Whether this connection reads everyone's work: a file, or a server login that is not
    an annotator's."""
    me = project.raters.own()
    return me is None or me.role is not Role.ANNOTATOR


def store_uncertainty(project: Project, rater_id: int, values: Mapping[int, float]) -> None:
    """Keep a model's own uncertainty per image (``image id → value``, e.g. the mean entropy
    of its probability map, higher = less sure) for the uncertainty order; replaces the values
    of the images given, keeps the others (one transaction; ``meta``
    ``selection.uncertainty.RATER``). ``ValueError`` for a NaN or negative value."""
    project.raters.get(rater_id)
    for image_id, value in values.items():
        if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
            raise ValueError(f"the uncertainty of image {image_id} must be a finite number of "
                             f"0 or more, got {value!r}")
    kept = stored_uncertainty(project, rater_id)
    kept.update({int(i): float(v) for i, v in values.items()})
    project.set_meta(_UNCERTAINTY.format(rater_id),
                     json.dumps({str(i): v for i, v in sorted(kept.items())}))


def stored_uncertainty(project: Project, rater_id: int) -> dict[int, float]:
    """The uncertainty a model stored per image (:func:`store_uncertainty`); ``{}``: none."""
    text = project.meta(_UNCERTAINTY.format(rater_id))
    return {int(i): float(v) for i, v in json.loads(text).items()} if text else {}


def _latest(annotations: Sequence[Annotation]) -> dict[int, dict[int, Annotation]]:
    """image id → rater id → the rater's latest round (the store lists rounds in order)."""
    out: dict[int, dict[int, Annotation]] = {}
    for ann in annotations:
        out.setdefault(ann.image_id, {})[ann.rater_id] = ann
    return out


def _outlines(project: Project, annotation: Annotation) -> list[tuple[np.ndarray, str]]:
    return [(p.vertices, str(p.certainty)) for p in project.polygons.of(annotation.id)]


def scores(project: Project, batch_id: int, selection: SelectionOrder | None = None
           ) -> dict[int, float]:
    """image id → the order's score (higher = sooner) for the batch's images that have one;
    ``{}`` for ``batch`` and ``random``. Each image's score is cached in the project (``meta``
    ``selection.cache.BATCH``) with a key of the annotations it comes from (ids, rounds,
    statuses, edit times), so a claim recomputes only the images whose work changed (an
    annotator's server login, which reads only its own work, claims by the snapshot instead
    and writes no cache)."""
    sel = selection or order_of(project, batch_id)
    if sel.order in ("batch", "random"):
        return {}
    batch = project.workflow.batch(batch_id)
    members = set(project.image_sets.members(batch.image_set_id))
    if sel.order == "uncertainty":
        assert sel.rater_id is not None
        own = stored_uncertainty(project, sel.rater_id)
        if own:
            return {i: v for i, v in own.items() if i in members}
        mine = _latest([a for a in project.annotations.all(rater_id=sel.rater_id,
                                                           phase=batch.phase)
                        if a.image_id in members])
        used = {i: list(by_rater.values()) for i, by_rater in mine.items()}
        return _cached(project, batch_id, f"uncertainty:{sel.rater_id}", used,
                       lambda anns: outline_uncertain_share(_outlines(project, anns[0])))
    persons = {r.id for r in people(project.raters.all()) if r.role is Role.ANNOTATOR}
    finished = _latest([a for a in project.annotations.all(phase=batch.phase, status=FINISHED)
                        if a.image_id in members and a.rater_id in persons
                        and a.rater_id != sel.rater_id])
    used = {i: list(finished[i].values()) for i in members
            if len(finished.get(i, {})) >= 2}
    out = _cached(project, batch_id, "disagreement", used,
                  lambda anns: outline_disagreement([_outlines(project, a) for a in anns]))
    # nothing to measure yet: the first two annotations of every image come first
    out.update({i: math.inf for i in members if i not in used})
    return out


def _cached(project: Project, batch_id: int, what: str, used: dict[int, list[Annotation]],
            score: Callable[[list[Annotation]], float]) -> dict[int, float]:
    """``score(annotations)`` of each image of ``used``, from the cache where its key
    matches (see :func:`scores`)."""
    key = _CACHE.format(batch_id)
    text = project.meta(key)
    stored = json.loads(text) if text else {}
    cache = stored.get(what, {})
    out: dict[int, float] = {}
    fresh: dict[str, list] = {}
    for image_id, anns in used.items():
        source = hashlib.sha1("|".join(sorted(
            f"{a.id}:{a.round}:{a.status}:{a.updated_at}" for a in anns)).encode()).hexdigest()
        hit = cache.get(str(image_id))
        value = hit[1] if hit is not None and hit[0] == source else score(anns)
        out[image_id] = value
        fresh[str(image_id)] = [source, value]
    if fresh != cache and reads_everything(project):
        stored[what] = fresh
        project.set_meta(key, json.dumps(stored))
    return out


def _random_key(seed: int, image_id: int) -> bytes:
    return hashlib.sha256(f"selection:{seed}:{image_id}".encode()).digest()


def ordered_images(project: Project, batch_id: int,
                   selection: SelectionOrder | None = None) -> list[int]:
    """The batch's images in its selection order (see the module docstring)."""
    sel = selection or order_of(project, batch_id)
    if sel.order in ("uncertainty", "disagreement") and (
            not reads_everything(project) or project.meta("package_id")):
        order = project.image_sets.members(project.workflow.batch(batch_id).image_set_id)
        ranked = [i for i in snapshot(project, batch_id)[0] if i in set(order)]
        return ranked + [i for i in order if i not in set(ranked)]
    return _live(project, batch_id, sel)


def _live(project: Project, batch_id: int, sel: SelectionOrder) -> list[int]:
    batch = project.workflow.batch(batch_id)
    order = list(project.image_sets.members(batch.image_set_id))
    if sel.order == "batch":
        return order
    if sel.order == "random":
        return sorted(order, key=lambda i: _random_key(sel.seed, i))
    return ordered(scores(project, batch_id, sel), order)


def packed_orders(project: Project, batch_id: int | None) -> dict[str, str]:
    """The ``meta`` entries a work package of ``batch_id`` (``None``: of every batch) carries:
    each batch's order with its snapshot computed now (see the module docstring)."""
    ids = [batch_id] if batch_id is not None else [b.id for b in project.workflow.batches()]
    out = {}
    for b in ids:
        sel = order_of(project, b)
        out[_KEY.format(b)] = json.dumps(
            {"order": sel.order, "rater_id": sel.rater_id, "seed": sel.seed,
             "ranked": ordered_images(project, b, sel), "ranked_at": now_iso()})
    return out


def in_package_order(project: Project, image_ids: Sequence[int]) -> list[int]:
    """``image_ids`` in the order of the work package whose project this is (its images in
    the batch's selection order; the others after, as given); unchanged elsewhere."""
    text = project.meta("package_order") if project.meta("package_id") else None
    if not text:
        return list(image_ids)
    place = {int(i): k for k, i in enumerate(json.loads(text))}
    return sorted(image_ids, key=lambda i: place.get(i, len(place)))
