"""The last net under every user action: an error that no view caught is said on screen.

PySide6 prints an exception raised in a slot (through :data:`sys.excepthook`) and goes on, so
the person at the window saw nothing happen -- on a server project, for instance, a write
the database refuses to an annotator's login ("Your login may not change this ..."). After
:func:`install`, such an exception is also shown in a message box (not modal: the window
stays usable): a project's error (:class:`~slicereview.store.errors.ProjectError`, whose
message is written for people) as it is, anything else as "Something went wrong" with its
type and message. The traceback still goes to stderr. Views catch what they expect and say
it where it belongs; this is for what they did not expect.
"""

from __future__ import annotations

import sys
import traceback
from types import TracebackType

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from slicereview.gui.gateway import ProjectError

#: The message boxes on screen.
_shown: list[QMessageBox] = []


def message(exc: BaseException) -> str:
    """What the message box says about ``exc`` (one or two sentences)."""
    if isinstance(exc, ProjectError):
        return str(exc)
    return (f"Something went wrong: {type(exc).__name__}: {exc}. What you did last may not "
            "have been saved; the details are on the terminal (stderr).")


def show(exc: BaseException) -> QMessageBox | None:
    """Say ``exc`` in a message box over the active window (``None`` without a QApplication)."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return None
    box = QMessageBox(QMessageBox.Icon.Warning, "slicereview", message(exc),
                      QMessageBox.StandardButton.Ok, app.activeWindow())
    box.setWindowModality(Qt.WindowModality.NonModal)
    _shown.append(box)  # (a box without a parent lives as long as a reference to it)
    box.finished.connect(lambda _result: _shown.remove(box))
    box.show()
    return box


def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """:data:`sys.excepthook`: the traceback to stderr, then :func:`show`."""
    traceback.print_exception(kind, exc, tb)
    if isinstance(exc, Exception):  # (not KeyboardInterrupt, SystemExit)
        show(exc)


def install() -> None:
    """Make :func:`hook` the interpreter's :data:`sys.excepthook`."""
    sys.excepthook = hook
