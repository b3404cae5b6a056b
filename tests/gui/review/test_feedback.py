"""The Review tab answers a key before it writes (issue 31: A showed "accepted" 1.5-2.5 s
after the key with nothing in between; the pin dialog stayed on screen for over 2 s after OK).

* A decision key first paints the pending decision ("accepting…") and "Saving…": the write
  then starts with that already on screen;
* a dialog's OK (a rejection's reason, a pin) takes the dialog off the screen, through the
  event loop, before the write starts.

No wall-clock here: the order is checked by spies on the writes (the time is in
tests/benchmarks/test_bench_review_feedback.py).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from slicereview.gui.review.dialogs import ReasonDialog
from slicereview.store import Project
from tests.gui.review.review_fixture import build_review_project
from tests.gui.review.test_review import _open

_NO = Qt.KeyboardModifier.NoModifier


def _answer(qtbot, seen: dict, text: str) -> None:
    """Fill the next reason or pin dialog and press OK; a zero timer started at OK marks, in
    ``seen``, that the event loop has run since."""
    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ReasonDialog):
            QTimer.singleShot(20, fill)
            return
        seen["dialog"] = dialog
        dialog.text.setPlainText(text)
        seen["looped"] = False
        QTimer.singleShot(0, lambda: seen.update(looped=True))
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    QTimer.singleShot(20, fill)


def test_a_decision_is_shown_before_it_is_written(qtbot, tmp_path: Path, monkeypatch) -> None:
    path = build_review_project(tmp_path)
    w = _open(qtbot, path)
    page = w.review_page
    page.set_reviewer("Dr Review")
    review = page.gateway.review
    seen: list[tuple[str, str]] = []
    decide = review.decide

    def spy(*args, **kwargs):
        seen.append((page.panel.annotators.item(page.panel.selected_annotator(), 2).text(),
                     page.panel.message.text()))
        return decide(*args, **kwargs)

    monkeypatch.setattr(review, "decide", spy)
    page.panel.annotators.selectRow(1)
    qtbot.keyClick(page, Qt.Key.Key_A, _NO)
    assert seen == [("accepting…", "Saving…")]
    # once written, the decision as stored, and the message gone
    assert page.panel.annotators.item(1, 2).text() == "accepted"
    assert page.panel.message.text() == ""
    target = page.state.review.annotators[1].annotation_id
    with Project.open(path) as project:
        assert str(project.reviews.current_decisions([target])[target].decision) == "accept"

    # a rejection: its dialog is off the screen (the event loop ran) before the write
    state: dict = {}
    decide_seen: list[bool] = []

    def spy_reject(*args, **kwargs):
        decide_seen.append(state["looped"] and not state["dialog"].isVisible())
        return decide(*args, **kwargs)

    monkeypatch.setattr(review, "decide", spy_reject)
    page.panel.annotators.selectRow(0)
    _answer(qtbot, state, "outline too wide")
    qtbot.keyClick(page, Qt.Key.Key_R, _NO)
    assert decide_seen == [True]
    assert page.panel.annotators.item(0, 2).text() == "rejected"


def test_the_pin_dialog_is_gone_before_the_pin_is_written(qtbot, tmp_path: Path,
                                                          monkeypatch) -> None:
    path = build_review_project(tmp_path)
    w = _open(qtbot, path)
    page = w.review_page
    page.set_reviewer("Dr Review")
    review = page.gateway.review
    state: dict = {}
    written: list[tuple[bool, str]] = []
    add_pin = review.add_pin

    def spy(*args, **kwargs):
        written.append((state["looped"] and not state["dialog"].isVisible(),
                        page.panel.message.text()))
        return add_pin(*args, **kwargs)

    monkeypatch.setattr(review, "add_pin", spy)
    qtbot.keyClick(page, Qt.Key.Key_Tab, _NO)  # walk to the worst box
    _answer(qtbot, state, "check this region")
    qtbot.keyClick(page, Qt.Key.Key_P, Qt.KeyboardModifier.ShiftModifier)
    assert written == [(True, "Saving the pin…")]
    assert page.panel.message.text() == ""
    with Project.open(path) as project:
        image = page.state.review.image_id
        assert [r.comment for r in project.reviews.all(image_id=image) if r.is_pin] == [
            "check this region"]


def test_the_new_reviewer_dialog_is_gone_before_the_reviewer_is_written(
        qtbot, tmp_path: Path, monkeypatch) -> None:
    """The first click after *New reviewer* was not taken: the dialog was still on screen
    while the reviewer was written. The event loop runs (the window system unmaps it) first."""
    from PySide6.QtWidgets import QInputDialog

    w = _open(qtbot, build_review_project(tmp_path))
    page = w.review_page
    state: dict = {}

    def typed(*_args, **_kwargs):
        state["looped"] = False
        QTimer.singleShot(0, lambda: state.update(looped=True))
        return "Dr Late", True

    monkeypatch.setattr(QInputDialog, "getText", typed)
    review = page.gateway.review
    written: list[bool] = []
    add = review.add_reviewer

    def spy(name):
        written.append(state["looped"])
        return add(name)

    monkeypatch.setattr(review, "add_reviewer", spy)
    qtbot.mouseClick(page.new_reviewer_button, Qt.MouseButton.LeftButton)
    assert written == [True] and page.reviewer_box.currentText() == "Dr Late"
