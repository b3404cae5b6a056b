"""The Annotate page driven with real mouse and key events; results read from the project file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from slicereview.app.annotating import label_image
from slicereview.app.images.importing import import_paths
from slicereview.engines import geometry
from slicereview.engines.masks import rasterize
from slicereview.gui.annotate.page import AnnotatePage
from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import AnnotationStatus, Certainty, Polygon
from slicereview.store import Project

_L = Qt.MouseButton.LeftButton
_NO = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_annotate_project(tmp_path)


def make_annotate_project(tmp_path: Path) -> Path:
    """Three 16-bit PNGs (120 x 160), an annotator and one question of every kind."""
    from skimage import io

    folder = tmp_path / "images"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for k in range(3):
        io.imsave(folder / f"im{k}.png", (rng.random((120, 160)) * 4000).astype(np.uint16),
                  check_contrast=False)
    path = tmp_path / "annotate.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        project.raters.add("alice")
        project.questions.add("density", "Density", "radio", "image", ["A", "B", "C", "D"])
        project.questions.add("findings", "Findings", "checklist", "image", ["calc", "mass"])
        project.questions.add("note", "Note", "text", "image")
        project.questions.add("where", "Where", "dropdown", "image",
                              [{"value": "left", "children": ["upper", "lower"]}, "right"])
        project.questions.add("kind", "Kind", "radio", "polygon", ["vessel", "other"])
        project.guidelines.add("Outline every **calcification**.")
    return path


@pytest.fixture
def window(qtbot, open_window, project_file: Path) -> MainWindow:
    w = open_window(project_file, (1300, 850))
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    return w


def _page(w: MainWindow) -> AnnotatePage:
    return w.annotate_page


def _widget_pos(page: AnnotatePage, x: float, y: float) -> QPoint:
    scene = page.view.viewbox.mapViewToScene(QPointF(x, y))
    return page.view.graphics.mapFromScene(scene)


def _image_xy(page: AnnotatePage, pos: QPoint) -> tuple[float, float]:
    """The image point a click at widget ``pos`` lands on (what the user drew)."""
    p = page.view.viewbox.mapSceneToView(page.view.graphics.mapToScene(pos))
    return p.x(), p.y()


def _click(qtbot, page, x, y, modifier=_NO) -> tuple[float, float]:
    pos = _widget_pos(page, x, y)
    qtbot.mouseClick(page.view.graphics.viewport(), _L, modifier, pos)
    return _image_xy(page, pos)


def _drag(qtbot, page, start, end, button=_L, modifier=_NO, steps=6) -> None:
    vp = page.view.graphics.viewport()
    a, b = _widget_pos(page, *start), _widget_pos(page, *end)
    qtbot.mousePress(vp, button, modifier, a)
    for k in range(1, steps + 1):
        qtbot.wait(15)  # pyqtgraph drops mouse moves closer than 10 ms (mouseRateLimit)
        qtbot.mouseMove(vp, a + (b - a) * (k / steps))
    qtbot.mouseRelease(vp, button, modifier, b)


def _stored(w: MainWindow) -> list[Polygon]:
    page = _page(w)
    assert page.annotation is not None
    return w.gateway.project.polygons.of(page.annotation.id)


def _key(qtbot, w, key, modifier=_NO) -> None:
    qtbot.keyClick(w, key, modifier)


def test_draw_toggle_drag_undo_redo_and_reopen(window, qtbot, project_file) -> None:
    page = _page(window)
    drawn = [_click(qtbot, page, x, y) for x, y in [(20, 20), (90, 25), (85, 80), (25, 70)]]
    assert len(page.tool.unfinished) == 4
    _click(qtbot, page, 20.4, 20.3)  # on the first vertex: closes
    [stored] = _stored(window)
    np.testing.assert_array_equal(stored.vertices, np.array(drawn))
    assert stored.certainty is Certainty.CERTAIN

    _key(qtbot, window, Qt.Key.Key_U)
    assert _stored(window)[0].certainty is Certainty.UNCERTAIN

    _key(qtbot, window, Qt.Key.Key_E)  # edit mode; the new polygon is selected
    assert page.tool.selected_id == stored.id
    _drag(qtbot, page, drawn[2], (110, 100))
    moved = _stored(window)[0]
    target = _image_xy(page, _widget_pos(page, 110, 100))
    expected = np.array(drawn)
    expected[2] = target
    np.testing.assert_allclose(moved.vertices, expected, atol=1e-9)
    assert moved.id == stored.id

    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    np.testing.assert_array_equal(_stored(window)[0].vertices, np.array(drawn))
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _stored(window)[0].certainty is Certainty.CERTAIN
    redo = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    _key(qtbot, window, Qt.Key.Key_Z, redo)
    _key(qtbot, window, Qt.Key.Key_Z, redo)
    final = _stored(window)[0]
    assert final.certainty is Certainty.UNCERTAIN
    np.testing.assert_allclose(final.vertices, expected, atol=1e-9)

    window.gateway.close()
    assert window.open_project(project_file)
    with Project.open(project_file, read_only=True) as project:
        [ann] = project.annotations.all()
        [again] = project.polygons.of(ann.id)
        np.testing.assert_allclose(again.vertices, expected, atol=1e-9)
        labels = label_image(project, ann.id)
    want = rasterize([Polygon(expected, Certainty.UNCERTAIN)], (120, 160))
    np.testing.assert_array_equal(labels, want)
    assert (labels == 2).sum() > 2000


def test_undo_and_redo_of_adding_keep_the_id(window, qtbot) -> None:
    page = _page(window)
    for x, y in [(10, 10), (40, 10), (40, 40)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    [first] = _stored(window)
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _stored(window) == []
    _key(qtbot, window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    [again] = _stored(window)
    assert again.id == first.id and again == first


def test_backspace_escape_enter_and_double_click(window, qtbot) -> None:
    page = _page(window)
    for x, y in [(10, 10), (50, 10), (50, 50)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Backspace)
    assert len(page.tool.unfinished) == 2
    _click(qtbot, page, 10, 60)
    _key(qtbot, window, Qt.Key.Key_Return)
    assert len(_stored(window)) == 1 and len(_stored(window)[0].vertices) == 3
    _click(qtbot, page, 100, 10)
    _click(qtbot, page, 140, 10)
    _key(qtbot, window, Qt.Key.Key_Escape)
    assert len(page.tool.unfinished) == 0 and len(_stored(window)) == 1
    # double-click closes (its first click places the last vertex)
    _click(qtbot, page, 100, 60)
    _click(qtbot, page, 140, 60)
    pos = _widget_pos(page, 140, 100)
    qtbot.mouseClick(page.view.graphics.viewport(), _L, _NO, pos)
    qtbot.mouseDClick(page.view.graphics.viewport(), _L, _NO, pos)
    polygons = _stored(window)
    assert len(polygons) == 2 and len(polygons[1].vertices) == 3


def test_freehand_stroke_becomes_a_simplified_polygon(window, qtbot) -> None:
    page = _page(window)
    _key(qtbot, window, Qt.Key.Key_D)
    vp = page.view.graphics.viewport()
    t = np.linspace(0, 2 * np.pi, 60)
    pts = [_widget_pos(page, 80 + 30 * np.cos(a), 60 + 30 * np.sin(a)) for a in t]
    qtbot.mousePress(vp, _L, _NO, pts[0])
    for p in pts[1:]:
        qtbot.mouseMove(vp, p)
    qtbot.mouseRelease(vp, _L, _NO, pts[-1])
    [polygon] = _stored(window)
    assert 3 <= len(polygon.vertices) < 60
    assert geometry.area(polygon.vertices) == pytest.approx(np.pi * 30 ** 2, rel=0.1)


def test_edit_insert_delete_vertex_move_and_delete_polygon(window, qtbot) -> None:
    page = _page(window)
    corners = [_click(qtbot, page, x, y) for x, y in [(20, 20), (80, 20), (80, 80), (20, 80)]]
    _key(qtbot, window, Qt.Key.Key_Return)
    _key(qtbot, window, Qt.Key.Key_E)
    mid = ((corners[0][0] + corners[1][0]) / 2, corners[0][1])
    _click(qtbot, page, *mid, Qt.KeyboardModifier.ControlModifier)
    assert len(_stored(window)[0].vertices) == 5
    _click(qtbot, page, *corners[2], Qt.KeyboardModifier.ShiftModifier)
    v = _stored(window)[0].vertices
    assert len(v) == 4 and not any(np.allclose(p, corners[2]) for p in v)
    before = _stored(window)[0].vertices
    _drag(qtbot, page, (40, 50), (60, 60))
    shifted = _stored(window)[0].vertices
    d = shifted - before
    assert np.allclose(d, d[0]) and np.hypot(*d[0]) > 15  # moved as a whole
    [polygon] = _stored(window)
    _key(qtbot, window, Qt.Key.Key_Delete)
    assert _stored(window) == []
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _stored(window) == [polygon] and _stored(window)[0].id == polygon.id


def test_viewer_controls_still_work_while_drawing(window, qtbot) -> None:
    page = _page(window)
    vb = page.view.viewbox
    before_range = vb.viewRect()
    before_window = page.view.current_window
    _drag(qtbot, page, (80, 60), (110, 80), button=Qt.MouseButton.RightButton)
    assert page.view.current_window != before_window  # right-drag: window/level
    _drag(qtbot, page, (80, 60), (40, 40), button=Qt.MouseButton.MiddleButton)
    assert vb.viewRect().center() != before_range.center()  # middle-drag: pan
    panned = vb.viewRect().center()
    page.view.graphics.setFocus()
    qtbot.keyPress(page.view.graphics, Qt.Key.Key_Space)
    _drag(qtbot, page, (80, 60), (60, 40))
    qtbot.keyRelease(page.view.graphics, Qt.Key.Key_Space)
    assert vb.viewRect().center() != panned  # space + left-drag: pan
    assert len(page.tool.unfinished) == 0 and page.annotation is None  # nothing drawn


def test_nothing_to_annotate_and_submit(window, qtbot) -> None:
    page = _page(window)
    ids = window.browser.image_ids()
    assert page.image_id == ids[0]
    assert not page.submit()  # nothing drawn yet: refused, said why
    assert "Nothing to annotate" in page.panel.message_label.text()
    qtbot.mouseClick(page.panel.nothing_button, _L)
    assert window.browser.current_id() == ids[1] and page.image_id == ids[1]
    project = window.gateway.project
    ann0 = project.annotations.for_image(project.raters.by_name("alice").id, ids[0], create=False)
    assert ann0.status is AnnotationStatus.NOTHING_TO_ANNOTATE
    for x, y in [(10, 10), (60, 10), (60, 60)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    assert not page.mark_nothing_to_annotate()  # has polygons: refused
    qtbot.mouseClick(page.panel.submit_button, _L)
    ann1 = project.annotations.for_image(ann0.rater_id, ids[1], create=False)
    assert ann1.status is AnnotationStatus.SUBMITTED
    assert page.image_id == ids[2]
    # an edit after submitting reopens the annotation
    window.browser.select(ids[1])
    page.tool.select(page.tool.polygons[0].id)
    _key(qtbot, window, Qt.Key.Key_U)
    assert project.annotations.get(ann1.id).status is AnnotationStatus.IN_PROGRESS
    assert "in progress" in page.panel.status_label.text()


def test_classifications_are_stored(window, qtbot) -> None:
    page = _page(window)
    form = page.panel.image_form
    group = form._widgets["density"]
    on_text = QPoint(8, 8)  # a stretched radio button/check box only reacts on its text
    qtbot.mouseClick(group.button(2), _L, _NO, on_text)
    qtbot.mouseClick(form._widgets["findings"][1], _L, _NO, on_text)
    qtbot.keyClicks(form._widgets["note"], "dense left")
    form.flush()
    dropdown = form._widgets["where"]
    dropdown.combos[0].setCurrentIndex(1)  # left
    dropdown.combos[1].setCurrentIndex(2)  # lower
    stored = window.gateway.project.annotations.get(page.annotation.id).classifications
    assert stored == {"density": "C", "findings": ["mass"], "note": "dense left",
                      "where": ["left", "lower"]}
    # per-polygon question: undoable like any edit
    for x, y in [(10, 10), (60, 10), (60, 60)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    poly_form = page.panel.polygon_form
    assert poly_form.isEnabled()
    qtbot.mouseClick(poly_form._widgets["kind"].button(0), _L, _NO, on_text)
    assert _stored(window)[0].classifications == {"kind": "vessel"}
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _stored(window)[0].classifications == {}
    # answers come back when the image is shown again
    ids = window.browser.image_ids()
    window.browser.select(ids[1])
    assert form.answers() == {"findings": []}
    window.browser.select(ids[0])
    assert form.answers()["where"] == ["left", "lower"]


def test_guidelines_dialog_shows_newest_text(window, qtbot) -> None:
    page = _page(window)
    qtbot.mouseClick(page.panel.guidelines_button, _L)
    dialog = page.status.guidelines_dialog
    assert dialog is not None and dialog.isVisible()
    assert "calcification" in dialog.browser.toPlainText()
    assert "version 1" in dialog.windowTitle()
    dialog.close()


def test_new_annotator_and_display_keys(window, qtbot) -> None:
    page = _page(window)
    rid = page.create_annotator("bob")
    assert page.rater_id == rid and page.annotation is None
    _key(qtbot, window, Qt.Key.Key_BracketRight)
    assert page.tool.fill_alpha == pytest.approx(0.35)
    _key(qtbot, window, Qt.Key.Key_BracketLeft)
    _key(qtbot, window, Qt.Key.Key_BracketLeft)
    assert page.tool.fill_alpha == pytest.approx(0.15)
    for x, y in [(10, 10), (60, 10), (60, 60)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    item = next(iter(page.tool.items.values()))
    _key(qtbot, window, Qt.Key.Key_O)
    assert not item.isVisible()
    _key(qtbot, window, Qt.Key.Key_O)
    _key(qtbot, window, Qt.Key.Key_O, Qt.KeyboardModifier.ShiftModifier)
    assert item.isVisible() and item.brush().style() == Qt.BrushStyle.NoBrush
    assert window.gateway.project.raters.get(page.annotation.rater_id).name == "bob"


def test_active_time_is_committed_on_image_change(window, qtbot, monkeypatch) -> None:
    page = _page(window)
    for x, y in [(10, 10), (60, 10), (60, 60)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    ann_id = page.annotation.id
    before = window.gateway.project.annotations.get(ann_id).active_ms
    monkeypatch.setattr(page.clock, "take", lambda: 4321)
    _key(qtbot, window, Qt.Key.Key_PageDown)
    assert window.gateway.project.annotations.get(ann_id).active_ms == before + 4321


def test_idle_clock_pauses_when_idle_or_not_running(qtbot) -> None:
    now = [0]
    clock = IdleClock(idle_ms=60_000, now=lambda: now[0])
    clock.stop()
    clock.set_running(True)
    clock.touch()
    now[0] = 10_000
    assert clock.peek() == 10_000
    now[0] = 200_000  # no input for 190 s: only the first 60 s after the input count
    assert clock.take() == 60_000
    clock.touch()
    clock.set_running(False)  # window inactive
    now[0] = 230_000
    assert clock.take() == 0
    clock.set_running(True)
    now[0] = 231_000
    assert clock.take() == 1_000


def test_render_annotate_tab_on_the_demo(qtbot, open_window, demo_project, tmp_path) -> None:
    from skimage import io

    w = open_window(demo_project, (1400, 900))
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.view.display is not None)
    careful = next(r for r in w.gateway.annotate.annotators() if "careful" in r.name)
    page.select_annotator(careful.id)
    assert page.tool.polygons and page.annotation.status is AnnotationStatus.SUBMITTED
    assert page.panel.image_form.answers()["density"]
    out = tmp_path / "annotate.png"
    assert w.grab().save(str(out))
    shot = io.imread(out)[..., :3].astype(int)
    red = (shot[..., 0] > 200) & (shot[..., 1] < 90) & (shot[..., 2] < 90)
    assert red.sum() > 50  # certain outlines are drawn in red


def test_a_failed_write_never_enters_the_undo_stack(window, qtbot, monkeypatch) -> None:
    """A simulated disk error inside the push: the command is dropped, the user is told, and
    the next Ctrl+Z does not revert a change that was never made (it used to raise)."""
    import sqlite3

    page = _page(window)
    for x, y in [(10, 10), (40, 10), (40, 40)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    [first] = _stored(window)
    stack = page.history
    assert stack is not None and len(stack) == 1
    project = window.gateway.project

    def disk_error(*_a, **_k):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(project.polygons, "add", disk_error)
    for x, y in [(60, 60), (90, 60), (90, 90)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    assert len(stack) == 1  # the failed add is not on the stack
    assert "not saved" in page.panel.message_label.text()
    assert "disk I/O error" in page.panel.message_label.text()
    assert _stored(window) == [first]
    assert [p.id for p in page.tool.polygons] == [first.id]  # the screen matches the file
    monkeypatch.undo()
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # no AssertionError
    assert _stored(window) == []
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # nothing left
    _key(qtbot, window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert _stored(window) == [first]


def test_submit_and_status_changes_are_undoable(window, qtbot) -> None:
    page = _page(window)
    for x, y in [(10, 10), (40, 10), (40, 40)]:
        _click(qtbot, page, x, y)
    _key(qtbot, window, Qt.Key.Key_Return)
    ann_id = page.annotation.id
    image_id = page.image_id
    assert page.submit()
    project = window.gateway.project
    assert project.annotations.get(ann_id).status is AnnotationStatus.SUBMITTED
    qtbot.waitUntil(lambda: page.image_id != image_id)  # Submit went on to the next image
    window.browser.step(-1)
    qtbot.waitUntil(lambda: page.annotation is not None and page.annotation.id == ann_id)
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert project.annotations.get(ann_id).status is AnnotationStatus.IN_PROGRESS
