"""Review decisions and pins, and what a rejection sets going: the rules, held once.

* **a rejection needs a reason** — reason tags or free text (:data:`REASON_NEEDED`);
* **only finished work is reviewed** — a decision on an annotation that is not ``submitted`` or
  ``nothing_to_annotate`` is refused, and so is a decision by the annotation's own author;
* **only what was seen is decided** — a front end passes the annotation's edit stamp
  (``updated_at``) as it showed it (``shown``); when the annotation changed since (another
  window, a merged work package), the decision is refused with :class:`ChangedSinceShown` and
  the front end shows it again: a reviewer never accepts what they did not see;
* **the newest decision is in force** — deciding again adds a row (the history stays), undo
  deletes the newest;
* **α at decision time** — each decision stores the image's strict and relaxed α from the
  most recently computed features (so a later re-annotation does not rewrite what the reviewer
  saw), unless the caller passes its own;
* **a pin is a comment** on a box ``(row0, col0, row1, col1)`` or a point ``(x, y)``: it needs
  text or tags;
* **a pin belongs to the decision it is made with** — made on an annotator's annotation
  (``annotation_id``), its annotator reads it with that work once it is returned to them (its
  decision in force is a rejection); made on the image, it is read by reviewers and owners
  only, unless **the owner marks it for everyone** (:func:`set_for_everyone`; only an image
  pin, and it then keeps no α) -- :func:`pins_for_annotator` is what an annotator is shown;
* **a rejected annotation is returned** to its annotator (:func:`returned_annotations`) until
  the revision, the next round of the same phase, is finished; :func:`start_revision` creates
  that round with a copy of the polygons and image classifications (or returns it when it
  exists).

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(8, 8)])
>>> ann_rater, boss = project.raters.add("ann"), project.raters.add("boss", "reviewer")
>>> ann = project.annotations.for_image(ann_rater, image)
>>> _ = project.polygons.replace(ann.id, [Polygon(np.array([[1., 1.], [5., 1.], [5., 5.]]))])
>>> project.annotations.set_status(ann.id, "submitted")
>>> decide(project, boss, ann.id, "reject")
Traceback (most recent call last):
...
ValueError: A rejection needs a reason: pick a reason tag or write why.
>>> _ = decide(project, boss, ann.id, "reject", reason_tags=["missed finding"])
>>> [r.annotation.id for r in returned_annotations(project, ann_rater)]
[1]
>>> revision = start_revision(project, ann.id)
>>> project.annotations.get(revision).round, len(project.polygons.of(revision))
(2, 1)
>>> project.close()
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from slicereview.app.models.raters import people_annotations
from slicereview.model import Annotation, AnnotationStatus, Decision, Review
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)


class ChangedSinceShown(ValueError):
    """The annotation changed after the reviewer was shown it: nothing was decided."""


REASON_NEEDED = "A rejection needs a reason: pick a reason tag or write why."
#: What each decision reads as in a sentence.
DECISION_WORDS = {"accept": "accepted", "reject": "rejected",
                  "expert_review": "sent to expert review"}
#: Suggested reason tags (any text is accepted).
REASON_TAGS: tuple[str, ...] = (
    "missed finding", "extra region", "outline too loose", "outline too tight",
    "wrong certainty", "wrong classification", "guideline not followed",
)

Box = tuple[float, float, float, float]
Point = tuple[float, float]


def _alphas_now(project: Project, image_id: int) -> dict[str, float | None]:
    feats = project.reviews.latest_features(image_id) or {}
    return {k: feats.get(k) for k in ("strict_alpha", "relaxed_alpha") if k in feats}


def _clean_tags(tags: Sequence[str]) -> list[str]:
    return [t.strip() for t in tags if t and t.strip()]


def check_shown(project: Project, annotation_id: int, shown: str | None) -> Annotation:
    """The annotation, after checking it is as it was shown (``shown``: its ``updated_at``
    then; ``None``: no check). Raises :class:`ChangedSinceShown`."""
    ann = project.annotations.get(annotation_id)
    if shown is not None and ann.updated_at != shown:
        name = project.raters.get(ann.rater_id).name
        raise ChangedSinceShown(
            f"{name}'s annotation changed after it was shown to you (edited "
            f"{ann.updated_at[:19].replace('T', ' ')} UTC); nothing was decided. It is shown "
            "again now: look at it before deciding.")
    return ann


def decide(
    project: Project, reviewer_id: int, annotation_id: int, decision: Decision | str,
    reason_tags: Sequence[str] = (), text: str = "", active_ms: int = 0,
    alphas: dict[str, float | None] | None = None, *, review_id: int | None = None,
    shown: str | None = None,
) -> int:
    """Record ``accept``, ``reject`` (needs tags or text) or ``expert_review`` on one finished
    annotation; returns the review id (``review_id`` reuses an id, for redo). ``shown``: the
    annotation's ``updated_at`` as the reviewer saw it (see the module doc)."""
    decision = Decision(decision)
    tags = _clean_tags(reason_tags)
    if decision is Decision.REJECT and not (tags or text.strip()):
        raise ValueError(REASON_NEEDED)
    ann = check_shown(project, annotation_id, shown)
    if ann.status not in FINISHED:
        raise ValueError("Only finished annotations are reviewed: this one is still in progress.")
    if ann.rater_id == reviewer_id:
        raise ValueError("A reviewer cannot decide on their own annotation.")
    if alphas is None:
        alphas = _alphas_now(project, ann.image_id)
    return project.reviews.add(
        ann.image_id, reviewer_id, annotation_id=annotation_id, decision=decision,
        comment=text.strip(), tags=tags, active_ms=active_ms,
        alphas={k: (None if v is None or math.isnan(v) else v) for k, v in alphas.items()},
        review_id=review_id,
    )


