"""The Annotate tab fits a 1280 × 800 screen and a 1920 × 1080 one: both tool bars show every
button whole (nothing behind a » button), the page's and the window's minimum sizes fit, and
showing the tab (or any other) never makes the window wider (issue 31: 1400 → 1449 px)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolBar, QToolButton

from slicereview.gui.annotate.toolbar import TOOLS
from slicereview.gui.window.main_window import MainWindow
from tests.gui.annotate.test_annotate import make_annotate_project
from tests.gui.review.review_fixture import build_review_project

SCREENS = [(1280, 800), (1920, 1080)]


def _shown_whole(bar: QToolBar) -> list[str]:
    """The texts of ``bar``'s actions that are not shown whole inside it."""
    cut = []
    inside = bar.contentsRect()
    for action in bar.actions():
        if action.isSeparator():
            continue
        widget = bar.widgetForAction(action)
        if widget is None or not widget.isVisible() or not inside.contains(widget.geometry()):
            cut.append(action.text() or (widget.objectName() if widget else "?"))
    extension = bar.findChild(QToolButton, "qt_toolbar_ext_button")
    if extension is not None and extension.isVisible():
        cut.append("» (the rest behind it)")
    return cut


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_tool_is_shown_whole_and_the_page_fits(open_window, qtbot, tmp_path: Path,
                                                     screenshots: Path, screen) -> None:
    w = open_window(make_annotate_project(tmp_path), screen)
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.view.display is not None)
    tools, bar = page.bars.tools, page.bars.actions
    assert [a.objectName() for a in tools.actions()] == [f"annotate_{t}" for t in TOOLS]
    assert {a.objectName() for a in bar.actions()} >= {
        "annotate_toggle_certainty", "annotate_delete", "annotate_undo", "annotate_redo",
        "annotate_overlay"}
    qtbot.waitUntil(lambda: _shown_whole(tools) == [] and _shown_whole(bar) == [])
    assert w.width() == screen[0]  # (not widened by the page)
    width, height = screen
    dock = w.browser_dock.minimumSizeHint().width()
    page_min = page.minimumSizeHint()
    assert dock + page_min.width() <= width
    assert page_min.height() <= height - 100  # (menus, tabs, status bar, a title bar)
    assert w.minimumSizeHint().width() <= width and w.minimumSizeHint().height() <= height
    # the eleven tools (the six assisted ones too) in one column beside the image
    button = tools.widgetForAction(tools.actions()[0]).sizeHint().height()
    assert len(TOOLS) * button <= page.view.height()
    w.grab().save(str(screenshots / f"annotate-{width}x{height}.png"))


@pytest.mark.slow  # 8-12 s: every page is built, the Overview computes its report
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_switching_tabs_keeps_the_window_width(open_window, qtbot, tmp_path: Path,
                                               screen) -> None:
    w: MainWindow = open_window(build_review_project(tmp_path), screen)
    widths = []
    for _ in range(2):  # every page built, then each shown again
        for index in range(w.tabs.count()):
            w.tabs.setCurrentIndex(index)
            qtbot.wait(50)  # (the layout settles)
            widths.append((w.tabs.tabText(index), w.width()))
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    widths.append(("Annotate", w.width()))
    assert {width for _, width in widths} == {screen[0]}, widths


def test_every_bar_action_is_reachable_with_the_mouse_at_1280x800(open_window, qtbot,
                                                                  tmp_path: Path) -> None:
    """Issue 31 ("the Annotate toolbar is cut after Fill −"): at 1280 × 800 every button of
    both bars is inside the window and a click on it does what it says; the Display menu
    holds outline only and the fill steps."""
    w = open_window(make_annotate_project(tmp_path), (1280, 800))
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.view.display is not None)
    window_rect = w.rect()
    for bar in (page.bars.tools, page.bars.actions):
        for action in bar.actions():
            widget = bar.widgetForAction(action)
            if action.isSeparator() or widget is None:
                continue
            corner = widget.mapTo(w, widget.rect().bottomRight())
            assert widget.isVisible() and window_rect.contains(corner), action.text()
    for name in TOOLS:  # each tool's button chooses it
        button = page.bars.tools.widgetForAction(page.actions_[name])
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert page.tool.mode.value == name and page.actions_[name].isChecked()
    overlay = page.bars.actions.widgetForAction(page.actions_["overlay"])
    qtbot.mouseClick(overlay, Qt.MouseButton.LeftButton)
    assert not page.actions_["overlay"].isChecked()
    menu = page.bars.display.menu()
    assert [a.objectName() for a in menu.actions()] == [
        "annotate_outline", "annotate_less_fill", "annotate_more_fill"]
