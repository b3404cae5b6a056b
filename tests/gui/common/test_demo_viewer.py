"""Open the real demo project in the main window and use the viewer on a mammogram."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt


def test_demo_mammogram_window_level_zoom_and_switch(qtbot, open_window,
                                                     demo_project: Path) -> None:
    w = open_window(demo_project, (1300, 850))
    display = w.viewer.display
    assert display is not None and display.data.shape[0] > 4000  # a real mammogram
    assert w.viewer.image_item.image.shape[0] < display.data.shape[0]  # zoomed out: reduced
    before = w.viewer.current_window
    vp = w.viewer.graphics.viewport()
    start = vp.rect().center()
    qtbot.mousePress(vp, Qt.MouseButton.RightButton, pos=start)
    qtbot.mouseMove(vp, start + QPoint(-60, 40))
    qtbot.mouseRelease(vp, Qt.MouseButton.RightButton, pos=start + QPoint(-60, 40))
    after = w.viewer.current_window
    assert after.width < before.width and after.center > before.center
    w.view_menu.actual_size()  # 1:1 shows the full-resolution array
    assert w.viewer.image_item.image.shape == display.data.shape
    ids = w.browser.image_ids()
    mri = [i for i in ids if w.gateway.image(i).is_slice]
    assert mri, "the demo has MRI volume slices"
    w.browser.select(mri[0])
    assert w.viewer.slice_slider.isVisible()
    w.view_menu.next_slice()
    assert w.browser.current_id() == mri[1]


@pytest.mark.slow  # 24 s: builds the demo
def test_open_demo_builds_in_the_background(qtbot, open_window, tmp_path: Path,
                                            monkeypatch) -> None:
    import slicereview.demo.project as demo

    monkeypatch.setattr(demo, "default_demo_dir", lambda: tmp_path / "demo")
    w = open_window(size=None, exposed=False)
    worker = w.file_menu.open_demo()
    assert worker is not None and w.file_menu.open_demo() is None  # one build at a time
    with qtbot.waitSignal(worker.finished, timeout=300000):
        pass
    qtbot.waitUntil(lambda: w.gateway.is_open, timeout=10000)
    assert w.gateway.project.path == (tmp_path / "demo" / demo.DEMO_FILE).absolute()
    assert len(w.browser.image_ids()) > 8


def test_show_tab_by_name(open_window, demo_project: Path) -> None:
    # `open --tab NAME` (the stand-alone build's test renders every tab with it)
    from slicereview.cli.project_cmds import TABS
    from slicereview.gui.application import show_tab

    w = open_window(demo_project, (1300, 850))
    titles = [w.tabs.tabText(i).replace("&", "").lower() for i in range(w.tabs.count())]
    assert titles == list(TABS)  # the CLI's choices are the window's tabs
    show_tab(w, "Review")
    assert w.tabs.currentWidget() is w.review_page
    with pytest.raises(ValueError, match="no tab 'ranking'; the tabs are View, Annotate"):
        show_tab(w, "ranking")