def pin(
    project: Project, reviewer_id: int, image_id: int, *, box: Box | None = None,
    point: Point | None = None, text: str = "", tags: Sequence[str] = (),
    active_ms: int = 0, review_id: int | None = None, annotation_id: int | None = None,
    for_everyone: bool = False,
) -> int:
    """Attach a comment to a box ``(row0, col0, row1, col1)`` or a point ``(x, y)`` of the
    image (pixels); returns the review id. Box corners are stored ordered (row0 ≤ row1).
    ``annotation_id``: the annotation it is about (it goes back to its annotator with a
    rejection); ``for_everyone``: an image pin every annotator reads (``reviewer_id`` must be
    an owner, :data:`ONLY_THE_OWNER`)."""
    if (box is None) == (point is None):
        raise ValueError("A pin goes on a box or on a point (give exactly one).")
    clean = _clean_tags(tags)
    if not (clean or text.strip()):
        raise ValueError("A pin is a comment: write something or pick a tag.")
    if for_everyone:
        _check_owner(project, reviewer_id)
        if annotation_id is not None:
            raise ValueError(FOR_EVERYONE_ON_IMAGE)
    at: tuple[float, ...]
    if box is not None:
        r0, c0, r1, c1 = (float(v) for v in box)
        kind, at = "box", (min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1))
    else:
        assert point is not None
        kind, at = "point", (float(point[0]), float(point[1]))
    return project.reviews.add(image_id, reviewer_id, comment=text.strip(), tags=clean,
                               active_ms=active_ms,
                               alphas={} if for_everyone else _alphas_now(project, image_id),
                               pin_kind=kind, pin_at=at, review_id=review_id,
                               annotation_id=annotation_id, for_everyone=for_everyone)


ONLY_THE_OWNER = "Only the task owner marks a pin for everyone."
FOR_EVERYONE_ON_IMAGE = ("Only a pin on the image is for everyone; a pin on an annotation goes "
                         "back to its annotator with a rejection.")


def _check_owner(project: Project, rater_id: int) -> None:
    from slicereview.model import Role

    if project.raters.get(rater_id).role is not Role.OWNER:
        raise PermissionError(ONLY_THE_OWNER)


def set_for_everyone(project: Project, owner_id: int, review_id: int, on: bool = True) -> None:
    """Mark an image pin for everyone (``on``: every annotator reads it, without its α) or
    for reviewers and owners only again; ``owner_id`` must be an owner."""
    _check_owner(project, owner_id)
    if project.reviews.get(review_id).annotation_id is not None:
        raise ValueError(FOR_EVERYONE_ON_IMAGE)
    project.reviews.set_for_everyone(review_id, on)


def pins_for_everyone(project: Project, image_id: int) -> list[Review]:
    """The image's pins the owner marked for everyone, oldest first (what every annotator of
    the image is shown, with or without an annotation of it)."""
    return [r for r in project.reviews.all(image_id=image_id)
            if r.is_pin and r.annotation_id is None and r.for_everyone]


