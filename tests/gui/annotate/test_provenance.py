"""Provenance in the Annotate tab, driven with real mouse and key events: the polygon tool
stores ``manual``, the freehand tool ``freehand``; a certainty toggle leaves a polygon
unedited, a vertex drag marks it edited and Ctrl+Z takes that back; the panel says how the
selected polygon was made."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from slicereview.app.images.importing import import_paths
from slicereview.model import Tool
from slicereview.store import Project

_L = Qt.MouseButton.LeftButton
_NO = Qt.KeyboardModifier.NoModifier
_CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def window(qtbot, open_window, tmp_path: Path):
    from skimage import io

    io.imsave(tmp_path / "im.png", np.full((120, 160), 900, np.uint16), check_contrast=False)
    with Project.create(tmp_path / "p.srproj") as project:
        import_paths(project, [tmp_path / "im.png"])
        project.raters.add("alice")
    w = open_window(tmp_path / "p.srproj", (1300, 850))
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    return w


def _pos(page, x: float, y: float):
    return page.view.graphics.mapFromScene(page.view.viewbox.mapViewToScene(QPointF(x, y)))


def _stored(w):
    return w.gateway.project.polygons.of(w.annotate_page.annotation.id)


def test_tools_are_stored_edits_marked_and_shown(window, qtbot) -> None:
    page, vp = window.annotate_page, window.annotate_page.view.graphics.viewport()
    for x, y in [(10, 10), (40, 10), (40, 40), (10, 40)]:  # the polygon tool (the default)
        qtbot.mouseClick(vp, _L, _NO, _pos(page, x, y))
    qtbot.keyClick(window, Qt.Key.Key_Return)
    qtbot.keyClick(window, Qt.Key.Key_D)  # freehand: a circle
    points = [_pos(page, 110 + 25 * np.cos(a), 60 + 25 * np.sin(a))
              for a in np.linspace(0, 2 * np.pi, 40)]
    qtbot.mousePress(vp, _L, _NO, points[0])
    for p in points[1:]:
        qtbot.mouseMove(vp, p)
    qtbot.mouseRelease(vp, _L, _NO, points[-1])
    manual, freehand = _stored(window)
    assert [(p.tool, p.edited) for p in (manual, freehand)] == [
        (Tool.MANUAL, False), (Tool.FREEHAND, False)]
    assert page.panel.selected_label.text().endswith(", made freehand")  # the new one is selected

    qtbot.keyClick(window, Qt.Key.Key_U)  # certainty: not an edit of the outline
    assert (_stored(window)[1].certainty.value, _stored(window)[1].edited) == (
        "uncertain", False)
    qtbot.keyClick(window, Qt.Key.Key_E)
    page.tool.select(manual.id)
    a, b = _pos(page, 40, 40), _pos(page, 55, 50)
    qtbot.mousePress(vp, _L, _NO, a)
    for k in range(1, 7):
        qtbot.wait(15)  # pyqtgraph drops mouse moves closer than 10 ms (mouseRateLimit)
        qtbot.mouseMove(vp, a + (b - a) * (k / 6))
    qtbot.mouseRelease(vp, _L, _NO, b)
    dragged = _stored(window)[0]
    assert not np.array_equal(dragged.vertices, manual.vertices)
    assert (dragged.tool, dragged.edited) == (Tool.MANUAL, True)
    assert page.panel.selected_label.text().endswith(", made manual, edited")
    qtbot.keyClick(window, Qt.Key.Key_Z, _CTRL)
    assert _stored(window)[0] == manual and not _stored(window)[0].edited
    qtbot.waitUntil(lambda: page.panel.selected_label.text().endswith(", made manual"))
