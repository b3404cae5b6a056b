"""The pixel readout in the status bar works on the Annotate and Review tabs as on the View tab.

docs/using.md: the status bar shows "the pixel value and coordinates under the cursor" and
names the image of the View, Annotate and Review tabs. Under Xvfb the readout stayed empty on the
Annotate tab: only the View tab's viewer was connected to it."""

from __future__ import annotations

from PySide6.QtCore import QPoint

from slicereview.gui.window.main_window import MainWindow
from tests.gui.common.test_viewer_window_level import _select, project_file, window  # noqa: F401


def _hover(qtbot, view) -> None:
    vp = view.graphics.viewport()
    qtbot.mouseMove(vp, vp.rect().center())
    qtbot.mouseMove(vp, vp.rect().center() + QPoint(3, 3))


def test_readout_on_the_annotate_and_review_tabs(window: MainWindow, qtbot) -> None:  # noqa: F811
    _select(window, "png")
    page = window.annotate_page
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.view.display is not None)
    _hover(qtbot, page.view)
    qtbot.waitUntil(lambda: "value" in window.cursor_label.text())
    window.tabs.setCurrentWidget(window.viewer)  # another tab: the old readout goes
    assert window.cursor_label.text() == ""
    review = window.review_page  # built now: its viewer is connected too
    review.view.cursor_info.emit("x 1  y 2   value 3")
    assert window.cursor_label.text() == "x 1  y 2   value 3"
