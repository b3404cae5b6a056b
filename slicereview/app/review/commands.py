"""Undoable review intents as Qt-free command objects (the :mod:`slicereview.app.commands`
protocol).

Each command writes through :mod:`.decisions`, so the rules hold on redo too. A redone
command stores its row under the id it had (the store reuses a free id), so later commands that
refer to it stay valid. ``changed`` is ``("review", image_id)``: a front end re-reads the
image's decisions and pins.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.app.undo import CommandStack
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(8, 8)])
>>> boss = project.raters.add("boss", "reviewer")
>>> ann = project.annotations.for_image(project.raters.add("ann"), image)
>>> project.annotations.set_status(ann.id, "nothing_to_annotate")
>>> stack = CommandStack()
>>> stack.push(Decide(project, boss, ann.id, "accept"))
True
>>> len(project.reviews.current_decisions())
1
>>> stack.undo(), len(project.reviews.current_decisions())
(True, 0)
>>> stack.redo(), len(project.reviews.current_decisions())
(True, 1)
>>> project.close()
"""

from __future__ import annotations

from dataclasses import dataclass, field

from slicereview.app.review import decisions as review_decisions
from slicereview.app.review.decisions import Box, Point
from slicereview.store import Project

Changed = tuple[str, int]


@dataclass
class Decide:
    """Record a decision on one annotation (revert deletes it; the previous one is in force
    again)."""

    project: Project
    reviewer_id: int
    annotation_id: int
    decision: str
    reason_tags: tuple[str, ...] = ()
    note: str = ""
    active_ms: int = 0
    text: str = "Review decision"
    review_id: int | None = None
    image_id: int = 0
    #: The annotation's ``updated_at`` as the reviewer saw it (``None``: not checked).
    shown: str | None = None

    def __post_init__(self) -> None:
        self.image_id = self.project.annotations.get(self.annotation_id).image_id

    @property
    def changed(self) -> Changed:
        return ("review", self.image_id)

    def apply(self) -> None:
        self.review_id = review_decisions.decide(
            self.project, self.reviewer_id, self.annotation_id, self.decision,
            self.reason_tags, self.note, self.active_ms, review_id=self.review_id,
            shown=self.shown)

    def revert(self) -> None:
        assert self.review_id is not None
        self.project.reviews.delete(self.review_id)


@dataclass
class AddPin:
    """Pin a comment to a box or a point of an image (revert deletes it)."""

    project: Project
    reviewer_id: int
    image_id: int
    note: str = ""
    tags: tuple[str, ...] = ()
    box: Box | None = None
    point: Point | None = None
    text: str = "Pin comment"
    review_id: int | None = None
    #: The annotation the pin is about (``None``: the image).
    annotation_id: int | None = None
    #: An image pin every annotator reads (the owner's).
    for_everyone: bool = False

    @property
    def changed(self) -> Changed:
        return ("review", self.image_id)

    def apply(self) -> None:
        self.review_id = review_decisions.pin(
            self.project, self.reviewer_id, self.image_id, box=self.box, point=self.point,
            text=self.note, tags=self.tags, review_id=self.review_id,
            annotation_id=self.annotation_id, for_everyone=self.for_everyone)

    def revert(self) -> None:
        assert self.review_id is not None
        self.project.reviews.delete(self.review_id)


@dataclass
class MarkForEveryone:
    """Mark an image pin for everyone, or for reviewers and owners only again (revert: the
    other way; a pin once for everyone keeps no α)."""

    project: Project
    owner_id: int
    review_id: int
    on: bool = True
    text: str = "Pin for everyone"
    image_id: int = 0

    def __post_init__(self) -> None:
        self.image_id = self.project.reviews.get(self.review_id).image_id

    @property
    def changed(self) -> Changed:
        return ("review", self.image_id)

    def apply(self) -> None:
        review_decisions.set_for_everyone(self.project, self.owner_id, self.review_id, self.on)

    def revert(self) -> None:
        review_decisions.set_for_everyone(self.project, self.owner_id, self.review_id,
                                          not self.on)


@dataclass
class AcceptAll:
    """Accept every undecided annotation of an image (revert deletes those decisions)."""

    project: Project
    reviewer_id: int
    image_id: int
    annotation_ids: tuple[int, ...] | None = None
    text: str = "Accept all"
    active_ms: int = 0
    review_ids: list[int] = field(default_factory=list)
    #: annotation id → ``updated_at`` as shown (``None``: not checked).
    shown: dict[int, str] | None = None

    @property
    def changed(self) -> Changed:
        return ("review", self.image_id)

    def apply(self) -> None:
        self.review_ids = review_decisions.accept_all(
            self.project, self.reviewer_id, self.image_id, self.annotation_ids,
            active_ms=self.active_ms, shown=self.shown)

    def revert(self) -> None:
        with self.project.transaction():
            for review_id in self.review_ids:
                self.project.reviews.delete(review_id)
