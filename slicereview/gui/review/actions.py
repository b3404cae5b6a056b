"""The reviewer, decisions and pins of the Review tab: :class:`ReviewActions`, a part of the
:class:`~slicereview.gui.review.page.ReviewPage`.

Each decision or pin is one undoable command through ``gateway.review`` (its undo history) and
carries the active review time gathered since the previous one
(:class:`~slicereview.gui.common.active_time.IdleClock`) and the edit stamp of each annotation as
it is shown: the application layer refuses a decision on an annotation that changed since, and
the page then reloads (:meth:`~slicereview.gui.review.refresh.QueueLoader.after_refused`). A
rejection opens :class:`~.dialogs.ReasonDialog` (a reason is required); a pin goes on the box
walked to with Tab (Shift+P, or the button) or on a clicked point (P, then click).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QApplication, QDialog, QInputDialog, QMessageBox

from slicereview.gui.gateway import ProjectError
from slicereview.gui.review.dialogs import PinDialog, ReasonDialog

if TYPE_CHECKING:
    from slicereview.gui.review.page import ReviewPage


def closed(dialog: QDialog | None = None) -> None:
    """Take ``dialog`` (or the one just closed) off the screen now, and paint what it covered,
    before the write that follows it: ``exec()`` returns with the dialog hidden in Qt, but the
    window system hears of it, and the window below repaints, only when the event loop next
    runs, which a write on this thread would hold back by its whole length (meanwhile a click
    went to the dialog still on screen: the first click after *New reviewer* was lost)."""
    if dialog is not None:
        dialog.hide()
    QApplication.sync()  # the window system unmaps the dialog now
    QApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    if dialog is not None:
        dialog.deleteLater()


class ReviewActions:
    """Decisions, pins, the reviewer, undo and redo of ``page``."""

    def __init__(self, page: ReviewPage) -> None:
        self.page = page
        self.review = page.gateway.review
        self.state = page.state

    def ask_new_reviewer(self) -> None:
        name, ok = QInputDialog.getText(self.page, "New reviewer", "Reviewer name:")
        closed()
        if ok and name.strip():
            self.set_reviewer(name)

    def set_reviewer(self, name: str) -> int | None:
        """Make ``name`` (created if new) the project's reviewer."""
        try:
            rater_id = self.review.add_reviewer(name)
        except (ValueError, ProjectError) as exc:  # (a server login that may not add people)
            QMessageBox.warning(self.page, "New reviewer", str(exc))
            return None
        self.review.set_setting("reviewer", rater_id)
        self.page.fill_reviewers()
        return rater_id

    # -- decisions -----------------------------------------------------------------------------
    def _ready(self) -> int | None:
        """The reviewer, when a decision can be made now."""
        reviewer = self.page.reviewer_id
        if reviewer is None:
            self.page.panel.message.setText("Choose a reviewer first (Reviewer ▸ New… creates "
                                            "one).")
            return None
        return reviewer if self.state.review is not None and self.state.row is not None \
            else None

    def decide(self, decision: str) -> None:
        """``"accept"``, ``"reject"`` (asks for the reason) or ``"expert_review"`` of the
        annotation selected in the panel."""
        index = self.page.panel.selected_annotator()
        reviewer = self._ready()
        if reviewer is None or index is None or self.state.review is None:
            return
        work = self.state.review.annotators[index]
        tags: tuple[str, ...] = ()
        note = ""
        if decision == "reject":
            dialog = ReasonDialog("Reject annotation", f"Why is {work.name}'s annotation "
                                  "rejected? It goes back to them for a revision.", self.page)
            if dialog.exec() != ReasonDialog.DialogCode.Accepted:
                return
            tags, note = dialog.reason()
            closed(dialog)
        self.page.panel.show_pending([index], decision)  # seen at once; the write comes next
        if self.review.decide(reviewer, work.annotation_id, decision, tags, note,
                              self.page.clock.take(), shown=work.updated_at):
            self.page.panel.message.setText("")
        elif not self.page.loader.after_refused():  # changed since shown: reloaded (it says)
            self.page.redraw(keep_view=True)  # (not stored: the decision shown again)

    def accept_all_and_next(self) -> None:
        reviewer = self._ready()
        row, review = self.state.row, self.state.review
        if reviewer is None or row is None or review is None:
            return
        shown = {w.annotation_id: w.updated_at for w in review.annotators}
        self.page.panel.show_pending([k for k, w in enumerate(review.annotators)
                                      if w.decision is None], "accept")
        if self.review.accept_all(reviewer, row.image_id, row.annotation_ids,
                                  self.page.clock.take(), shown=shown):
            self.page.panel.message.setText("")
            self.page.next_image()
        elif not self.page.loader.after_refused():
            self.page.redraw(keep_view=True)

    # -- pins ----------------------------------------------------------------------------------
    def pin_button(self) -> None:
        if self.state.box_index is not None:
            self.pin_box()
        else:
            self.start_point_pin()

    def start_point_pin(self) -> None:
        if self._ready() is not None:
            self.state.pin_mode = True
            self.page.view.graphics.setCursor(Qt.CursorShape.CrossCursor)
            self.page.panel.message.setText("Click the point to comment on (Esc cancels).")

    def cancel_pin(self) -> None:
        self.state.pin_mode = False
        self.page.view.graphics.unsetCursor()
        self.page.panel.message.setText("")

    def pin_box(self) -> None:
        """Pin a comment to the box walked to (Tab) or picked in the list."""
        if self._ready() is None or self.state.review is None:
            return
        if self.state.box_index is None:
            self.page.panel.message.setText("Walk to a box first (Tab), or press P and click.")
            return
        r0, c0, r1, c1 = self.state.review.boxes(self.page.level)[self.state.box_index].box
        self._pin(box=(float(r0), float(c0), float(r1), float(c1)))

    def _pin(self, *, box: tuple[float, float, float, float] | None = None,
             point: tuple[float, float] | None = None) -> None:
        reviewer, row, review = self.page.reviewer_id, self.state.row, self.state.review
        if reviewer is None or row is None or review is None:
            return
        index = self.page.panel.selected_annotator()
        work = review.annotators[index] if index is not None and index < len(
            review.annotators) else None
        dialog = PinDialog(None if work is None else work.name,
                           self.review.is_owner(reviewer), self.page)
        if dialog.exec() != PinDialog.DialogCode.Accepted:
            return
        tags, note = dialog.reason()
        readers = dialog.readers()
        closed(dialog)
        self.page.panel.message.setText("Saving the pin…")
        self.page.panel.message.repaint()
        if self.review.add_pin(reviewer, row.image_id, note, tags, box=box, point=point,
                               annotation_id=work.annotation_id if work is not None
                               and readers == PinDialog.ANNOTATION else None,
                               for_everyone=readers == PinDialog.EVERYONE):
            self.page.panel.message.setText("")

    def for_everyone(self, review_id: int, on: bool) -> None:
        """Mark an image pin for everyone (``on``) or for reviewers and owners only: the
        owner's, so the Reviewer chosen must be an owner."""
        reviewer = self._ready()
        if reviewer is None:
            return
        if not self.review.is_owner(reviewer):
            self.page.panel.message.setText("Only the task owner marks a pin for everyone: "
                                            "choose an owner as the Reviewer.")
            return
        if self.review.mark_for_everyone(reviewer, review_id, on):
            self.page.panel.message.setText("")

    def on_mouse_clicked(self, event: Any) -> None:
        """A click on the image while a point pin waits for it (pyqtgraph's scene event)."""
        if not self.state.pin_mode or event.button() != Qt.MouseButton.LeftButton:
            return
        point = self.page.view.viewbox.mapSceneToView(event.scenePos())
        self.cancel_pin()
        event.accept()
        self._pin(point=(point.x(), point.y()))

    def undo(self) -> None:
        self.review.history.undo()

    def redo(self) -> None:
        self.review.history.redo()
