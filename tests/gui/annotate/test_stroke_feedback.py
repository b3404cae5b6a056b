"""A finished outline stays on screen while it is written (issue 31: a freehand outline became a
polygon 1-3 s after the mouse was released, and meanwhile nothing was shown). When the write
starts, the preview already holds the closed, simplified polygon (and has been painted);
afterwards the stored polygon replaces it. Checked by a spy on the write, not by a clock."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from slicereview.gui.annotate import intents
from tests.gui.annotate.test_annotate import _L, _NO, _click, _stored, _widget_pos
from tests.gui.annotate.test_annotate import project_file as project_file
from tests.gui.annotate.test_annotate import window as window


def _preview_points(page) -> int:
    return page.tool.preview.path().elementCount()


def test_the_outline_is_shown_while_it_is_written(window, qtbot, monkeypatch) -> None:
    page = window.annotate_page
    seen: list[int] = []
    real = intents.AddPolygon

    def spy(*args, **kwargs):
        seen.append(_preview_points(page))  # what the preview holds as the write starts
        return real(*args, **kwargs)

    monkeypatch.setattr(intents, "AddPolygon", spy)
    qtbot.keyClick(window, Qt.Key.Key_D)  # freehand: a circle
    vp = page.view.graphics.viewport()
    t = np.linspace(0, 2 * np.pi, 60)
    pts = [_widget_pos(page, 80 + 30 * np.cos(a), 60 + 30 * np.sin(a)) for a in t]
    qtbot.mousePress(vp, _L, _NO, pts[0])
    for p in pts[1:]:
        qtbot.mouseMove(vp, p)
    qtbot.mouseRelease(vp, _L, _NO, pts[-1])
    [polygon] = _stored(window)
    assert seen == [len(polygon.vertices) + 1]  # the closed, simplified outline was on screen
    assert _preview_points(page) == 0           # and gives way to the stored polygon
    qtbot.keyClick(window, Qt.Key.Key_P)  # the polygon tool hands over the same way
    for x, y in [(20, 20), (60, 22), (50, 50)]:
        _click(qtbot, page, x, y)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert seen[1:] == [4] and len(_stored(window)) == 2
