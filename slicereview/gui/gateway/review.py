"""The gateway's reviewing methods (a mixin of ProjectGateway; the rules are in
:mod:`slicereview.app.review.queue` and :mod:`slicereview.app.review.decisions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoStack

from slicereview.app.people import add_person
from slicereview.model import (
    Rater,
    Role,
)
from slicereview.store import Project
from slicereview.store.location import Location

if TYPE_CHECKING:
    from slicereview.app.review import image as review_image
    from slicereview.app.review import queue as review_queue


class ReviewGateway:
    """Methods of :class:`~slicereview.gui.gateway.ProjectGateway` for the Review tab."""

    project: Project | None
    open_project: Project

    # -- review (Review page) --------------------------------------------------------------
    # Decisions and pins are undoable commands of slicereview.app.review.commands; settings
    # of the review job (reviewer, queue position, budget, filters) live in the project's meta
    # under "review." keys, so they travel with the file and come back on reopen.

    def reviewers(self) -> list[Rater]:
        """Raters with the reviewer role, by name."""
        raters = self.project.raters.all() if self.project else []
        return sorted((r for r in raters if r.role is Role.REVIEWER), key=lambda r: r.name.lower())

    def add_reviewer(self, name: str) -> int:
        """Create a reviewer; a rater of that name must not exist with another role."""
        known = {r.id for r in self.open_project.raters.all()}
        rater_id = add_person(self.open_project, name, Role.REVIEWER)
        if rater_id not in known:
            self.raters_changed.emit()
        return rater_id

    def annotator_groups(self) -> list[str]:
        raters = self.project.raters.all() if self.project else []
        return sorted({r.group for r in raters if r.group and r.role is Role.ANNOTATOR})

    def review_setting(self, key: str, default: str | None = None) -> str | None:
        return self.project.meta(f"review.{key}", default) if self.project else default

    def set_review_setting(self, key: str, value: object) -> None:
        """Remember a review setting in the project (one small transaction)."""
        if self.project is not None and self.project.meta(f"review.{key}") != str(value):
            self.project.set_meta(f"review.{key}", str(value))

    def review_rows(self, spec: review_queue.QueueSpec, result: review_queue.QueueResult
                    ) -> list[review_queue.QueueRow]:
        """The ranked queue from computed features (statuses read now)."""
        from slicereview.app.review import queue as review_queue

        return review_queue.queue(self.open_project, spec, result)

    def review_image(self, image_id: int, annotation_ids: tuple[int, ...]
                     ) -> review_image.ReviewImage:
        from slicereview.app.review import image as review_image

        return review_image.review_image(self.open_project, image_id, annotation_ids)

    @staticmethod
    def load_review_image(location: Location, image_id: int,
                          annotation_ids: tuple[int, ...]) -> review_image.ReviewImage:
        """:meth:`review_image` for a worker thread, through its own connection (SQLite
        connections belong to the thread that opened them)."""
        from slicereview.app.review import image as review_image

        with Project.open(location) as project:
            return review_image.review_image(project, image_id, annotation_ids)

    def review_status(self, annotation_ids: tuple[int, ...]) -> str:
        from slicereview.app.review import queue as review_queue

        decided = self.open_project.reviews.current_decisions(annotation_ids)
        return review_queue.review_status(len(decided), len(annotation_ids))

    def decide(self, stack: QUndoStack, reviewer_id: int, annotation_id: int, decision: str,
               tags: tuple[str, ...] = (), note: str = "", active_ms: int = 0,
               shown: str | None = None) -> bool:
        """Decide through the undo stack; ``shown``: the annotation's ``updated_at`` as shown
        (refused when it changed since; :attr:`last_error` then says so)."""
        from slicereview.app.review import commands as review_commands

        text = {"accept": "Accept", "reject": "Reject",
                "expert_review": "Expert review"}.get(decision, "Decision")
        return self.execute(stack, review_commands.Decide(
            self.open_project, reviewer_id, annotation_id, decision, tuple(tags), note,
            active_ms, text=f"{text} annotation", shown=shown))

    def add_pin(self, stack: QUndoStack, reviewer_id: int, image_id: int, note: str,
                tags: tuple[str, ...] = (), *, box: tuple[float, float, float, float] | None
                = None, point: tuple[float, float] | None = None) -> bool:
        from slicereview.app.review import commands as review_commands

        return self.execute(stack, review_commands.AddPin(
            self.open_project, reviewer_id, image_id, note, tuple(tags), box, point))

    def accept_all(self, stack: QUndoStack, reviewer_id: int, image_id: int,
                   annotation_ids: tuple[int, ...], active_ms: int = 0,
                   shown: dict[int, str] | None = None) -> bool:
        from slicereview.app.review import commands as review_commands

        return self.execute(stack, review_commands.AcceptAll(
            self.open_project, reviewer_id, image_id, annotation_ids, active_ms=active_ms,
            shown=shown))
