"""Starting the GUI: the QApplication, the stylesheet and icon, and ``--screenshot``.

``run(project, screenshot=FILE)`` renders the main window offscreen to a PNG and exits; it sets
``QT_QPA_PLATFORM=offscreen`` itself for that. Without ``--screenshot`` a display is required:
:func:`slicereview.app.environment.no_display_reason` says why there is none (the CLI asks it
before building the demo), instead of Qt falling back to an invisible offscreen window that runs
forever. An unattended run (``--screenshot``) never waits on a dialog: one that opens is written
to stderr and closed. Qt is imported only inside functions.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.app.environment import NoDisplayError, no_display_reason
from slicereview.app.resources import ICON_SIZES, read_text, resource_path

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication


def _ensure_platform(screenshot: Path | None) -> None:
    if screenshot is not None and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def application() -> QApplication:
    """The QApplication (created once) with slicereview's name, icon and stylesheet, whose
    thread is the only one that collects garbage (docs/design.md, "Threading")."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from slicereview.gui.common import background  # (configures pyqtgraph first)

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    background.install(app)
    app.setApplicationName("slicereview")
    app.setOrganizationName("slicereview")
    app.setDesktopFileName("slicereview")  # matches packaging/slicereview.desktop
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addFile(str(resource_path(f"slicereview-{size}.png")))
    app.setWindowIcon(icon)
    app.setStyleSheet(read_text("slicereview.qss"))
    return app


def _parse_size(size: str) -> tuple[int, int]:
    w, _, h = size.lower().partition("x")
    return int(w), int(h)


def run(project: Path | str | None = None, *, screenshot: Path | None = None,
        size: str = "1400x900", tab: str | None = None) -> int:
    """Open the main window (on ``project``, a file or a server project's URL, else the last
    project) and run the event loop.

    ``tab`` names the tab to show ("review"; default the View tab). Raises
    :class:`NoDisplayError` when there is no display and no ``screenshot``.
    """
    reason = no_display_reason(screenshot)
    if reason:
        raise NoDisplayError(reason)
    _ensure_platform(screenshot)
    app = application()
    from slicereview.gui.common import settings as user_settings

    if project is None and screenshot is None:
        recent = [p for p in user_settings.recent_projects() if p.is_file()]
        project = recent[0] if recent else None
    from slicereview.gui.window.main_window import MainWindow

    if screenshot is not None:
        _answer_dialogs_on_stderr(app)  # nobody is there to click them
    from slicereview.gui.window import uncaught

    uncaught.install()  # an error no view caught is said on screen, not only on stderr
    window = MainWindow(remember=screenshot is None)  # a screenshot changes no settings
    if screenshot is None:
        window.restore_layout()
    else:
        window.resize(*_parse_size(size))
    if project is not None and not window.open_project(project) and screenshot:
        return 2
    window.show()
    if tab is not None:
        show_tab(window, tab)
    if screenshot is not None:
        return save_screenshot(window, Path(screenshot))
    return app.exec()


def show_tab(window, name: str) -> None:
    """Show the main window's tab titled ``name`` (any case); ValueError if there is none."""
    titles = [window.tabs.tabText(i).replace("&", "") for i in range(window.tabs.count())]
    lowered = [title.lower() for title in titles]
    if name.lower() not in lowered:
        raise ValueError(f"no tab {name!r}; the tabs are {', '.join(titles)}")
    window.tabs.setCurrentIndex(lowered.index(name.lower()))


def _answer_dialogs_on_stderr(app):
    """An unattended run (``--screenshot``) must never wait for a click: a modal dialog that
    opens (an error message, a question) is written to stderr as one line and closed
    (rejected, the safe answer) within a tenth of a second. Returns the timer."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QDialog, QMessageBox

    def close_modal() -> None:
        dialog = app.activeModalWidget()
        if not isinstance(dialog, QDialog):
            return
        text = dialog.text() if isinstance(dialog, QMessageBox) else ""
        print(f"{dialog.windowTitle()}: {' '.join(text.split())}".rstrip(": "),
              file=sys.stderr)
        dialog.reject()

    timer = QTimer(app, interval=100, timeout=close_modal)
    timer.start()
    return timer


def save_screenshot(window, path: Path) -> int:
    """Let pending work settle (the image list's rows, thumbnails, background workers,
    layout), grab the window, save it as PNG."""
    from PySide6.QtWidgets import QApplication

    from slicereview.gui.common import background

    for _ in range(5):
        QApplication.processEvents()
    window.browser.list.wait_for_rows(60000)  # (batched: 100,000 rows are 50 batches)
    window.browser.wait_for_thumbnails(60000)
    background.wait_all(300)
    for _ in range(5):
        QApplication.processEvents()
    path.parent.mkdir(parents=True, exist_ok=True)
    ok = window.grab().save(str(path), "PNG")
    window.close()
    print(f"Screenshot saved to {path}" if ok else f"Could not write {path}", file=sys.stderr)
    return 0 if ok else 2
