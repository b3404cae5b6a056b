"""Keys and words of the Rate tab a user meets first: Ctrl+Y redoes as the docs say, and the
*Undo last answer* question tells whether the answer was given in this window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox

from slicereview.app.rating.run import Ranking
from tests.gui.rate.test_rate import _key_for, _new_session, _press, _window, make_rate_project


def _x11_bindings(monkeypatch) -> None:
    """Qt's key bindings on X11 without a desktop theme (the xcb platform): Redo is
    Ctrl+Shift+Z only. The offscreen platform of the tests also binds Ctrl+Y, which hid the bug."""
    original = QKeyEvent.matches
    mods = Qt.KeyboardModifier

    def matches(event: QKeyEvent, key: QKeySequence.StandardKey) -> bool:
        if key == QKeySequence.StandardKey.Redo:
            return (event.key() == Qt.Key.Key_Z
                    and event.modifiers() == mods.ControlModifier | mods.ShiftModifier)
        return original(event, key)

    monkeypatch.setattr(QKeyEvent, "matches", matches)


def test_ctrl_y_redoes_an_answer(qtbot, tmp_path: Path, monkeypatch) -> None:
    """docs/rate.md: "Ctrl+Shift+Z (Ctrl+Y) — redo". On X11 Qt's Redo key is Ctrl+Shift+Z
    only, so Ctrl+Y did nothing in the comparison (seen under Xvfb)."""
    _x11_bindings(monkeypatch)
    w, page = _window(qtbot, make_rate_project(tmp_path))
    sid = _new_session(page, "sort")
    project = page.gateway.project
    page.compare.setFocus()
    for _ in range(2):
        _press(qtbot, page, _key_for(page))
    second = project.ratings.answers(sid)[1]
    _press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(project.ratings.answers(sid)) == 1
    _press(qtbot, page, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    again = project.ratings.answers(sid)
    assert len(again) == 2
    assert (again[1].left, again[1].right, again[1].answer) == (
        second.left, second.right, second.answer)


def _answer_no(texts: list[str]) -> None:
    """Click No in the next "Undo last answer" question, noting its informative text."""
    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox) or box.objectName() != "confirm_undo":
            QTimer.singleShot(20, click)
            return
        texts.append(box.informativeText())
        box.button(QMessageBox.StandardButton.No).click()

    QTimer.singleShot(0, click)


def test_undo_last_answer_says_the_answer_was_given_here(qtbot, tmp_path: Path) -> None:
    """Finishing a session and pressing *Undo last answer* at once asked "This answer was not
    given in this window just now" — untrue; it now says the user gave it here."""
    w, page = _window(qtbot, make_rate_project(tmp_path))
    sid = _new_session(page, "sort")
    page.compare.setFocus()
    while not isinstance(page.gateway.rating.run(sid).current(), Ranking):
        _press(qtbot, page, _key_for(page))
    qtbot.waitUntil(lambda: page.stack.currentWidget() is page.grid)
    texts: list[str] = []
    _answer_no(texts)
    qtbot.mouseClick(page.grid.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(texts))
    assert "You gave this answer in this window" in texts[0]
    assert "not given" not in texts[0]
    # After reopening (no history in this window) the question says so.
    page.gateway.rating.history(sid).clear()
    _answer_no(texts)
    qtbot.mouseClick(page.grid.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(texts) == 2)
    assert "was not given in this window" in texts[1]
