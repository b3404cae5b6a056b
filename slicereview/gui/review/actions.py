"""The reviewer, decisions and pins of the Review tab (a mixin of the ReviewPage).

Each is one undoable command through the page's ``QUndoStack`` and carries the active review
time gathered since the previous one (:class:`~slicereview.gui.common.active_time.IdleClock`)
and the edit stamp of each annotation as it is shown: the application layer refuses a decision
on an annotation that changed since, and the page then reloads (``refresh.py``). A rejection
opens :class:`~.dialogs.ReasonDialog` (a reason is required); a pin goes on the box walked to
with Tab (Shift+P, or the button) or on a clicked point (P, then click).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox

from slicereview.gui.review.dialogs import ReasonDialog


class ReviewActions:
    """Decisions, pins, undo and redo; needs the page's attributes (gateway, stack, clock,
    review, rows, position, panel, view, box_index, level_box, reviewer_id)."""

    def ask_new_reviewer(self) -> None:
        name, ok = QInputDialog.getText(self, "New reviewer", "Reviewer name:")
        if ok and name.strip():
            self.set_reviewer(name)

    def set_reviewer(self, name: str) -> int | None:
        """Make ``name`` (created if new) the project's reviewer."""
        try:
            rater_id = self.gateway.add_reviewer(name)
        except ValueError as exc:
            QMessageBox.warning(self, "New reviewer", str(exc))
            return None
        self.gateway.set_review_setting("reviewer", rater_id)
        self._fill_reviewers()
        return rater_id

    # -- decisions -------------------------------------------------------------------------
    def _can_decide(self) -> bool:
        if self.reviewer_id is None:
            self.panel.message.setText("Choose a reviewer first (Reviewer ▸ New… creates one).")
            return False
        return self.review is not None and self.position >= 0

    def _decide(self, decision: str) -> None:
        index = self.panel.selected_annotator()
        if not self._can_decide() or index is None:
            return
        work = self.review.annotators[index]
        tags, note = (), ""
        if decision == "reject":
            dialog = ReasonDialog("Reject annotation", f"Why is {work.name}'s annotation "
                                  "rejected? It goes back to them for a revision.", self)
            if dialog.exec() != ReasonDialog.DialogCode.Accepted:
                return
            tags, note = dialog.reason()
        if self.gateway.decide(self.stack, self.reviewer_id, work.annotation_id, decision,
                               tags, note, self.clock.take(), shown=work.updated_at):
            self.panel.message.setText("")
        else:
            self.after_refused()  # changed since shown: reloaded (the message says so)

    def accept(self) -> None:
        self._decide("accept")

    def reject(self) -> None:
        self._decide("reject")

    def expert_review(self) -> None:
        self._decide("expert_review")

    def accept_all_and_next(self) -> None:
        if not self._can_decide():
            return
        row = self.rows[self.position]
        shown = {w.annotation_id: w.updated_at for w in self.review.annotators}
        if self.gateway.accept_all(self.stack, self.reviewer_id, row.image_id,
                                   row.annotation_ids, self.clock.take(), shown=shown):
            self.next_image()
        else:
            self.after_refused()

    def _pin_button(self) -> None:
        if self.box_index is not None:
            self.pin_box()
        else:
            self.start_point_pin()

    def start_point_pin(self) -> None:
        if self._can_decide():
            self.pin_mode = True
            self.view.graphics.setCursor(Qt.CursorShape.CrossCursor)
            self.panel.message.setText("Click the point to comment on (Esc cancels).")

    def cancel_pin(self) -> None:
        self.pin_mode = False
        self.view.graphics.unsetCursor()
        self.panel.message.setText("")

    def pin_box(self) -> None:
        """Pin a comment to the box walked to (Tab) or picked in the list."""
        if not self._can_decide():
            return
        if self.box_index is None:
            self.panel.message.setText("Walk to a box first (Tab), or press P and click.")
            return
        box = self.review.boxes(self.level_box.currentText())[self.box_index].box
        self._pin(box=tuple(float(v) for v in box))

    def _pin(self, **where) -> None:
        dialog = ReasonDialog("Pin a comment", "Comment on this region:", self)
        if dialog.exec() != ReasonDialog.DialogCode.Accepted:
            return
        tags, note = dialog.reason()
        row = self.rows[self.position]
        self.gateway.add_pin(self.stack, self.reviewer_id, row.image_id, note, tags, **where)

    def _on_mouse_clicked(self, event) -> None:
        if not self.pin_mode or event.button() != Qt.MouseButton.LeftButton:
            return
        point = self.view.viewbox.mapSceneToView(event.scenePos())
        self.cancel_pin()
        event.accept()
        self._pin(point=(point.x(), point.y()))

    def undo(self) -> None:
        self.stack.undo()

    def redo(self) -> None:
        self.stack.redo()
