"""Another program holds the project file's lock while the GUI writes (app/undo.py).

A second process runs ``BEGIN EXCLUSIVE`` on the file while the user adds a polygon and ends
its transaction once the GUI says that the file is busy: no traceback, the status bar says so,
and the polygon lands after the lock is released (on the undo stack once). Cancelled after the
patience runs out, the write is reported as not saved and is not on the undo stack. Opening the
project while another program is in the middle of a transaction (its journal on disk) waits
the same way, never "damaged".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from slicereview.app.images.importing import import_paths
from slicereview.app.undo import BUSY_MESSAGE
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project
from slicereview.store.sidecars import JOURNAL_MAGIC

_HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
if sys.argv[2] == "spill":  # a transaction in progress with a (live) journal on disk
    conn.execute("PRAGMA cache_size = 2")
    for k in range(3000):
        conn.execute("INSERT INTO meta VALUES (?, ?)", (f"spill{k}", "y" * 300))
print("locked", flush=True)
sys.stdin.readline()  # until the test says so
conn.execute("COMMIT")
"""


@pytest.fixture
def window(qtbot, tmp_path: Path) -> MainWindow:
    from skimage import io

    io.imsave(tmp_path / "im.png", (np.random.default_rng(0).random((120, 160)) * 4000)
              .astype(np.uint16), check_contrast=False)
    path = tmp_path / "busy.srproj"
    with Project.create(path) as project:
        import_paths(project, [tmp_path / "im.png"])
        project.raters.add("alice")
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(path)
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    return w


def _hold_lock(path: Path, how: str = "plain") -> subprocess.Popen[str]:
    """Hold the file's EXCLUSIVE lock until :func:`_release`."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path), how],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("go\n")
    holder.stdin.close()


def _release_when_told(w: MainWindow, holder: subprocess.Popen[str]) -> None:
    """Release ``holder``'s lock when the window says that the file is busy: the GUI has then
    met the lock and is waiting for it (no guess at how long that takes)."""

    def on_busy(message: str) -> None:
        if message == BUSY_MESSAGE and holder.stdin is not None and not holder.stdin.closed:
            _release(holder)

    w.gateway.project_busy.connect(on_busy)


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
        return len(other.polygons.of(annotation.id))


def test_a_write_waits_for_another_programs_lock_and_lands(window, qtbot) -> None:
    seen: list[str] = []
    window.gateway.project_busy.connect(seen.append)
    _draw_triangle(qtbot, window, 10)
    assert _stored(window) == 1
    holder = _hold_lock(window.gateway.project.path)
    _release_when_told(window, holder)
    _draw_triangle(qtbot, window, 60)  # waits (retrying) until the lock is released
    holder.wait(30)
    assert holder.returncode == 0
    # It did wait for the other program: the lock went only once the message was shown.
    assert BUSY_MESSAGE in seen and seen[-1] == ""  # shown while waiting, cleared after
    assert _stored(window) == 2
    assert len(window.annotate_page.history) == 2
    assert "not saved" not in window.annotate_page.panel.message_label.text()


@pytest.mark.slow  # 10 s: the views' re-reads wait for the lock
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
    holder = _hold_lock(window.gateway.project.path)  # until released below
    _draw_triangle(qtbot, window, 60)
    assert asked and "busy" in asked[0]
    assert "not saved" in told[0] and "busy" in told[0]
    # The lock is still held: the views' re-read waits, then says so and re-reads later.
    assert "still busy" in window.annotate_page.panel.message_label.text(), told
    _release(holder)
    holder.wait(30)
    qtbot.waitUntil(lambda: window.annotate_page.annotation is not None, timeout=5000)
    assert _stored(window) == 1
    assert len(window.annotate_page.tool.polygons) == 1  # the screen matches the file again
    stack = window.annotate_page.history
    assert len(stack) == 1
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the first one
    assert _stored(window) == 0


def test_opening_during_another_programs_transaction_waits_and_opens(qtbot, tmp_path: Path,
                                                                     monkeypatch) -> None:
    path = tmp_path / "shared.srproj"
    with Project.create(path) as project:
        project.raters.add("alice")
    refused: list[str] = []
    monkeypatch.setattr("slicereview.gui.window.main_window.QMessageBox.critical",
                        lambda parent, title, text: refused.append(text))
    w = MainWindow()
    qtbot.addWidget(w)
    seen: list[str] = []
    w.gateway.project_busy.connect(seen.append)
    holder = _hold_lock(path, "spill")
    assert path.with_name(path.name + "-journal").read_bytes()[:8] == JOURNAL_MAGIC
    _release_when_told(w, holder)
    assert w.open_project(path), refused
    holder.wait(30)
    assert holder.returncode == 0 and not refused
    # It waited for the other program's commit: the lock went only once the message was shown.
    assert BUSY_MESSAGE in seen and seen[-1] == ""
    assert w.gateway.open_project.meta("spill2999") is not None  # opened after the commit
