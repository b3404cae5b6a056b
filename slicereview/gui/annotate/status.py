"""The Annotate page's status side: finishing, active time, the batch's statuses, returned work
(:class:`AnnotateStatus`, a part of the Annotate page).

* "Done: n of N" counts the images the annotator is given in the phase
  (:func:`slicereview.app.annotating.batch_images`):
  submitted and "nothing to annotate" are done, a returned annotation is not;
* :meth:`AnnotateStatus.image_statuses` feeds the image list's status marks and filter;
* active time is kept in memory until the first edit creates the annotation (looking creates
  nothing) and is never gathered on someone else's annotation;
* a returned annotation shows the reviewer's reason and pins; *Revise* starts the next round;
  the image's pins for everyone are shown on any annotation of yours.

It talks back by signals: :attr:`~AnnotateStatus.statuses_changed` and
:attr:`~AnnotateStatus.assignments_changed` for the image list (only while the page is shown,
``state.shown``), :attr:`~AnnotateStatus.refreshed` after every :meth:`~AnnotateStatus.show`
(the repeats and claims boxes follow) and :attr:`~AnnotateStatus.finished` after a submit or
"nothing to annotate" (the page goes on to the next image).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QGraphicsItem

from slicereview.app.commands import SetStatus
from slicereview.gui.annotate.draw_tool import DrawTool
from slicereview.gui.annotate.panel import STATUS_TEXT, AnnotatePanel, GuidelinesDialog
from slicereview.gui.annotate.returned_box import ReturnedBox, pin_items
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.workflow import AnnotateWorkflow
from slicereview.gui.annotate.writer import AnnotationWriter
from slicereview.gui.common.active_time import IdleClock
from slicereview.model import AnnotationStatus, Review

if TYPE_CHECKING:
    from slicereview.gui.gateway.annotate import AnnotateService

#: Gathered active time is written at least this often (crash safety).
TIME_COMMIT_MS = 30_000
#: Statuses that count as done in "Done: n of N" (a returned annotation is not done).
FINISHED_WORDS = ("submitted", "nothing to annotate")


class AnnotateStatus(QObject):
    """Status, time and finishing on ``panel`` (see the module docstring); the reviewer's pins
    are drawn on ``viewbox``, the returned annotation shown in ``returned``."""

    #: ``{image id: status word}`` of the annotator shown, for the image list.
    statuses_changed = Signal(object)
    #: ``{image id: why}`` given to the annotator shown by the low-agreement rule.
    assignments_changed = Signal(object)
    #: The status line was shown again (the repeats and claims boxes follow).
    refreshed = Signal()
    #: The annotation shown was finished (submitted or "nothing to annotate").
    finished = Signal()

    def __init__(self, state: AnnotateState, annotate: AnnotateService,
                 writer: AnnotationWriter, workflow: AnnotateWorkflow, panel: AnnotatePanel,
                 returned: ReturnedBox, tool: DrawTool, viewbox: pg.ViewBox, clock: IdleClock
                 ) -> None:
        super().__init__()
        self.state = state
        self.annotate = annotate
        self.writer = writer
        self.workflow = workflow
        self.panel = panel
        self.returned = returned
        self.tool = tool
        self.viewbox = viewbox
        self.clock = clock
        #: The reviewer's pins drawn on the image of a returned annotation.
        self.pin_items: list[QGraphicsItem] = []
        self.guidelines_dialog: GuidelinesDialog | None = None

    # -- returned work -------------------------------------------------------------------------
    def show_returned(self) -> None:
        """The reviewer's reason and pins when your annotation shown was returned."""
        viewbox = self.viewbox
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
        self.returned.show_returned(decision, pins, revision)
        if pins:
            self.pin_items = pin_items(pins)
            for item in self.pin_items:
                viewbox.addItem(item)

    def revise(self) -> None:
        """Start the next round of a returned annotation (a copy of it) and show it."""
        annotation = self.state.annotation
        if annotation is None or not self.state.own:
            return
        self.writer.commit_pending()
        new_id = self.annotate.start_revision(annotation.id)
        self.panel.round_box.setValue(self.annotate.annotation(new_id).round)

    # -- finishing -----------------------------------------------------------------------------
    def mark_nothing_to_annotate(self) -> bool:
        if self.tool.polygons:
            self.panel.message_label.setText(
                "This image has polygons: delete them before marking it 'nothing to annotate'.")
            return False
        return self._finish(AnnotationStatus.NOTHING_TO_ANNOTATE)

    def submit(self) -> bool:
        if self.state.key is None:
            return False
        if self.tool.drawing:
            self.tool.finish()
        return self._finish(AnnotationStatus.SUBMITTED)

    def _finish(self, status: AnnotationStatus) -> bool:
        if self.state.key is None or not self.state.own:
            return False
        self.panel.image_form.flush()
        annotation = self.writer.ensure_annotation()
        if annotation is None:  # refused, and said why
            return False
        self.writer.commit_pending()
        if not self.writer.push(SetStatus(self.annotate.open_project, annotation.id, status,
                                          f"Mark {status.value.replace('_', ' ')}")):
            return False
        self.finished.emit()
        return True

    # -- active time ---------------------------------------------------------------------------
    def tick(self, shown: bool) -> None:
        """Every second (``shown``: the page is on screen in the active window): run the clock
        while the annotator works on their own annotation, write its time now and then."""
        self.clock.set_running(shown and self.state.own and self.state.image_id is not None)
        if self.clock.peek() >= TIME_COMMIT_MS and not self.tool.dragging:
            self.writer.commit_pending()

    # -- statuses ------------------------------------------------------------------------------
    def image_statuses(self) -> dict[int, str]:
        """Status words of the annotator shown, for the batch's images and any they have."""
        rater, phase, round_ = self.state.rater_id, self.state.phase, self.state.round
        if rater is None or not self.annotate.is_open:
            return {}
        stored = self.annotate.statuses(rater, phase, round_)
        returned = {r.annotation.image_id for r in self.annotate.returned(rater)
                    if (str(r.annotation.phase), r.annotation.round) == (phase, round_)}
        ids = list(dict.fromkeys([*self.workflow.batch(), *self.workflow.extra_images(),
                                   *stored]))
        return {i: "returned" if i in returned else STATUS_TEXT[stored.get(i)] for i in ids}

    def show(self) -> None:
        """The status line, "Done: n of N", the image list's marks and the repeats box."""
        done, total = None, 0
        if self.state.rater_id is not None and self.annotate.is_open:
            statuses = self.image_statuses()
            batch = self.workflow.batch()
            total = len(batch)
            done = sum(statuses.get(i) in FINISHED_WORDS for i in batch)
            if self.state.shown:
                self.statuses_changed.emit(statuses)
                self.assignments_changed.emit(self.workflow.extra_images())
        annotation = self.state.annotation
        self.panel.show_status(annotation.status if annotation else None, self.tool.polygons,
                               done, total, returned=self.returned.is_returned)
        self.show_time()
        self.refreshed.emit()

    def show_time(self) -> None:
        annotation, key = self.state.annotation, self.state.key
        stored = (annotation.active_ms if annotation
                  else self.state.unsaved_ms.get(key, 0) if key else 0)
        self.panel.show_time(stored + self.clock.peek(), paused=self.clock.paused)

    def show_guidelines(self) -> GuidelinesDialog:
        found = self.annotate.guideline()
        version, text = found if found else (None, "")
        self.guidelines_dialog = GuidelinesDialog(version, text, self.panel.window())
        self.guidelines_dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.guidelines_dialog.show()
        return self.guidelines_dialog
