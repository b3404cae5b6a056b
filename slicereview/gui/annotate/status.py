"""The Annotate page's status side: finishing, active time, the batch's statuses, returned work
(:class:`AnnotateStatus`, a part of :class:`~slicereview.gui.annotate.page.AnnotatePage`).

* "Done: n of N" counts the annotator's batch (:func:`slicereview.app.annotating.batch_images`):
  submitted and "nothing to annotate" are done, a returned annotation is not;
* :meth:`AnnotateStatus.image_statuses` feeds the image list's status marks and filter;
* active time is kept in memory until the first edit creates the annotation (looking creates
  nothing) and is never gathered on someone else's annotation;
* a returned annotation shows the reviewer's reason and pins; *Revise* starts the next round;
  the image's pins for everyone are shown on any annotation of yours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem

from slicereview.app.commands import SetStatus
from slicereview.gui.annotate.panel import STATUS_TEXT, GuidelinesDialog
from slicereview.gui.annotate.returned_box import pin_items
from slicereview.model import AnnotationStatus, Review

if TYPE_CHECKING:
    from slicereview.gui.annotate.page import AnnotatePage

#: Gathered active time is written at least this often (crash safety).
TIME_COMMIT_MS = 30_000
#: Statuses that count as done in "Done: n of N" (a returned annotation is not done).
FINISHED_WORDS = ("submitted", "nothing to annotate")


class AnnotateStatus:
    """Status, time and finishing of ``page`` (see the module docstring)."""

    def __init__(self, page: AnnotatePage) -> None:
        self.page = page
        self.state = page.state
        self.panel = page.panel
        self.annotate = page.gateway.annotate
        #: The reviewer's pins drawn on the image of a returned annotation.
        self.pin_items: list[QGraphicsItem] = []
        self.guidelines_dialog: GuidelinesDialog | None = None

    # -- returned work -------------------------------------------------------------------------
    def show_returned(self) -> None:
        """The reviewer's reason and pins when your annotation shown was returned."""
        viewbox = self.page.view.viewbox
        for item in self.pin_items:
            viewbox.removeItem(item)
        self.pin_items = []
        annotation = self.state.annotation
        decision: Review | None = None
        pins: list[Review] = []
        revision: int | None = None
        if annotation is not None and self.state.own:
            decision, pins, revision = self.annotate.review_notes(annotation)
        elif self.state.own and self.state.image_id is not None:
            pins = self.annotate.pins_for_everyone(self.state.image_id)
        self.page.returned.show_returned(decision, pins, revision)
        if pins:
            self.pin_items = pin_items(pins)
            for item in self.pin_items:
                viewbox.addItem(item)

    def revise(self) -> None:
        """Start the next round of a returned annotation (a copy of it) and show it."""
        annotation = self.state.annotation
        if annotation is None or not self.state.own:
            return
        self.commit_pending()
        new_id = self.annotate.start_revision(annotation.id)
        self.panel.round_box.setValue(self.annotate.annotation(new_id).round)

    # -- finishing -----------------------------------------------------------------------------
    def mark_nothing_to_annotate(self) -> bool:
        if self.page.tool.polygons:
            self.panel.message_label.setText(
                "This image has polygons: delete them before marking it 'nothing to annotate'.")
            return False
        return self._finish(AnnotationStatus.NOTHING_TO_ANNOTATE)

    def submit(self) -> bool:
        if self.state.key is None:
            return False
        if self.page.tool.drawing:
            self.page.tool.finish()
        return self._finish(AnnotationStatus.SUBMITTED)

    def _finish(self, status: AnnotationStatus) -> bool:
        if self.state.key is None or not self.state.own:
            return False
        self.panel.image_form.flush()
        annotation = self.page.ensure_annotation()
        if annotation is None:  # refused, and said why
            return False
        self.commit_pending()
        if not self.page.intents.push(SetStatus(self.page.gateway.open_project, annotation.id,
                                                status, f"Mark {status.value.replace('_', ' ')}")):
            return False
        self.page.advance()
        return True

    # -- active time ---------------------------------------------------------------------------
    def commit_pending(self) -> None:
        """Write pending typing and the active time gathered on the current image."""
        if not self.page.gateway.is_open:
            return
        self.panel.image_form.flush()
        self.panel.polygon_form.flush()
        ms = self.page.clock.take()
        if ms <= 0 or self.state.key is None or not self.state.own:
            return  # (the clock does not run on someone else's annotation)
        annotation = self.state.annotation
        if annotation is None or annotation.status != AnnotationStatus.IN_PROGRESS:
            # Kept until an edit creates the annotation (or reopens finished work): looking
            # at a submitted annotation changes nothing in the file.
            self.state.keep_unsaved(ms)
            return
        self.annotate.add_active_time(annotation.id, ms + self.state.take_unsaved())

    def tick(self) -> None:
        """Every second: run the clock while the annotator works, write its time now and
        then, catch up with changes from elsewhere, show the time."""
        page = self.page
        window = page.window()
        running = (page.isVisible() and window is not None and window.isActiveWindow()
                   and self.state.own and self.state.image_id is not None)
        page.clock.set_running(running)
        if page.clock.peek() >= TIME_COMMIT_MS and not page.tool.dragging:
            self.commit_pending()
        if page.stale:
            page.on_changed_elsewhere()
        self.show_time()

    # -- statuses ------------------------------------------------------------------------------
    def batch(self) -> list[int]:
        phase = self.state.phase
        if phase not in self.state.batches:
            self.state.batches[phase] = self.annotate.batch(phase)
        return self.state.batches[phase]

    def image_statuses(self) -> dict[int, str]:
        """Status words of the annotator shown, for the batch's images and any they have."""
        rater, phase, round_ = self.state.rater_id, self.state.phase, self.state.round
        if rater is None or not self.page.gateway.is_open:
            return {}
        stored = self.annotate.statuses(rater, phase, round_)
        returned = {r.annotation.image_id for r in self.annotate.returned(rater)
                    if (str(r.annotation.phase), r.annotation.round) == (phase, round_)}
        ids = list(dict.fromkeys([*self.batch(), *self.page.workflow.extra_images(), *stored]))
        return {i: "returned" if i in returned else STATUS_TEXT[stored.get(i)] for i in ids}

    def show(self) -> None:
        """The status line, "Done: n of N", the image list's marks and the repeats box."""
        page = self.page
        done, total = None, 0
        if self.state.rater_id is not None and page.gateway.is_open:
            statuses = self.image_statuses()
            batch = self.batch()
            total = len(batch)
            done = sum(statuses.get(i) in FINISHED_WORDS for i in batch)
            if page.isVisible():
                page.statuses_changed.emit(statuses)
                page.assignments_changed.emit(page.workflow.extra_images())
        annotation = self.state.annotation
        self.panel.show_status(annotation.status if annotation else None, page.tool.polygons,
                               done, total, returned=page.returned.is_returned)
        self.show_time()
        page.repeats.show()
        page.claims.show()

    def show_time(self) -> None:
        annotation, key = self.state.annotation, self.state.key
        stored = (annotation.active_ms if annotation
                  else self.state.unsaved_ms.get(key, 0) if key else 0)
        self.panel.show_time(stored + self.page.clock.peek(), paused=self.page.clock.paused)

    def show_guidelines(self) -> GuidelinesDialog:
        found = self.page.gateway.guideline()
        version, text = found if found else (None, "")
        self.guidelines_dialog = GuidelinesDialog(version, text, self.page)
        self.guidelines_dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.guidelines_dialog.show()
        return self.guidelines_dialog
