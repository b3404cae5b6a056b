"""An error no view caught, raised in a slot, is said in a message box (not only printed on
stderr while the window shows nothing): a project's error as it is, anything else as
"Something went wrong"."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from slicereview.gui.window import uncaught
from slicereview.store import ServerError


def _boxes() -> list[QMessageBox]:
    return [w for w in QApplication.allWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


@pytest.mark.qt_no_exception_capture
def test_an_uncaught_error_in_a_slot_is_said_on_screen(qtbot, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # (restored after the test)
    uncaught.install()
    window = QWidget()
    qtbot.addWidget(window)
    window.show()
    refused = "Your login may not change this (...), so nothing was saved: policy"

    def refuse() -> None:
        raise ServerError(refused)

    def fail() -> None:
        raise RuntimeError("boom")

    for slot, said in ((refuse, refused), (fail, "Something went wrong: RuntimeError: boom")):
        QTimer.singleShot(0, slot)
        qtbot.waitUntil(lambda: bool(_boxes()), timeout=5000)
        [box] = _boxes()
        assert box.text().startswith(said) and not box.isModal()
        box.close()
        qtbot.waitUntil(lambda: not _boxes())
    assert "Traceback" in capsys.readouterr().err  # (the details stay on stderr)