def pins_for_annotator(project: Project, annotation: Annotation) -> list[Review]:
    """The pins an annotator is shown with their ``annotation``, oldest first: the image's
    pins for everyone, and, once the annotation is returned (its decision in force is a
    rejection), the pins made on it. Never another annotator's, never an image pin that is
    for reviewers and owners."""
    decision = project.reviews.current_decisions([annotation.id]).get(annotation.id)
    returned = decision is not None and decision.decision is Decision.REJECT
    return [r for r in project.reviews.all(image_id=annotation.image_id) if r.is_pin and (
        (r.annotation_id is None and r.for_everyone)
        or (returned and r.annotation_id == annotation.id))]


def accept_all(
    project: Project, reviewer_id: int, image_id: int, annotation_ids: Sequence[int] | None = None,
    phase: str = "formal", active_ms: int = 0, shown: dict[int, str] | None = None,
) -> list[int]:
    """Accept every undecided finished annotation of the image (or of ``annotation_ids``, e.g.
    a queue row's) in one transaction, except the reviewer's own; returns the new review ids.
    ``active_ms`` is booked on the first one; ``shown``: annotation id → ``updated_at`` as
    shown (all refused when one changed)."""
    if annotation_ids is None:
        anns = people_annotations(project, project.annotations.all(
            image_id=image_id, phase=phase, status=FINISHED))  # (a model's is not reviewed)
        annotation_ids = [a.id for a in anns]
    decided = project.reviews.current_decisions(annotation_ids)
    todo = [a for a in annotation_ids if a not in decided
            and project.annotations.get(a).rater_id != reviewer_id]
    with project.transaction():
        return [decide(project, reviewer_id, a, Decision.ACCEPT,
                       active_ms=active_ms if k == 0 else 0,
                       shown=None if shown is None else shown.get(a))
                for k, a in enumerate(todo)]


def annotation_to_review(project: Project, image_id: int, rater_id: int, phase: str = "formal",
                         round: int | None = None) -> Annotation:
    """The annotator's finished annotation of the image a decision is about: the given round,
    else their latest finished round (what the queue shows)."""
    found = [a for a in project.annotations.all(image_id=image_id, rater_id=rater_id, phase=phase,
                                                round=round, status=FINISHED)]
    if not found:
        name = project.raters.get(rater_id).name
        raise ValueError(f"{name} has no finished annotation of this image in the {phase} "
                         f"phase{'' if round is None else f', round {round}'}: nothing to "
                         "review.")
    return found[-1]


@dataclass(frozen=True)
class Returned:
    """A rejected annotation back with its annotator: why, and its revision if started."""

    annotation: Annotation
    decision: Review
    revision_id: int | None = None


def _revision(project: Project, ann: Annotation) -> Annotation | None:
    return project.annotations.for_image(ann.rater_id, ann.image_id, ann.phase, ann.round + 1,
                                         create=False)


def returned_annotations(project: Project, rater_id: int) -> list[Returned]:
    """The rater's rejected annotations whose revision is not finished yet, by image."""
    mine = project.annotations.all(rater_id=rater_id)
    decided = project.reviews.current_decisions(a.id for a in mine)
    out = []
    for ann in mine:
        review = decided.get(ann.id)
        if review is None or review.decision is not Decision.REJECT:
            continue
        revision = _revision(project, ann)
        if revision is not None and revision.status in FINISHED:
            continue
        out.append(Returned(ann, review, None if revision is None else revision.id))
    return out


def start_revision(project: Project, annotation_id: int) -> int:
    """The revision of a rejected annotation: round + 1 in the same phase, ``in_progress``,
    with a copy of its polygons (with their provenance) and image classifications (one
    transaction). Returns its id; an existing revision is returned as it is."""
    ann = project.annotations.get(annotation_id)
    review = project.reviews.current_decisions([annotation_id]).get(annotation_id)
    if review is None or review.decision is not Decision.REJECT:
        raise ValueError("Only a rejected annotation is revised.")
    existing = _revision(project, ann)
    if existing is not None:
        return existing.id
    from slicereview.app.annotating import check_may_work

    with project.transaction():
        check_may_work(project, ann.rater_id, ann.phase)
        new = project.annotations.for_image(ann.rater_id, ann.image_id, ann.phase, ann.round + 1)
        assert new is not None
        copies = [replace(p, id=None, classifications=dict(p.classifications))
                  for p in project.polygons.of(annotation_id)]
        project.polygons.replace(new.id, copies)
        project.annotations.set_image_classifications(new.id, dict(ann.classifications))
        project.annotations.set_status(new.id, AnnotationStatus.IN_PROGRESS)
    return new.id
