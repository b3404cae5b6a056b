"""The brush and the eraser on the Annotate page, driven with real mouse and key events on a
real project; the polygons are read back from the project file, the masks compared with an
independent oracle (pixel centres within the brush's radius of the stroke's path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from slicereview.app.annotating import label_image
from slicereview.engines.masks import rasterize
from slicereview.engines.strokes import area_of
from slicereview.gui.annotate.page import AnnotatePage
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import Certainty, Polygon
from slicereview.store import Project
from tests.engines.test_strokes import _distance_to_path
from tests.gui.annotate.test_annotate import make_annotate_project

_L = Qt.MouseButton.LeftButton
_NO = Qt.KeyboardModifier.NoModifier
_SHIFT = Qt.KeyboardModifier.ShiftModifier
_CTRL = Qt.KeyboardModifier.ControlModifier
SHAPE = (120, 160)


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_annotate_project(tmp_path)


@pytest.fixture
def window(qtbot, open_window, project_file: Path) -> MainWindow:
    w = open_window(project_file, (1300, 850))
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    return w


def _pos(page: AnnotatePage, x: float, y: float) -> QPoint:
    return page.view.graphics.mapFromScene(page.view.viewbox.mapViewToScene(QPointF(x, y)))


def _xy(page: AnnotatePage, pos: QPoint) -> tuple[float, float]:
    p = page.view.viewbox.mapSceneToView(page.view.graphics.mapToScene(pos))
    return p.x(), p.y()


def _stroke(qtbot, page: AnnotatePage, points, modifier=_NO) -> np.ndarray:
    """Press at the first point, move through the others, release at the last; returns the
    image points the mouse went through (the stroke's path)."""
    vp = page.view.graphics.viewport()
    positions = [_pos(page, x, y) for x, y in points]
    qtbot.mousePress(vp, _L, modifier, positions[0])
    for p in positions[1:]:
        qtbot.wait(15)  # pyqtgraph drops mouse moves closer than 10 ms (mouseRateLimit)
        qtbot.mouseMove(vp, p)
    qtbot.mouseRelease(vp, _L, modifier, positions[-1])
    return np.array([_xy(page, p) for p in positions])


def _stored(w: MainWindow) -> list[Polygon]:
    page = w.annotate_page
    assert page.annotation is not None
    return w.gateway.project.polygons.of(page.annotation.id)


def _key(qtbot, w, key, modifier=_NO) -> None:
    qtbot.keyClick(w, key, modifier)


def _undo(qtbot, w) -> None:
    _key(qtbot, w, Qt.Key.Key_Z, _CTRL)


def _redo(qtbot, w) -> None:
    _key(qtbot, w, Qt.Key.Key_Z, _CTRL | _SHIFT)


def _mask(polygons) -> np.ndarray:
    return rasterize(list(polygons), SHAPE) > 0


def _check(got: np.ndarray, want: np.ndarray, path: np.ndarray, radius: float) -> None:
    """``got`` is ``want`` wherever the pixel centre is more than one pixel from the brush's
    edge (the outline's tolerance)."""
    d = _distance_to_path(path, SHAPE)
    wrong = (got != want) & (np.abs(d - radius) > 1.0)
    assert not wrong.any(), np.argwhere(wrong)[:5].tolist()


def test_paint_then_paint_more_then_undo_redo_and_reopen(window, qtbot, project_file) -> None:
    page = window.annotate_page
    _key(qtbot, window, Qt.Key.Key_D, _SHIFT)  # the brush
    assert page.tool.mode.value == "brush" and page.actions_["brush"].isChecked()
    radius = page.tool.brush.radius
    first = _stroke(qtbot, page, [(30, 40), (45, 45), (60, 50), (75, 50)])
    [painted] = _stored(window)
    assert painted.certainty is Certainty.CERTAIN  # nothing selected: a new polygon...
    assert page.tool.selected_id == painted.id  # ...selected, so the next strokes add to it
    _check(_mask([painted]), _distance_to_path(first, SHAPE) <= radius, first, radius)
    assert page.history is not None and page.history.undo_text == "Paint"

    more = _stroke(qtbot, page, [(75, 50), (80, 70), (85, 90)])
    [grown] = _stored(window)
    assert grown.id == painted.id and area_of(grown.vertices) > area_of(painted.vertices)
    _check(_mask([grown]), _mask([painted]) | (_distance_to_path(more, SHAPE) <= radius),
           more, radius)

    _undo(qtbot, window)
    assert _stored(window) == [painted]
    _undo(qtbot, window)
    assert page.annotation is not None and _stored(window) == []
    _redo(qtbot, window)
    _redo(qtbot, window)
    assert _stored(window) == [grown] and _stored(window)[0].id == grown.id

    window.gateway.close()
    assert window.open_project(project_file)
    with Project.open(project_file, read_only=True) as project:
        [ann] = project.annotations.all()
        [again] = project.polygons.of(ann.id)
        assert again.id == grown.id
        np.testing.assert_array_equal(again.vertices, grown.vertices)
        np.testing.assert_array_equal(label_image(project, ann.id) > 0, _mask([grown]))


def test_erase_across_splits_and_undo_joins(window, qtbot) -> None:
    page = window.annotate_page
    _key(qtbot, window, Qt.Key.Key_U)  # new polygons uncertain
    _key(qtbot, window, Qt.Key.Key_D, _SHIFT)
    for _ in range(3):
        _key(qtbot, window, Qt.Key.Key_Period)  # a larger brush: 8 → 10 → 12 → 15
    assert page.tool.brush.radius == 15 and page.bars.radius.value() == 15
    _stroke(qtbot, page, [(30, 60), (70, 60), (120, 60)])
    [band] = _stored(window)
    assert band.certainty is Certainty.UNCERTAIN
    _key(qtbot, window, Qt.Key.Key_E, _SHIFT)  # the eraser
    for _ in range(3):
        _key(qtbot, window, Qt.Key.Key_Comma)  # 15 → 12 → 10 → 8
    assert page.tool.brush.radius == 8
    cut = _stroke(qtbot, page, [(85, 20), (85, 60), (85, 100)])
    pieces = _stored(window)
    assert len(pieces) == 2 and pieces[0].id == band.id and pieces[1].id != band.id
    assert {p.certainty for p in pieces} == {Certainty.UNCERTAIN}
    _check(_mask(pieces), _mask([band]) & (_distance_to_path(cut, SHAPE) > 8), cut, 8)
    assert page.history is not None and page.history.undo_text == "Erase"
    _undo(qtbot, window)
    assert _stored(window) == [band]
    _redo(qtbot, window)
    assert [p.id for p in _stored(window)] == [p.id for p in pieces]


def test_a_dab_inside_makes_a_hole_and_a_larger_one_erases_the_polygon(window, qtbot) -> None:
    page = window.annotate_page
    for x, y in [(20, 20), (140, 20), (140, 100), (20, 100)]:  # a polygon tool square
        qtbot.mouseClick(page.view.graphics.viewport(), _L, _NO, _pos(page, x, y))
    _key(qtbot, window, Qt.Key.Key_Return)
    [square] = _stored(window)
    _key(qtbot, window, Qt.Key.Key_E, _SHIFT)
    page.tool.select(square.id)
    dab = _stroke(qtbot, page, [(80, 60)])  # a click: one dab
    [holed] = _stored(window)
    assert holed.id == square.id
    with_hole = label_image(window.gateway.project, page.annotation.id) > 0
    assert not with_hole[60, 80] and with_hole[60, 30]  # (row, col): the hole is out
    _check(with_hole, _mask([square]) & (_distance_to_path(dab, SHAPE) > 8), dab, 8)
    # erasing with nothing selected takes from every polygon under the stroke; one that is
    # covered whole is deleted
    page.tool.select(None)
    page.bars.radius.setValue(120)  # the radius box
    assert page.tool.brush.radius == 120
    _stroke(qtbot, page, [(80, 60)])
    assert _stored(window) == []
    _undo(qtbot, window)
    assert _stored(window) == [holed]


def test_shift_swaps_brush_and_eraser_and_esc_cancels_a_stroke(window, qtbot) -> None:
    page = window.annotate_page
    _key(qtbot, window, Qt.Key.Key_D, _SHIFT)
    _stroke(qtbot, page, [(40, 60), (120, 60)])
    [band] = _stored(window)
    cut = _stroke(qtbot, page, [(80, 30), (80, 90)], _SHIFT)  # the brush erases with Shift
    assert len(_stored(window)) == 2
    _check(_mask(_stored(window)), _mask([band]) & (_distance_to_path(cut, SHAPE) > 8), cut, 8)
    vp = page.view.graphics.viewport()
    qtbot.mousePress(vp, _L, _NO, _pos(page, 20, 20))
    qtbot.wait(15)
    qtbot.mouseMove(vp, _pos(page, 30, 30))
    assert page.tool.dragging
    _key(qtbot, window, Qt.Key.Key_Escape)
    qtbot.mouseRelease(vp, _L, _NO, _pos(page, 30, 30))
    assert not page.tool.dragging and len(_stored(window)) == 2  # nothing painted


def test_the_cursor_circle_shows_the_radius_and_ctrl_wheel_resizes(window, qtbot) -> None:
    page = window.annotate_page
    brush = page.tool.brush
    vp = page.view.graphics.viewport()
    qtbot.mouseMove(vp, _pos(page, 50, 50))
    assert not brush.cursor.isVisible()  # the polygon tool has no circle
    _key(qtbot, window, Qt.Key.Key_D, _SHIFT)
    qtbot.wait(15)
    qtbot.mouseMove(vp, _pos(page, 60, 50))
    assert brush.cursor.isVisible()
    rect = brush.cursor.rect()
    assert rect.width() == pytest.approx(2 * brush.radius)
    assert rect.center().x() == pytest.approx(_xy(page, _pos(page, 60, 50))[0])
    range_before = page.view.viewbox.viewRect()
    from PySide6.QtCore import QPoint as _P
    from PySide6.QtGui import QWheelEvent

    for sign in (1, 1, -1):
        at = QPointF(_pos(page, 60, 50))
        event = QWheelEvent(at, QPointF(vp.mapToGlobal(at.toPoint())), _P(0, 0),
                            _P(0, 120 * sign), Qt.MouseButton.NoButton, _CTRL,
                            Qt.ScrollPhase.NoScrollPhase, False)
        from PySide6.QtWidgets import QApplication

        QApplication.sendEvent(vp, event)
    assert brush.radius == 10  # 8 → 10 → 12 → 10
    assert page.bars.radius.value() == 10
    assert page.view.viewbox.viewRect() == range_before  # Ctrl+wheel did not zoom
    assert brush.cursor.rect().width() == pytest.approx(20)


def test_someone_elses_annotation_cannot_be_painted(window, qtbot) -> None:
    page = window.annotate_page
    page.create_annotator("bob")
    page.select_you(window.gateway.project.raters.by_name("alice").id)
    page.select_annotator(window.gateway.project.raters.by_name("bob").id)
    assert not page.own
    assert not page.actions_["brush"].isEnabled() and not page.actions_["eraser"].isEnabled()
    page.tool.set_mode("brush")  # (even when the mode is set by code)
    _stroke(qtbot, page, [(40, 60), (120, 60)])
    assert page.annotation is None  # nothing was written
