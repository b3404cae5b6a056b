"""Another program holds the project file's lock while the GUI writes (gui/busy.py).

A second process runs ``BEGIN EXCLUSIVE`` on the file for a few seconds while the user adds a
polygon: no traceback, the status bar says the file is busy, and the polygon lands after the
lock is released (on the undo stack once). Cancelled after the patience runs out, the write is
reported as not saved and is not on the undo stack.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from skimage import io

from slicereview.app.importing import import_paths
from slicereview.gui import busy
from slicereview.gui.main_window import MainWindow
from slicereview.store import Project

_HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


@pytest.fixture
def window(qtbot, tmp_path: Path) -> MainWindow:
    io.imsave(tmp_path / "im.png", (np.random.default_rng(0).random((120, 160)) * 4000)
              .astype(np.uint16), check_contrast=False)
    path = tmp_path / "busy.srproj"
    with Project.create(path) as project:
        import_paths(project, [tmp_path / "im.png"])
        project.add_rater("alice")
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(path)
    w.jobs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    return w


def _hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path), str(seconds)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def _draw_triangle(qtbot, w: MainWindow, x0: float) -> None:
    page = w.annotate_page
    for x, y in [(x0, 10), (x0 + 30, 10), (x0 + 30, 40)]:
        scene = page.view.viewbox.mapViewToScene(QPointF(x, y))
        pos: QPoint = page.view.graphics.mapFromScene(scene)
        qtbot.mouseClick(page.view.graphics.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.NoModifier, pos)
    qtbot.keyClick(w, Qt.Key.Key_Return)


def _stored(w: MainWindow) -> int:
    annotation = w.annotate_page.annotation
    assert annotation is not None
    with Project.open(w.gateway.project.path, read_only=True) as other:  # the file itself
        return len(other.polygons(annotation.id))


def test_a_write_waits_for_another_programs_lock_and_lands(window, qtbot) -> None:
    seen: list[str] = []
    window.gateway.project_busy.connect(seen.append)
    _draw_triangle(qtbot, window, 10)
    assert _stored(window) == 1
    holder = _hold_lock(window.gateway.project.path, 3.0)
    start = time.monotonic()
    _draw_triangle(qtbot, window, 60)  # waits (retrying) until the lock is released
    waited = time.monotonic() - start
    holder.wait(30)
    assert holder.returncode == 0
    assert waited > 1.0, waited  # it did wait for the other program
    assert busy.MESSAGE in seen and seen[-1] == ""  # shown while waiting, cleared after
    assert _stored(window) == 2
    assert window.annotate_page.undo_stack.count() == 2
    assert "not saved" not in window.annotate_page.panel.message_label.text()


def test_a_cancelled_wait_is_reported_and_not_on_the_undo_stack(window, qtbot) -> None:
    asked: list[str] = []

    def cancel(message: str) -> bool:
        asked.append(message)
        return False

    told: list[str] = []
    window.gateway.write_failed.connect(told.append)
    window.gateway.ask_retry = cancel
    window.gateway.busy_patience_s = 0.5
    _draw_triangle(qtbot, window, 10)
    holder = _hold_lock(window.gateway.project.path, 4.0)
    _draw_triangle(qtbot, window, 60)
    assert asked and "busy" in asked[0]
    assert "not saved" in told[0] and "busy" in told[0]
    # The user is told: either the re-read also hit the lock ("still busy", re-read later) or it
    # went through (the views re-read before the other writer's next lock) and the refusal stays.
    label = window.annotate_page.panel.message_label.text()
    assert "still busy" in label or "not saved" in label, told
    holder.wait(30)
    qtbot.waitUntil(lambda: window.annotate_page.annotation is not None, timeout=5000)
    assert _stored(window) == 1
    assert len(window.annotate_page.tool.polygons) == 1  # the screen matches the file again
    stack = window.annotate_page.undo_stack
    assert stack.count() == 1
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the first one
    assert _stored(window) == 0
