"""Regression guard: PySide6 6.12.0 on Python 3.11 aborts after ~100 calls of void Qt methods.

The crash (``Fatal Python error: none_dealloc``) is a reference-count underflow of ``None``
returned by void methods; it kills the interpreter, so it can only be observed from outside:
the calls run in a subprocess and the test asserts that it exits normally. The pin
``PySide6-Essentials>=6.9,<6.12`` in ``pyproject.toml`` keeps the broken release out; the second
test checks that the installed PySide6 satisfies the pin that the installed slicereview declares.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.requirements import Requirement

# Several times the ~100 calls after which 6.12.0 aborts, over the kinds of void methods the
# app calls all the time (QWidget/QObject setters, QPainter drawing, signals, QImage.fill).
CALLS = 600

SCRIPT = textwrap.dedent(
    f"""
    import sys
    from PySide6.QtCore import QObject, QPointF, Qt, Signal
    from PySide6.QtGui import QColor, QImage, QPainter, QPen
    from PySide6.QtWidgets import QApplication, QLabel, QWidget

    class Emitter(QObject):
        changed = Signal(int)

    app = QApplication(sys.argv[:1])
    widget = QWidget()
    label = QLabel()
    emitter = Emitter()
    received = []
    emitter.changed.connect(received.append)
    image = QImage(64, 64, QImage.Format.Format_ARGB32)
    for k in range({CALLS}):
        widget.setWindowTitle(f"title {{k}}")
        widget.setObjectName(f"name-{{k}}")
        widget.resize(100 + k % 7, 80)
        widget.setToolTip("tip")
        label.setText(str(k))
        emitter.changed.emit(k)
        image.fill(QColor(k % 256, 0, 0))
        painter = QPainter(image)
        painter.setPen(QPen(Qt.GlobalColor.red, 2))
        painter.drawLine(QPointF(0, 0), QPointF(k % 64, 63))
        painter.end()
        app.processEvents()
    assert widget.windowTitle() == "title {CALLS - 1}"
    assert len(received) == {CALLS}
    print("survived", {CALLS})
    """
)


def test_many_void_qt_calls_do_not_abort():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert "none_dealloc" not in proc.stderr, (
        "PySide6 hit the 6.12.0 none_dealloc abort; keep PySide6-Essentials<6.12"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == f"survived {CALLS}"


def _pyside_requirement() -> Requirement:
    from packaging.requirements import Requirement

    for text in importlib.metadata.requires("slicereview") or []:
        req = Requirement(text)
        if req.name.lower() == "pyside6-essentials" and req.marker is None:
            return req
    raise AssertionError("slicereview does not declare PySide6-Essentials as a dependency")


def test_declared_pin_excludes_the_broken_release():
    from packaging.version import Version

    spec = _pyside_requirement().specifier
    assert Version("6.12.0") not in spec
    assert Version("6.9.0") in spec and Version("6.11.3") in spec


def test_installed_pyside_is_within_the_pin():
    import PySide6
    from packaging.version import Version

    installed = Version(importlib.metadata.version("PySide6-Essentials"))
    assert installed in _pyside_requirement().specifier, installed
    assert Version(PySide6.__version__) == installed  # the module is the pinned distribution
