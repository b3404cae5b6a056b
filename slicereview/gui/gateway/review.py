"""The gateway's reviewing service, ``gateway.review`` (the rules are in
:mod:`slicereview.app.review.queue` and :mod:`slicereview.app.review.decisions`).

Decisions and pins are undoable commands of :mod:`slicereview.app.review.commands` in one undo
history; settings of the review job (reviewer, queue position, budget, filters) live in the
project's meta under "review." keys, so they travel with the file and come back on reopen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal

from slicereview.app.people import add_person, logged_in
from slicereview.gui.gateway.service import Service
from slicereview.model import Rater, Role
from slicereview.store import Project, ServerError
from slicereview.store.location import Location

if TYPE_CHECKING:
    from slicereview.app.commands import Command
    from slicereview.app.review.image import ReviewImage
    from slicereview.app.review.model_view import ModelOnImage
    from slicereview.app.review.queue import QueueResult, QueueRow, QueueSpec
    from slicereview.app.undo import CommandStack
    from slicereview.gui.gateway import ProjectGateway

_DECISION_TEXT = {"accept": "Accept", "reject": "Reject", "expert_review": "Expert review"}


class ReviewService(Service):
    """Reads and writes of the Review tab."""

    #: A decision or pin of an image was stored or undone; carries the image id.
    review_changed = Signal(int)

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__(gateway)
        self._history: CommandStack | None = None
        #: Settings this window keeps because the project refused them (see set_setting).
        self._kept: dict[str, str] = {}

    @property
    def history(self) -> CommandStack:
        """The undo history of the decisions and pins made in this window."""
        if self._history is None:
            self._history = self.gateway.history()
        return self._history

    def reset(self) -> None:
        self._kept.clear()
        if self._history is not None:
            self._history.clear()

    def changed(self, key: int, command: Command | None = None) -> None:
        self.review_changed.emit(key)

    # -- reviewers and settings ----------------------------------------------------------------
    def reviewers(self) -> list[Rater]:
        """Raters who review: the reviewers by name, then the owners by name (an owner
        reviews too, and marks pins for everyone)."""
        raters = self.project.raters.all() if self.project else []
        return sorted((r for r in raters if r.role in (Role.REVIEWER, Role.OWNER)),
                      key=lambda r: (r.role is Role.OWNER, r.name.lower()))

    def is_owner(self, rater_id: int) -> bool:
        """Whether the rater has the owner role (who marks a pin for everyone)."""
        return self.open_project.raters.get(rater_id).role is Role.OWNER

    def logged_in(self) -> Rater | None:
        """On a server, the rater named as this window's login
        (:func:`slicereview.app.people.logged_in`); ``None`` on a file."""
        return logged_in(self.project) if self.project else None

    def add_reviewer(self, name: str) -> int:
        """Create a reviewer; a rater of that name must not exist with another role."""
        known = {r.id for r in self.open_project.raters.all()}
        rater_id = add_person(self.open_project, name, Role.REVIEWER)
        if rater_id not in known:
            self.gateway.raters_changed.emit()
        return rater_id

    def annotator_groups(self) -> list[str]:
        raters = self.project.raters.all() if self.project else []
        return sorted({r.group for r in raters if r.group and r.role is Role.ANNOTATOR})

    def setting(self, key: str, default: str | None = None) -> str | None:
        if key in self._kept:
            return self._kept[key]
        return self.project.meta(f"review.{key}", default) if self.project else default

    def set_setting(self, key: str, value: object) -> None:
        """Remember a review setting in the project (one small transaction). Where the
        project refuses it -- a server project's settings are its reviewers' and owners', and
        an annotator's login may not change them -- this window keeps it instead."""
        project = self.project
        if project is None or self.setting(key) == str(value):
            return
        try:
            project.set_meta(f"review.{key}", str(value))
        except ServerError:
            self._kept[key] = str(value)
        else:
            self._kept.pop(key, None)

    # -- the queue and the image ---------------------------------------------------------------
    def rows(self, spec: QueueSpec, result: QueueResult) -> list[QueueRow]:
        """The ranked queue from computed features (statuses read now)."""
        from slicereview.app.review import queue as review_queue

        return review_queue.queue(self.open_project, spec, result)

    def image(self, image_id: int, annotation_ids: tuple[int, ...]) -> ReviewImage:
        from slicereview.app.review import image as review_image

        return review_image.review_image(self.open_project, image_id, annotation_ids)

    @staticmethod
    def load_image(location: Location, image_id: int, annotation_ids: tuple[int, ...]
                   ) -> ReviewImage:
        """:meth:`image` for a worker thread, through its own connection (SQLite connections
        belong to the thread that opened them)."""
        from slicereview.app.review import image as review_image

        with Project.open(location) as project:
            return review_image.review_image(project, image_id, annotation_ids)

    def models(self) -> list[tuple[int, str]]:
        """``(rater id, NAME@VERSION)`` of the project's models (the queue's and the model
        layer's choice), the one with the most predictions first (the default)."""
        from slicereview.app.models.raters import model_counts, most_predictions_first

        if not self.is_open:
            return []
        return [(r.rater_id, r.label)
                for r in most_predictions_first(model_counts(self.open_project))]

    @staticmethod
    def load_model_view(location: Location, image_id: int, annotation_ids: tuple[int, ...],
                        model_id: int) -> ModelOnImage | None:
        """The model on the image (:func:`slicereview.app.review.model_view.model_on_image`)
        for a worker thread, through its own connection; ``None`` without a prediction."""
        from slicereview.app.review.model_view import model_on_image

        with Project.open(location, read_only=True) as project:
            return model_on_image(project, image_id, annotation_ids, model_id)

    def status(self, annotation_ids: tuple[int, ...]) -> str:
        from slicereview.app.review import queue as review_queue

        decided = self.open_project.reviews.current_decisions(annotation_ids)
        return review_queue.review_status(len(decided), len(annotation_ids))

    # -- writes --------------------------------------------------------------------------------
    def _push(self, command: Command) -> bool:
        self.gateway.watch.check()
        return self.history.push(command)

    def decide(self, reviewer_id: int, annotation_id: int, decision: str,
               tags: tuple[str, ...] = (), note: str = "", active_ms: int = 0,
               shown: str | None = None) -> bool:
        """Decide (undoable); ``shown``: the annotation's ``updated_at`` as shown (refused
        when it changed since; :attr:`history` ``.error`` then says so)."""
        from slicereview.app.review import commands as review_commands

        text = _DECISION_TEXT.get(decision, "Decision")
        return self._push(review_commands.Decide(
            self.open_project, reviewer_id, annotation_id, decision, tuple(tags), note,
            active_ms, text=f"{text} annotation", shown=shown))

    def add_pin(self, reviewer_id: int, image_id: int, note: str,
                tags: tuple[str, ...] = (), *, box: tuple[float, float, float, float] | None
                = None, point: tuple[float, float] | None = None,
                annotation_id: int | None = None, for_everyone: bool = False) -> bool:
        """Pin a comment (undoable): on ``annotation_id`` (``None``: the image), or on the
        image for everyone (the owner's)."""
        from slicereview.app.review import commands as review_commands

        return self._push(review_commands.AddPin(
            self.open_project, reviewer_id, image_id, note, tuple(tags), box, point,
            annotation_id=annotation_id, for_everyone=for_everyone))

    def mark_for_everyone(self, owner_id: int, review_id: int, on: bool) -> bool:
        """Mark an image pin for everyone, or for reviewers and owners only (undoable)."""
        from slicereview.app.review import commands as review_commands

        return self._push(review_commands.MarkForEveryone(
            self.open_project, owner_id, review_id, on,
            text="Pin for everyone" if on else "Pin for reviewers and owners"))

    def accept_all(self, reviewer_id: int, image_id: int, annotation_ids: tuple[int, ...],
                   active_ms: int = 0, shown: dict[int, str] | None = None) -> bool:
        from slicereview.app.review import commands as review_commands

        return self._push(review_commands.AcceptAll(
            self.open_project, reviewer_id, image_id, annotation_ids, active_ms=active_ms,
            shown=shown))
