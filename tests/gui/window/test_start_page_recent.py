"""The start page's recent projects open with one click (as the label says) or Enter; a double
click opens the project once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from slicereview.gui.common import settings as user_settings
from slicereview.store import Project


def _project(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    with Project.create(path):
        pass
    user_settings.add_recent_project(path)
    return path


def test_one_click_or_enter_opens_a_recent_project(open_window, qtbot, tmp_path) -> None:
    first = _project(tmp_path, "first.srproj")
    w = open_window()
    page = w.start_page
    page.refresh()
    opened: list[str] = []
    w.gateway.project_opened.connect(opened.append)
    item = page.recent.item(0)
    assert Path(item.text()) == first.absolute()
    qtbot.mouseClick(page.recent.viewport(), Qt.MouseButton.LeftButton,
                     pos=page.recent.visualItemRect(item).center())
    qtbot.waitUntil(lambda: w.gateway.is_open)
    assert w.gateway.open_project.path == first.absolute() and len(opened) == 1

    w.gateway.close()                              # back to the start page: Enter opens
    qtbot.waitUntil(page.isVisible)
    page.recent.setCurrentRow(0)
    page.recent.setFocus()
    qtbot.keyClick(page.recent, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: w.gateway.is_open)
    assert len(opened) == 2

    w.gateway.close()                              # a double click opens it once
    qtbot.waitUntil(page.isVisible)
    centre = page.recent.visualItemRect(page.recent.item(0)).center()
    qtbot.mouseClick(page.recent.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseDClick(page.recent.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.waitUntil(lambda: w.gateway.is_open)
    qtbot.wait(100)
    assert len(opened) == 3


def test_the_start_page_says_one_click_opens(open_window) -> None:
    from PySide6.QtWidgets import QLabel

    w = open_window()
    assert any("click to open" in label.text() for label in w.start_page.findChildren(QLabel))
