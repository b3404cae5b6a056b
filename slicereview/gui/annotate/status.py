"""The Annotate page's status side: finishing, active time, the batch's statuses, returned work.

* "Done: n of N" counts the annotator's batch (:func:`slicereview.app.annotating.batch_images`):
  submitted and "nothing to annotate" are done, a returned annotation is not;
* :meth:`AnnotateStatus.image_statuses` feeds the image list's status marks and filter;
* active time is kept in memory until the first edit creates the annotation (looking creates
  nothing) and is never gathered on someone else's annotation;
* a returned annotation shows the reviewer's reason and pins; *Revise* starts the next round.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from slicereview.app.commands import SetStatus
from slicereview.gui.annotate.panel import STATUS_TEXT, GuidelinesDialog
from slicereview.gui.annotate.returned_box import pin_items
from slicereview.model import AnnotationStatus

#: Gathered active time is written at least this often (crash safety).
TIME_COMMIT_MS = 30_000
#: Statuses that count as done in "Done: n of N" (a returned annotation is not done).
FINISHED_WORDS = ("submitted", "nothing to annotate")


class AnnotateStatus:
    """Mixin of :class:`~slicereview.gui.annotate.page.AnnotatePage`."""

    def _show_returned(self) -> None:
        """The reviewer's reason and pins when your annotation shown was returned."""
        for item in self._pin_items:
            self.view.viewbox.removeItem(item)
        self._pin_items = []
        decision, pins, revision = None, [], None
        if self.annotation is not None and self.own:
            decision, pins, revision = self.gateway.review_notes(self.annotation)
        self.returned.show_returned(decision, pins, revision)
        if decision is not None:
            self._pin_items = pin_items(pins)
            for item in self._pin_items:
                self.view.viewbox.addItem(item)

    def revise(self) -> None:
        """Start the next round of a returned annotation (a copy of it) and show it."""
        if self.annotation is None or not self.own:
            return
        self.commit_pending()
        new_id = self.gateway.start_revision(self.annotation.id)
        self.panel.round_box.setValue(self.gateway.annotation(new_id).round)

    def mark_nothing_to_annotate(self) -> bool:
        if self.tool.polygons:
            self.panel.message_label.setText(
                "This image has polygons: delete them before marking it 'nothing to annotate'.")
            return False
        return self._finish(AnnotationStatus.NOTHING_TO_ANNOTATE)

    def submit(self) -> bool:
        if self._key is None:
            return False
        if self.tool.drawing:
            self.tool.finish()
        return self._finish(AnnotationStatus.SUBMITTED)

    def _finish(self, status: AnnotationStatus) -> bool:
        if self._key is None or not self.own:
            return False
        self.panel.image_form.flush()
        ann = self._ensure_annotation()
        self.commit_pending()
        if not self._push(SetStatus(self.gateway.open_project, ann.id, status,
                                    f"Mark {status.value.replace('_', ' ')}")):
            return False
        self.step_requested.emit(+1)
        return True

    def commit_pending(self) -> None:
        """Write pending typing and the active time gathered on the current image."""
        if not self.gateway.is_open:
            return
        self.panel.image_form.flush()
        self.panel.polygon_form.flush()
        ms = self.clock.take()
        if ms <= 0 or self._key is None or not self.own:
            return  # (the clock does not run on someone else's annotation)
        if self.annotation is None or self.annotation.status != AnnotationStatus.IN_PROGRESS:
            # Kept until an edit creates the annotation (or reopens finished work): looking
            # at a submitted annotation changes nothing in the file.
            self._unsaved_ms[self._key] = self._unsaved_ms.get(self._key, 0) + ms
            return
        ms += self._unsaved_ms.pop(self._key, 0)
        self.gateway.add_active_time(self.annotation.id, ms)

    def _tick(self) -> None:
        window = self.window()
        running = (self.isVisible() and window is not None and window.isActiveWindow()
                   and self.own and self.image_id is not None)
        self.clock.set_running(running)
        if self.clock.peek() >= TIME_COMMIT_MS and self.tool._drag is None:
            self.commit_pending()
        if self._stale:
            self._on_changed_elsewhere()
        self._show_time()

    def _batch(self) -> list[int]:
        phase = self.phase
        if phase not in self._batches:
            self._batches[phase] = self.gateway.annotation_batch(phase)
        return self._batches[phase]

    def image_statuses(self) -> dict[int, str]:
        """Status words of the annotator shown, for the batch's images and any they have."""
        if self.rater_id is None or not self.gateway.is_open:
            return {}
        stored = self.gateway.annotation_statuses(self.rater_id, self.phase, self.round)
        returned = {r.annotation.image_id for r in self.gateway.returned_annotations(
            self.rater_id) if (str(r.annotation.phase), r.annotation.round) == (
                self.phase, self.round)}
        ids = list(dict.fromkeys([*self._batch(), *self.extra_images(), *stored]))
        return {i: "returned" if i in returned else STATUS_TEXT[stored.get(i)] for i in ids}

    def _show_status(self) -> None:
        done, total = None, 0
        if self.rater_id is not None and self.gateway.is_open:
            statuses = self.image_statuses()
            batch = self._batch()
            total = len(batch)
            done = sum(statuses.get(i) in FINISHED_WORDS for i in batch)
            if self.isVisible():
                self.statuses_changed.emit(statuses)
                self.assignments_changed.emit(self.extra_images())
        self.panel.show_status(self.annotation.status if self.annotation else None,
                               self.tool.polygons, done, total,
                               returned=self.returned.isVisibleTo(self))
        self._show_time()

    def _show_time(self) -> None:
        stored = (self.annotation.active_ms if self.annotation
                  else self._unsaved_ms.get(self._key, 0) if self._key else 0)
        self.panel.show_time(stored + self.clock.peek(), paused=self.clock.paused)

    def show_guidelines(self) -> GuidelinesDialog:
        found = self.gateway.guideline()
        version, text = found if found else (None, "")
        self.guidelines_dialog = GuidelinesDialog(version, text, self)
        self.guidelines_dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.guidelines_dialog.show()
        return self.guidelines_dialog
