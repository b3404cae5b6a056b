"""The assisted tools on the Annotate page, driven with real mouse and key events on a real
project whose image holds objects with known masks: each tool's preview, Enter storing it as
one undo step with its provenance (read back from the project file), Esc, negative prompts,
the background runs and the busy cue, refine of a stored polygon, and the brush and eraser on
an accepted outline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from slicereview.engines.masks import rasterize
from slicereview.gui.annotate.assist_runner import BUSY_MS, image_for_engine
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import Certainty, Polygon, Tool
from slicereview.store import Project
from tests.gui.annotate.assist_fixture import (
    AXIS,
    DISC,
    FLAT,
    SHAPE,
    SQUARE,
    TUBE,
    click,
    dice,
    drag,
    image,
    make_assist_project,
    settled,
)

_NO = Qt.KeyboardModifier.NoModifier
_SHIFT = Qt.KeyboardModifier.ShiftModifier
_CTRL = Qt.KeyboardModifier.ControlModifier
_R = Qt.MouseButton.RightButton
#: The tools' keys (shortcuts.ANNOTATE_ACTIONS).
KEYS = {"points": (Qt.Key.Key_K, _NO), "scribble": (Qt.Key.Key_S, _NO),
        "box": (Qt.Key.Key_R, _NO), "trace": (Qt.Key.Key_T, _NO),
        "wand": (Qt.Key.Key_W, _NO), "refine": (Qt.Key.Key_R, _SHIFT)}


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_assist_project(tmp_path)


@pytest.fixture
def window(qtbot, open_window, project_file: Path) -> MainWindow:
    w = open_window(project_file, (1280, 800))
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    return w


def _choose(qtbot, w: MainWindow, tool: str) -> None:
    qtbot.keyClick(w, *KEYS[tool])
    page = w.annotate_page
    assert page.tool.mode.value == tool and page.actions_[tool].isChecked()


def _stored(w: MainWindow) -> list[Polygon]:
    page = w.annotate_page
    if page.annotation is None:
        return []
    return w.gateway.project.polygons.of(page.annotation.id)


def _mask(polygons: list[Polygon]) -> np.ndarray:
    return rasterize(polygons, SHAPE)


def _accept(qtbot, w: MainWindow) -> list[Polygon]:
    page = w.annotate_page
    qtbot.waitUntil(lambda: settled(page))
    before = len(_stored(w))
    undo_steps = len(page.history.done) if page.history is not None else 0
    qtbot.keyClick(w, Qt.Key.Key_Return)
    stored = _stored(w)
    assert len(stored) > before
    assert page.history is not None and len(page.history.done) == undo_steps + 1
    assert page.tool.assist.prompts == [] and page.assisted.items == []
    return stored


def _undo(qtbot, w) -> None:
    qtbot.keyClick(w, Qt.Key.Key_Z, _CTRL)


def test_points_previews_each_click_and_enter_stores_one_step(window, qtbot,
                                                              project_file) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    np.testing.assert_allclose(page.tool.assist.prompts[0].points, [[70.5, 80.5]],
                               atol=0.5)  # (row, col), within a screen pixel
    qtbot.waitUntil(lambda: settled(page))
    preview = page.assisted.preview_polygons()
    assert _stored(window) == []  # a preview only: nothing written yet
    assert {p.certainty for p in preview} == {Certainty.CERTAIN, Certainty.UNCERTAIN}
    assert len(page.assisted.items) == len(preview)  # drawn, in the certain/uncertain styles
    assert {i.certainty for i in page.assisted.items} == {p.certainty for p in preview}
    assert dice(_mask(preview) > 0, DISC) > 0.9

    stored = _accept(qtbot, window)
    assert {(p.tool, p.edited) for p in stored} == {(Tool.POINTS, False)}
    assert dice(_mask(stored) > 0, DISC) > 0.9
    assert page.history is not None and page.history.undo_text == "Points"
    assert page.tool.polygon(page.tool.selected_id).certainty is Certainty.CERTAIN
    _undo(qtbot, window)  # one step takes the whole outline back
    assert _stored(window) == []
    qtbot.keyClick(window, Qt.Key.Key_Z, _CTRL | _SHIFT)
    assert [p.id for p in _stored(window)] == [p.id for p in stored]

    window.gateway.close()  # written through: the file has it
    with Project.open(project_file, read_only=True) as project:
        [annotation] = project.annotations.all()
        again = project.polygons.of(annotation.id)
    assert [(p.tool, p.edited, p.certainty) for p in again] == \
        [(p.tool, p.edited, p.certainty) for p in stored]
    assert window.open_project(project_file)  # reopened, the tab shows them
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: len(page.tool.polygons) == len(stored))


def test_negative_prompts_by_shift_and_right_click_and_a_right_drag_stays_window(
        window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    click(qtbot, page, 80.5, 95.5, modifier=_SHIFT)
    click(qtbot, page, 62.5, 70.5, button=_R)
    assert [p.positive for p in page.tool.assist.prompts] == [True, False, False]
    qtbot.waitUntil(lambda: settled(page))
    relaxed = _mask(page.assisted.preview_polygons()) > 0
    assert not relaxed[95, 80] and not relaxed[70, 62]  # the negative clicks are outside
    assert relaxed[70, 80]
    window_before = page.view.current_window
    drag(qtbot, page, [(150, 100), (170, 110), (190, 120)], button=_R)
    assert len(page.tool.assist.prompts) == 3  # no prompt from a right drag...
    assert page.view.current_window != window_before  # ...which sets window/level
    qtbot.keyClick(window, Qt.Key.Key_Backspace)  # the last prompt goes
    assert [p.positive for p in page.tool.assist.prompts] == [True, False]


def test_esc_discards_and_switching_tools_too(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    qtbot.waitUntil(lambda: settled(page))
    assert page.assisted.items
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert page.tool.assist.prompts == [] and page.assisted.items == []
    qtbot.keyClick(window, Qt.Key.Key_Return)  # nothing left to accept
    assert _stored(window) == [] and page.annotation is None  # nothing created either
    click(qtbot, page, 80.5, 70.5)
    _choose(qtbot, window, "wand")  # another tool drops the prompts of this one
    assert page.tool.assist.prompts == [] and page.assisted.items == []
    assert page.annotation is None


def test_scribble_drag_and_background_stroke(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "scribble")
    drag(qtbot, page, [(72, 64), (80, 70), (88, 76)])
    drag(qtbot, page, [(50, 40), (110, 40), (112, 100)], modifier=_SHIFT)
    kinds = [(p.kind, p.positive, len(p.points) > 2) for p in page.tool.assist.prompts]
    assert kinds == [("scribble", True, True), ("scribble", False, True)]
    stored = _accept(qtbot, window)
    assert {p.tool for p in stored} == {Tool.SCRIBBLE}
    assert dice(_mask(stored) > 0, DISC) > 0.85


def test_box_drag_round_the_square(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "box")
    click(qtbot, page, 70, 170)  # a click before any box: said, no prompt
    assert page.tool.assist.prompts == [] and "box" in page.panel.message_label.text()
    drag(qtbot, page, [(42, 142), (70, 170), (103, 198)])
    [box] = page.tool.assist.prompts
    assert box.kind == "box"
    stored = _accept(qtbot, window)
    assert {p.tool for p in stored} == {Tool.BOX}
    assert dice(_mask(stored) > 0, SQUARE) > 0.85


def test_trace_clicks_along_the_tube(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "trace")
    row, col = AXIS[2]
    click(qtbot, page, col, row)  # one click: no run yet, the panel asks for the next
    assert not page.assisted.running and "next point" in page.panel.message_label.text()
    for t in (200, 397):
        row, col = AXIS[t]
        click(qtbot, page, col, row)
    assert len(page.tool.assist.prompts) == 3
    stored = _accept(qtbot, window)
    assert {p.tool for p in stored} == {Tool.TRACE}
    assert dice(_mask(stored) > 0, TUBE) > 0.7


def test_wand_click_on_the_plateau(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "wand")
    click(qtbot, page, 230.5, 70.5)
    click(qtbot, page, 230.5, 80.5, modifier=_SHIFT)  # the wand takes positive clicks only
    assert len(page.tool.assist.prompts) == 1 and "positive" in \
        page.panel.message_label.text()
    stored = _accept(qtbot, window)
    assert {p.tool for p in stored} == {Tool.WAND}
    assert dice(_mask(stored) > 0, FLAT) > 0.9


def test_refine_snaps_a_rough_polygon_and_keeps_its_id(window, qtbot) -> None:
    page = window.annotate_page
    qtbot.keyClick(window, Qt.Key.Key_P)  # a rough octagon round the disc, by hand
    angles = np.linspace(0, 2 * np.pi, 9)[:-1]
    for a in angles:
        click(qtbot, page, 80 + 24 * np.cos(a), 70 + 17 * np.sin(a))
    qtbot.keyClick(window, Qt.Key.Key_Return)
    [rough] = _stored(window)
    assert rough.tool is Tool.MANUAL and page.tool.selected_id == rough.id
    _choose(qtbot, window, "refine")  # with the polygon selected: it starts at once
    [prompt] = page.tool.assist.prompts
    assert prompt.kind == "polygon" and page.tool.assist.target_id == rough.id
    stored = _accept(qtbot, window)
    refined = next(p for p in stored if p.id == rough.id)
    assert (refined.tool, refined.edited) == (Tool.REFINE, False)
    assert {p.tool for p in stored} == {Tool.REFINE}
    assert dice(_mask(stored) > 0, DISC) > dice(_mask([rough]) > 0, DISC)
    _undo(qtbot, window)
    assert _stored(window) == [rough]

    qtbot.keyClick(window, Qt.Key.Key_Escape)  # deselect, then click the polygon instead
    assert page.tool.selected_id is None
    click(qtbot, page, 80, 70)
    assert page.tool.selected_id == rough.id and page.tool.assist.target_id == rough.id


def test_brush_and_eraser_correct_an_accepted_outline(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "wand")
    click(qtbot, page, 230.5, 70.5)
    stored = _accept(qtbot, window)
    core = page.tool.polygon(page.tool.selected_id)
    assert core is not None and core.certainty is Certainty.CERTAIN
    steps = len(page.history.done)
    qtbot.keyClick(window, Qt.Key.Key_D, _SHIFT)  # the brush adds to the selected core
    drag(qtbot, page, [(250, 70), (262, 70), (270, 70)])
    painted = page.tool.polygon(core.id)
    assert painted is not None and (painted.tool, painted.edited) == (Tool.WAND, True)
    assert (_mask([painted]) > 0).sum() > (_mask([core]) > 0).sum()
    qtbot.keyClick(window, Qt.Key.Key_E, _SHIFT)  # the eraser takes from it
    drag(qtbot, page, [(230, 55), (230, 70), (230, 85)])
    erased = [p for p in _stored(window) if p.certainty is Certainty.CERTAIN]
    assert (_mask(erased) > 0)[70, 230] == 0
    assert len(page.history.done) == steps + 2  # one step per stroke
    _undo(qtbot, window)
    _undo(qtbot, window)
    assert _stored(window) == stored


def test_a_new_prompt_drops_the_running_one_and_the_busy_cue_waits(window, qtbot) -> None:
    page = window.annotate_page
    runner = page.assisted
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    # The run is in its thread and its end cannot be delivered before events are processed:
    # the GUI did not wait for it, and no cue shows before BUSY_MS.
    assert runner.running and not runner.busy
    assert runner._busy_timer.isActive() and runner._busy_timer.interval() == BUSY_MS == 150
    first = runner.worker
    click(qtbot, page, 80.5, 60.5)  # a new prompt while it runs
    assert runner.worker is first and first in runner._dropped
    assert runner._pending == runner.job()  # only the newest prompts run next
    runner._busy_timer.timeout.emit()  # BUSY_MS passed with the run still going
    assert runner.busy
    assert page.view.graphics.viewport().cursor().shape() == Qt.CursorShape.BusyCursor
    assert page.panel.message_label.text().startswith("Working")
    qtbot.waitUntil(lambda: settled(page))
    assert runner.result is not None and len(runner._result_job[1]) == 2  # the newest
    assert not runner.busy and not runner._busy_timer.isActive()
    assert page.view.graphics.viewport().cursor().shape() == Qt.CursorShape.CrossCursor
    qtbot.keyClick(window, Qt.Key.Key_P)  # the polygon tool: the view's own cursor again
    assert page.view.graphics.viewport().cursor().shape() == Qt.CursorShape.ArrowCursor


def test_enter_during_a_run_accepts_its_result(window, qtbot) -> None:
    page = window.annotate_page
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    assert page.assisted.running
    qtbot.keyClick(window, Qt.Key.Key_Return)  # before the result arrived
    qtbot.waitUntil(lambda: len(_stored(window)) > 0)
    assert {p.tool for p in _stored(window)} == {Tool.POINTS}
    assert page.history is not None and len(page.history.done) == 1


def test_the_engine_sees_the_raw_full_image_as_displayed(window, qtbot) -> None:
    page = window.annotate_page
    pixels = image_for_engine(page.view)
    assert pixels is not None and pixels.shape == SHAPE and pixels.dtype == np.uint16
    np.testing.assert_array_equal(pixels, image())  # raw values, not the display copy
    wand = page.assisted.settings_for("wand")
    assert wand["invert"] is False and "window" not in wand  # (not the viewer's window)
    page.view.set_inverted(True)  # as MONOCHROME1 is shown: inverted after windowing
    assert page.assisted.settings_for("wand")["invert"] is True


def test_another_annotators_work_takes_no_assisted_tool(window, qtbot) -> None:
    page = window.annotate_page
    bob = page.create_annotator("bob")
    page.select_you(bob)
    page.select_annotator(page.people.seen[0][0])  # alice's annotation: read-only
    assert not page.own and not page.actions_["points"].isEnabled()
    page.set_mode("points")
    click(qtbot, page, 80.5, 70.5)
    assert page.tool.assist.prompts == []


def test_f1_and_the_tooltips_name_every_assisted_tool_and_its_key(window) -> None:
    from slicereview.gui.common.shortcuts import shortcut_rows

    page = window.annotate_page
    rows = {(keys, what.split(":")[0]) for section, keys, what in shortcut_rows()
            if section == "Annotate"}
    for tool, (key, modifier) in KEYS.items():
        text = page.actions_[tool].shortcut().toString()
        assert text == ("Shift+" if modifier == _SHIFT else "") + \
            Qt.Key(key).name.removeprefix("Key_")
        assert (text, f"{tool.capitalize()} (assisted)") in rows
        assert page.actions_[tool].toolTip().endswith(f"({text})")
    assert any("negative prompt" in what for _s, _k, what in shortcut_rows())


def test_an_eraser_stroke_away_from_the_selected_core_erases_what_it_is_over(window,
                                                                             qtbot) -> None:
    """Found in the Xvfb walk: after Enter the wand's core is selected, and an eraser stroke
    over another polygon did nothing ("Nothing to erase here")."""
    page = window.annotate_page
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    disc = _accept(qtbot, window)
    _choose(qtbot, window, "wand")
    click(qtbot, page, 230.5, 70.5)
    _accept(qtbot, window)
    wand_core = page.tool.selected_id
    assert page.tool.polygon(wand_core).tool is Tool.WAND
    qtbot.keyClick(window, Qt.Key.Key_E, _SHIFT)
    drag(qtbot, page, [(55, 70), (80, 70), (105, 70)])  # across the disc, not the wand's
    after = {p.id: p for p in _stored(window)}
    assert not (_mask([p for p in after.values() if p.tool is Tool.POINTS]) > 0)[70, 80]
    assert all(after[p.id].edited for p in disc if p.id in after)
    assert not page.tool.polygon(wand_core).edited  # the selected one untouched


def test_the_assist_menu_sets_the_margin_and_the_wand_tolerance(window, qtbot) -> None:
    page = window.annotate_page
    menu = page.assist_settings
    assert page.bars.actions.widgetForAction(
        next(a for a in page.bars.actions.actions()
             if page.bars.actions.widgetForAction(a) is menu.button)) is menu.button
    _choose(qtbot, window, "points")
    click(qtbot, page, 80.5, 70.5)
    qtbot.waitUntil(lambda: settled(page))
    assert {p.certainty for p in page.assisted.preview_polygons()} == \
        {Certainty.CERTAIN, Certainty.UNCERTAIN}
    menu.margin.trigger()  # off: the prompts shown run again, all certain
    assert not menu.margin.isChecked()
    qtbot.waitUntil(lambda: settled(page))
    assert {p.certainty for p in page.assisted.preview_polygons()} == {Certainty.CERTAIN}
    stored = _accept(qtbot, window)
    assert {p.certainty for p in stored} == {Certainty.CERTAIN}
    menu.tolerance.setValue(30)
    assert page.assisted.settings_for("wand")["tolerance"] == 0.3
    again = type(menu)(page.assisted)  # remembered in the user settings
    assert not again.margin.isChecked() and again.tolerance.value() == 30
    menu.margin.trigger()
    menu.tolerance.setValue(10)


def test_a_display_pyramid_gives_the_engine_its_finest_level_memory_mapped(qtbot,
                                                                          tmp_path) -> None:
    """A large image is shown from a pyramid (its screen-sized level in memory): the tools
    read the full-resolution level from its file, only their crop of it."""
    from slicereview.engines.imaging.display import DisplayImage
    from slicereview.engines.imaging.pyramid import build
    from slicereview.gui.common.image_view import ImageView

    full = (np.arange(3000 * 2000, dtype=np.uint32) % 65521).astype(np.uint16)
    full = full.reshape(3000, 2000)
    pyramid = build(DisplayImage(full), tmp_path, "big", side=512)
    view = ImageView()
    qtbot.addWidget(view)
    view.set_image(pyramid)
    assert view.display.data.shape != full.shape  # (the view holds a coarse level)
    pixels = image_for_engine(view)
    assert isinstance(pixels, np.memmap) and pixels.shape == full.shape
    np.testing.assert_array_equal(pixels[1234:1240, 567:570], full[1234:1240, 567:570])
