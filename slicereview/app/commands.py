"""Undoable user intents as Qt-free command objects: one undo path for every job.

A command is a value that knows how to :meth:`~Command.apply` and :meth:`~Command.revert`
itself on the project, each as one transaction through the application layer (so every domain
rule, e.g. "an edit reopens a submitted annotation", holds on undo and redo too). A
:class:`slicereview.app.undo.CommandStack` runs them and keeps the history, for the GUI, scripts
and tests alike. A command whose write fails raises, and a stack never keeps it.

``changed`` names what a front end must re-read: ``("annotation", annotation_id)`` or
``("session", session_id)``.

Polygon ids are kept across undo and redo: a polygon that is added gets its id on the first
apply, and re-applying after a revert stores it under the same id again (the store reuses a
free id), so later commands that refer to the id stay valid.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image_id] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                        [NewImage(6, 6)])
>>> ann = project.annotations.for_image(project.raters.add("ann"), image_id)
>>> from slicereview.app.undo import CommandStack
>>> stack = CommandStack()
>>> square = Polygon(np.array([[1.0, 1.0], [4.0, 1.0], [4.0, 4.0], [1.0, 4.0]]))
>>> stack.push(AddPolygon(project, ann.id, square))
True
>>> len(project.polygons.of(ann.id))
1
>>> stack.undo(), len(project.polygons.of(ann.id))
(True, 0)
>>> stack.redo(), len(project.polygons.of(ann.id))
(True, 1)
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from slicereview.app import annotating
from slicereview.app.rating.run import Current, RatingRun
from slicereview.model import AnnotationStatus, Answer, Grade, Polygon, Tool
from slicereview.store import Project

Changed = tuple[str, int]


class Command(Protocol):
    """What every undoable intent provides."""

    text: str

    @property
    def changed(self) -> Changed: ...

    def apply(self) -> None: ...

    def revert(self) -> None: ...


# -- annotations -----------------------------------------------------------------------------
@dataclass
class AddPolygon:
    """Add one polygon on top of the annotation with the provenance it carries
    (``Polygon(vertices, certainty, tool=Tool.FREEHAND)``); revert deletes it."""

    project: Project
    annotation_id: int
    polygon: Polygon
    text: str = "Add polygon"
    position: int | None = None

    @property
    def changed(self) -> Changed:
        return ("annotation", self.annotation_id)

    @property
    def polygon_id(self) -> int | None:
        return self.polygon.id

    def apply(self) -> None:
        new_id = annotating.add_polygon(self.project, self.annotation_id, self.polygon,
                                        self.position)
        self.polygon = replace(self.polygon, id=new_id)

    def revert(self) -> None:
        assert self.polygon.id is not None
        self.position = annotating.delete_polygon(self.project, self.annotation_id,
                                                  self.polygon.id)


@dataclass
class EditPolygon:
    """Replace a stored polygon by ``after`` (same id): vertex drags, moves, certainty,
    per-polygon classifications, brush and eraser strokes. ``after`` is stored as
    :func:`~slicereview.app.annotating.edited_polygon` makes it (``before``'s provenance,
    marked edited when the outline changed; with ``tool``, a new outline made by that tool);
    revert stores ``before`` exactly, provenance included."""

    project: Project
    annotation_id: int
    before: Polygon
    after: Polygon
    text: str = "Edit polygon"
    tool: Tool | None = None

    def __post_init__(self) -> None:
        if self.before.id is None or self.before.id != self.after.id:
            raise ValueError("an edit needs the stored polygon's id on both sides")
        self.after = annotating.edited_polygon(self.before, self.after, self.tool)

    @property
    def changed(self) -> Changed:
        return ("annotation", self.annotation_id)

    def apply(self) -> None:
        annotating.update_polygon(self.project, self.annotation_id, self.after)

    def revert(self) -> None:
        annotating.update_polygon(self.project, self.annotation_id, self.before)


@dataclass
class DeletePolygon:
    """Delete a polygon; revert puts it back at its drawing position with its id."""

    project: Project
    annotation_id: int
    polygon: Polygon
    text: str = "Delete polygon"
    position: int | None = None

    def __post_init__(self) -> None:
        if self.polygon.id is None:
            raise ValueError("only a stored polygon (with an id) can be deleted")

    @property
    def changed(self) -> Changed:
        return ("annotation", self.annotation_id)

    def apply(self) -> None:
        assert self.polygon.id is not None
        self.position = annotating.delete_polygon(self.project, self.annotation_id,
                                                  self.polygon.id)

    def revert(self) -> None:
        annotating.add_polygon(self.project, self.annotation_id, self.polygon, self.position)


@dataclass
class ChangePolygons:
    """Replace some of an annotation's polygons at once, in one transaction (a brush or eraser
    stroke): ``before`` are the stored polygons changed, ``after`` what replaces them — one
    with a ``before`` id is that polygon updated, one without an id is added on top, and a
    ``before`` id missing from ``after`` is deleted. Revert restores every one of them, with
    its id and drawing position; redo stores the added ones under the same ids again.

    Provenance (:func:`~slicereview.app.annotating.edited_polygon`): an updated polygon keeps
    its tool and is *edited* when its outline changed; an added one made by the brush is new
    (``brush``, not edited); an added one made by any other tool is a piece of a polygon the
    stroke split, and so edited.

    With ``tool`` (an assisted tool's accepted result, e.g. ``refine`` of the selected
    polygon): every polygon of ``after`` is a new outline made by that tool, not edited, an
    updated one keeping its id, certainty, label and answers."""

    project: Project
    annotation_id: int
    before: Sequence[Polygon]
    after: Sequence[Polygon]
    text: str = "Change polygons"
    tool: Tool | None = None
    #: (polygon, drawing position) of the deleted ones, in the order they were deleted.
    deleted: list[tuple[Polygon, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        ids = [p.id for p in self.before]
        if None in ids or len(set(ids)) != len(ids):
            raise ValueError("a change needs the stored polygons' ids, each once")
        self.before = list(self.before)
        stored = {p.id: p for p in self.before}
        made = self.tool
        self.after = [annotating.edited_polygon(stored[p.id], p, made) if p.id in stored
                      else replace(p, tool=made, edited=False) if made is not None
                      else p if p.tool is Tool.BRUSH else replace(p, edited=True)
                      for p in self.after]
        self._updated = [p for p in self.after if p.id in ids]
        self._added = [p for p in self.after if p.id not in ids]

    @property
    def changed(self) -> Changed:
        return ("annotation", self.annotation_id)

    @property
    def added_ids(self) -> list[int]:
        """The ids of the polygons added (known after the first apply)."""
        return [p.id for p in self._added if p.id is not None]

    def apply(self) -> None:
        kept = {p.id for p in self._updated}
        with self.project.transaction():
            self.deleted = []
            for polygon in self.before:
                if polygon.id not in kept:
                    assert polygon.id is not None
                    self.deleted.append((polygon, annotating.delete_polygon(
                        self.project, self.annotation_id, polygon.id)))
            for polygon in self._updated:
                annotating.update_polygon(self.project, self.annotation_id, polygon)
            self._added = [replace(p, id=annotating.add_polygon(self.project,
                                                                self.annotation_id, p))
                           for p in self._added]

    def revert(self) -> None:
        by_id = {p.id: p for p in self.before}
        with self.project.transaction():
            for polygon in reversed(self._added):
                assert polygon.id is not None
                annotating.delete_polygon(self.project, self.annotation_id, polygon.id)
            for polygon in self._updated:
                annotating.update_polygon(self.project, self.annotation_id, by_id[polygon.id])
            for polygon, position in reversed(self.deleted):
                annotating.add_polygon(self.project, self.annotation_id, polygon, position)


@dataclass
class SetStatus:
    """Submit, mark "nothing to annotate" or reopen; revert restores the previous status."""

    project: Project
    annotation_id: int
    status: AnnotationStatus
    text: str = "Set status"
    before: AnnotationStatus | None = None

    @property
    def changed(self) -> Changed:
        return ("annotation", self.annotation_id)

    def apply(self) -> None:
        self.before = self.project.annotations.get(self.annotation_id).status
        annotating.finish(self.project, self.annotation_id, self.status)

    def revert(self) -> None:
        assert self.before is not None
        self.project.annotations.set_status(self.annotation_id, self.before)


@dataclass
class SetImageClassifications:
    """Answer the image-level classification questions; revert restores the old answers."""

    project: Project
    annotation_id: int
    answers: dict
    text: str = "Classify image"
    before: dict | None = None

    @property
    def changed(self) -> Changed:
        return ("annotation", self.annotation_id)

    def apply(self) -> None:
        self.before = dict(self.project.annotations.get(self.annotation_id).classifications)
        annotating.set_classifications(self.project, self.annotation_id, self.answers)

    def revert(self) -> None:
        annotating.set_classifications(self.project, self.annotation_id, self.before or {})


# -- rating ------------------------------------------------------------------------------------
@dataclass
class RecordAnswer:
    """Store a pairwise answer (revert deletes it; re-apply stores it again)."""

    run: RatingRun
    choice: str
    active_ms: int
    pair: tuple[int, int]
    text: str = "Answer"
    result: Current | None = None

    @property
    def changed(self) -> Changed:
        return ("session", self.run.session.id)

    answer_id: int | None = None
    #: Who answered (set on the first apply, so a redo stores the answer for the same rater).
    rater_id: int | None = None

    def apply(self) -> None:
        self.result = self.run.answer(self.choice, self.active_ms, pair=self.pair,
                                      rater_id=self.rater_id)
        last = self.run.stored  # (what this apply stored: not a read of every answer)
        assert last is not None
        self.answer_id, self.rater_id = last.id, last.rater_id

    def revert(self) -> None:
        """Delete this answer — only while it is still the session's last one: an answer given
        since (another instance rating the same session) is never deleted in its place."""
        last = self.run.project.ratings.last_answer(self.run.session.id)
        if last is None or last.id != self.answer_id:
            raise ValueError("another answer was given in this session after yours (in another "
                             "window or instance); yours is kept")
        self.run.undo()


@dataclass
class RecordGrade:
    """Store a grade of one image (revert deletes it; re-apply stores it again)."""

    run: RatingRun
    grade: int
    active_ms: int
    image_id: int
    text: str = "Grade"
    result: Current | None = None

    @property
    def changed(self) -> Changed:
        return ("session", self.run.session.id)

    def apply(self) -> None:
        self.result = self.run.grade(self.grade, self.active_ms, image_id=self.image_id)

    def revert(self) -> None:
        self.run.undo()


@dataclass
class RemoveLastAnswer:
    """Delete the session's last answer or grade (any earlier one, e.g. after reopening);
    revert stores it again with its time."""

    run: RatingRun
    text: str = "Undo last answer"
    removed: Answer | Grade | None = None

    @property
    def changed(self) -> Changed:
        return ("session", self.run.session.id)

    def apply(self) -> None:
        self.removed = self.run.undo()
        if self.removed is None:
            raise ValueError("this session has no answer to undo")

    def revert(self) -> None:
        r = self.removed
        if isinstance(r, Grade):
            self.run.grade(r.grade, r.active_ms, image_id=r.image_id)
        elif isinstance(r, Answer):
            self.run.answer(str(r.answer), r.active_ms, pair=(r.left, r.right),
                            rater_id=r.rater_id)
