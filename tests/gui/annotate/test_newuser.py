"""What a new user hit in the Annotate tab: looking at someone's masks must not change their
record; looking at an image must not create an empty annotation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from slicereview.gui.window.main_window import MainWindow
from slicereview.model import Polygon
from slicereview.store import Project
from tests.gui.annotate.test_annotate import _click, _key, _page, make_annotate_project

SQUARE = np.array([[20.0, 20.0], [80.0, 20.0], [80.0, 70.0], [20.0, 70.0]])


@pytest.fixture
def shared_file(tmp_path: Path) -> Path:
    """The annotate test project, with bob's submitted annotation on the first image."""
    path = make_annotate_project(tmp_path)
    with Project.open(path) as project:
        bob = project.raters.add("bob")
        first = project.images.all()[0].id
        ann = project.annotations.for_image(bob, first)
        project.polygons.add(ann.id, Polygon(SQUARE))
        project.annotations.add_active_time(ann.id, 90_000)
        project.annotations.set_status(ann.id, "submitted")
    return path


def _open(qtbot, path: Path) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1300, 850)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(path)
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    return w


def test_showing_another_annotators_work_is_read_only(qtbot, shared_file: Path, screenshots,
                                                      skip_ahead) -> None:
    w = _open(qtbot, shared_file)
    page = _page(w)
    project = w.gateway.project
    alice = project.raters.by_name("alice").id
    bob = project.raters.by_name("bob").id
    page.select_you(alice)
    before = project.annotations.all(rater_id=bob)
    page.select_annotator(bob)  # look at bob's masks
    assert page.annotation is not None and page.annotation.rater_id == bob
    assert len(page.tool.polygons) == 1 and not page.own
    assert not page.tool.enabled and not page.panel.submit_button.isEnabled()
    page.tool.select(page.tool.polygons[0].id)
    assert not page.panel.polygon_form.isEnabled()
    assert "read-only" in page.panel.message_label.text()
    page.tick()
    skip_ahead(page.clock, 1600)  # time passes (the clock would count it on an own annotation)
    page.tick()
    for x, y in [(100, 90), (140, 90), (140, 110)]:  # try to draw
        _click(qtbot, page, x, y)
    _key(qtbot, w, Qt.Key.Key_Return)
    page.tool.select(page.tool.polygons[0].id)
    _key(qtbot, w, Qt.Key.Key_U)
    _key(qtbot, w, Qt.Key.Key_Delete)
    _key(qtbot, w, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    w.grab().save(str(screenshots / "annotate_read_only.png"))
    _key(qtbot, w, Qt.Key.Key_PageDown)  # leaving commits pending time: none for bob
    after = project.annotations.all(rater_id=bob)
    assert [(a.id, a.status, a.active_ms, a.updated_at) for a in after] == \
        [(a.id, a.status, a.active_ms, a.updated_at) for a in before]
    assert len(project.polygons.of(after[0].id)) == 1
    assert project.annotations.all(rater_id=alice) == []


def test_you_are_is_remembered(qtbot, shared_file: Path) -> None:
    w = _open(qtbot, shared_file)
    page = _page(w)
    bob = w.gateway.project.raters.by_name("bob").id
    page.select_you(bob)
    assert page.rater_id == bob and page.own  # choosing who you are shows your own work
    w.close()
    w2 = _open(qtbot, shared_file)
    assert _page(w2).acting_id == bob


def test_looking_creates_no_annotation_the_first_edit_keeps_the_time(qtbot, shared_file,
                                                                     skip_ahead) -> None:
    w = _open(qtbot, shared_file)
    page = _page(w)
    project = w.gateway.project
    alice = project.raters.by_name("alice").id
    page.select_you(alice)
    page.tick()  # the clock starts on the page's first tick
    skip_ahead(page.clock, 2600)  # looked for more than two seconds
    page.tick()
    _key(qtbot, w, Qt.Key.Key_PageDown)
    _key(qtbot, w, Qt.Key.Key_PageUp)
    assert project.annotations.all(rater_id=alice) == []  # looking wrote nothing
    looked = page.state.unsaved_ms[page.state.key]
    assert looked >= 1000  # (the clock starts on the page's first tick)
    for x, y in [(20, 20), (90, 25), (85, 80)]:
        _click(qtbot, page, x, y)
    _key(qtbot, w, Qt.Key.Key_Return)
    [ann] = project.annotations.all(rater_id=alice)
    assert ann.active_ms >= looked and len(project.polygons.of(ann.id)) == 1


def test_image_list_shows_and_filters_by_status_and_done_counts_the_batch(qtbot, tmp_path,
                                                                          screenshots) -> None:
    """Three annotation images in alice's batch plus a rating set of two: N is three; the list
    shows each image's status for the annotator shown and filters by it."""
    from skimage import io

    from slicereview.app.images.importing import import_paths
    from slicereview.app.qa.workflow import define_batch
    from slicereview.app.rating.sessions import create_session

    path = make_annotate_project(tmp_path)
    extra = tmp_path / "rating"
    extra.mkdir()
    for k in range(2):
        io.imsave(extra / f"r{k}.png", np.full((40, 40), 100 * (k + 1), np.uint16),
                  check_contrast=False)
    with Project.open(path) as project:
        import_paths(project, sorted(extra.glob("*.png")))
        ids = [im.id for im in project.images.all()]
        set_id = project.image_sets.create("motion", ids[3:])
        create_session(project, "sort", project.raters.ensure("rita", "annotator"), set_id, "s")
        define_batch(project, "formal", "formal", ids[:3],
                     raters=[project.raters.by_name("alice").id])
    w = _open(qtbot, path)
    page, browser = _page(w), w.browser
    project = w.gateway.project
    page.select_you(project.raters.by_name("alice").id)
    assert browser.status_box.isVisible()
    assert {browser.status_of(i) for i in ids[:3]} == {"not started"}
    assert browser.status_of(ids[3]) == ""  # a rating image is not in alice's batch
    assert page.panel.progress_label.text() == "Done: 0 of 3 images"
    for x, y in [(20, 20), (90, 25), (85, 80)]:
        _click(qtbot, page, x, y)
    _key(qtbot, w, Qt.Key.Key_Return)
    assert browser.status_of(ids[0]) == "in progress"
    _key(qtbot, w, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # submit: next image
    assert browser.status_of(ids[0]) == "submitted"
    assert page.panel.progress_label.text() == "Done: 1 of 3 images"
    assert "✓ submitted" in browser.row_text(ids[0])
    browser.status_box.setCurrentIndex(browser.status_box.findData("not started"))
    assert browser.image_ids() == ids[1:3]
    w.grab().save(str(screenshots / "annotate_statuses.png"))
    browser.status_box.setCurrentIndex(browser.status_box.findData("submitted"))
    assert browser.image_ids() == ids[:1]
    w.tabs.setCurrentWidget(w.viewer)  # other tabs: no statuses, no status filter
    assert not browser.status_box.isVisible() and len(browser.image_ids()) == 5


def test_colour_blind_scheme_from_the_view_menu_is_remembered_and_dashes_stay(
        qtbot, shared_file: Path, screenshots) -> None:
    from slicereview.model import Certainty

    w = _open(qtbot, shared_file)
    page = _page(w)
    page.select_you(w.gateway.project.raters.by_name("alice").id)
    for x, y in [(20, 20), (90, 25), (85, 80)]:
        _click(qtbot, page, x, y)
    _key(qtbot, w, Qt.Key.Key_Return)
    _key(qtbot, w, Qt.Key.Key_U)  # uncertain
    [item] = page.tool.items.values()
    assert item.certainty is Certainty.UNCERTAIN
    assert item.pen().style() == Qt.PenStyle.DashLine  # not colour alone
    assert item.pen().color().name() == "#28e646"  # green
    w.colour_blind_action.trigger()
    assert item.pen().color().name() == "#56b4e9"  # Okabe–Ito sky blue
    assert item.pen().style() == Qt.PenStyle.DashLine
    assert "#56b4e9" in page.panel.status_label.text()
    w.grab().save(str(screenshots / "annotate_colour_blind.png"))
    w.close()
    w2 = _open(qtbot, shared_file)
    assert w2.colour_blind_action.isChecked()
    page2 = _page(w2)
    page2.select_annotator(w2.gateway.project.raters.by_name("bob").id)
    [bob_item] = page2.tool.items.values()
    assert bob_item.pen().style() == Qt.PenStyle.SolidLine
    assert bob_item.pen().color().name() == "#e69f00"  # Okabe–Ito orange: certain
    w2.colour_blind_action.trigger()  # back to standard for the other tests of this process


def test_a_returned_annotation_shows_comments_and_pins_and_revise_starts_the_next_round(
        qtbot, shared_file: Path, screenshots) -> None:
    from slicereview.app.review.decisions import decide, pin
    from slicereview.model import Role

    with Project.open(shared_file) as project:
        bob = project.raters.by_name("bob").id
        rev = project.raters.ensure("rhea", Role.REVIEWER)
        [ann] = project.annotations.all(rater_id=bob)
        decide(project, rev, ann.id, "reject", ["too large"], "Follow the edge closely.")
        pin(project, rev, ann.image_id, box=(20, 20, 70, 80), text="this edge",
            annotation_id=ann.id)
        pin(project, rev, ann.image_id, point=(120, 90), text="missed spot",
            annotation_id=ann.id)
        pin(project, rev, ann.image_id, point=(5, 5), text="for reviewers only")  # not shown
    w = _open(qtbot, shared_file)
    page, browser = _page(w), w.browser
    page.select_you(bob)
    assert browser.status_of(ann.image_id) == "returned"
    assert "↩ returned" in browser.row_text(ann.image_id)
    box = page.returned
    assert box.isVisible()
    assert "returned" in page.panel.status_label.text()
    assert "too large" in box.reason.text() and "Follow the edge closely." in box.reason.text()
    assert [box.pins.item(i).text() for i in range(box.pins.count())] == [
        "1. box rows 20–70, cols 20–80: this edge", "2. point x 120, y 90: missed spot"]
    pins = page.status.pin_items
    assert len(pins) == 4 and all(i.scene() is not None for i in pins)
    w.grab().save(str(screenshots / "annotate_returned.png"))
    qtbot.mouseClick(box.revise_button, Qt.MouseButton.LeftButton)
    project = w.gateway.project
    assert page.state.round == 2 and page.annotation.round == 2
    assert len(project.polygons.of(page.annotation.id)) == 1  # a copy of the polygons
    assert page.tool.enabled and not box.isVisible() and page.status.pin_items == []
    assert project.annotations.get(ann.id).status.value == "submitted"  # round 1 untouched


def test_another_instances_polygon_appears_but_never_breaks_a_polygon_being_drawn(
        qtbot, shared_file: Path) -> None:
    w = _open(qtbot, shared_file)
    page = _page(w)
    project = w.gateway.project
    alice = project.raters.by_name("alice").id
    page.select_you(alice)
    for x, y in [(20, 20), (90, 25)]:  # drawing, not closed yet
        _click(qtbot, page, x, y)
    image_id = page.image_id
    # The watch's periodic check (each second) sees bob's commit: waited for, not guessed.
    with qtbot.waitSignal(w.gateway.changed_elsewhere, timeout=10_000), \
            Project.open(shared_file) as other:  # bob, on his own machine
        bob = other.raters.by_name("bob").id
        ann = other.annotations.for_image(bob, image_id)
        other.polygons.add(ann.id, Polygon(SQUARE + 30))
    assert len(page.tool.unfinished) == 2  # the unfinished polygon is still there
    _click(qtbot, page, 85, 80)
    _key(qtbot, w, Qt.Key.Key_Return)
    [mine] = project.annotations.all(rater_id=alice)
    assert len(project.polygons.of(mine.id)) == 1
    page.select_annotator(bob)
    assert len(page.tool.polygons) == 2  # bob's two polygons, read here
    with Project.open(shared_file) as other:
        other.polygons.add(ann.id, Polygon(SQUARE + 10))
    qtbot.waitUntil(lambda: len(page.tool.polygons) == 3, timeout=3000)
