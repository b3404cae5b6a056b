"""The Review tab driven with real keys and clicks; results read from the project file."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QInputDialog

from slicereview.gui.review.dialogs import ReasonDialog
from slicereview.gui.review.page import ReviewPage
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project
from tests.gui.review.review_fixture import build_review_project

_NO = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return build_review_project(tmp_path)


def _open(qtbot, path: Path) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1500, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(path)
    w.tabs.setCurrentWidget(w.review_page)
    page = w.review_page
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=20000)
    page.setFocus()
    return w


def _answer_dialog(qtbot, tags: tuple[str, ...] = (), text: str = "") -> None:
    """Fill the next ReasonDialog when it opens (it runs its own event loop)."""
    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ReasonDialog):
            QTimer.singleShot(20, fill)
            return
        for box in dialog.tag_boxes:
            if box.text() in tags:
                box.click()
        dialog.text.setPlainText(text)
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    QTimer.singleShot(20, fill)


def test_review_walk_decide_undo_reopen(qtbot, project_file: Path, monkeypatch) -> None:
    w = _open(qtbot, project_file)
    page: ReviewPage = w.review_page
    assert len(page.state.rows) == 5 and page.state.position == 0
    # the queue is ranked: scores never increase down the list (box-score, most urgent first)
    scores = [r.score for r in page.state.rows]
    assert scores == sorted(scores, reverse=True)
    assert "rank 1" in page.queue_panel.table.item(0, 1).toolTip()

    # reviewer: New… creates one in place and the project remembers it
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Dr Review", True))
    qtbot.mouseClick(page.new_reviewer_button, Qt.MouseButton.LeftButton)
    assert page.reviewer_box.currentText() == "Dr Review"

    first = page.state.rows[0].image_id
    qtbot.keyClick(page, Qt.Key.Key_PageDown, _NO)
    assert page.state.position == 1 and page.state.review.image_id == page.state.rows[1].image_id
    qtbot.keyClick(page, Qt.Key.Key_PageUp, _NO)
    assert page.state.review.image_id == first

    # toggle the first annotator off and on: its outline items hide
    box0 = page.panel.annotators.cellWidget(0, 0)
    box0.click()
    assert all(not item.isVisible() for item in page.overlay._outlines[0])
    assert any(item.isVisible() for item in page.overlay._outlines[1])
    box0.click()
    assert all(item.isVisible() for item in page.overlay._outlines[0])

    # H held hides every overlay
    qtbot.keyPress(page, Qt.Key.Key_H)
    assert not any(i.isVisible() for items in page.overlay._outlines.values() for i in items)
    qtbot.keyRelease(page, Qt.Key.Key_H)
    assert all(i.isVisible() for i in page.overlay._outlines[0])

    # Tab walks the boxes from the worst α and zooms to each
    before = page.view.viewbox.viewRange()
    qtbot.keyClick(page, Qt.Key.Key_Tab, _NO)
    assert page.state.box_index == 0
    worst = page.state.review.boxes("relaxed")[0]
    assert worst.alpha == min(b.alpha for b in page.state.review.boxes("relaxed"))
    after = page.view.viewbox.viewRange()
    assert after != before
    r0, c0, r1, c1 = worst.box
    assert after[0][0] <= c0 and after[0][1] >= c1 and after[1][0] <= r0 and after[1][1] >= r1
    qtbot.keyClick(page, Qt.Key.Key_Tab, _NO)
    assert page.state.box_index == 1 and page.view.viewbox.viewRange() != after

    # reject the selected (first) annotation with a reason, and pin a comment to the box
    rejected = page.state.review.annotators[0].annotation_id
    _answer_dialog(qtbot, tags=("missed finding",), text="lower lesion")
    qtbot.keyClick(page, Qt.Key.Key_R, _NO)
    _answer_dialog(qtbot, text="check this region")
    qtbot.keyClick(page, Qt.Key.Key_P, Qt.KeyboardModifier.ShiftModifier)
    with Project.open(project_file) as project:
        decision = project.reviews.current_decisions([rejected])[rejected]
        assert str(decision.decision) == "reject"
        assert decision.tags == ("missed finding",) and decision.comment == "lower lesion"
        [pin] = [r for r in project.reviews.all(image_id=first) if r.is_pin]
        assert pin.pin_kind == "box" and pin.comment == "check this region"
    assert page.queue_panel.rows[0].status == "partly reviewed"

    # undo the pin (Ctrl+Z), redo it (Ctrl+Shift+Z), undo again
    qtbot.keyClick(page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    with Project.open(project_file) as project:
        assert not [r for r in project.reviews.all(image_id=first) if r.is_pin]
    qtbot.keyClick(page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)

    # accept all and next: the other two annotations accepted, the next image shown
    qtbot.keyClick(page, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert page.state.position == 1
    assert page.queue_panel.rows[0].status == "reviewed"
    assert "1 of 5" in page.queue_panel.meter.text()
    with Project.open(project_file) as project:
        decided = project.reviews.current_decisions(page.state.rows[0].annotation_ids)
        assert sorted(str(d.decision) for d in decided.values()) == ["accept", "accept",
                                                                      "reject"]
        assert not [r for r in project.reviews.all(image_id=first) if r.is_pin]
    second = page.state.rows[1].image_id

    # close and reopen: reviewer and queue position are kept
    w.close()
    w2 = _open(qtbot, project_file)
    page2 = w2.review_page
    assert page2.state.review.image_id == second
    assert page2.reviewer_box.currentText() == "Dr Review"
    assert page2.state.rows[0].status == "reviewed"
    w2.close()


def test_review_heat_map_side_by_side_and_point_pin(qtbot, project_file: Path) -> None:
    w = _open(qtbot, project_file)
    page: ReviewPage = w.review_page
    page.set_reviewer("Dr Review")
    qtbot.keyClick(page, Qt.Key.Key_M, _NO)   # heat map: relaxed
    assert page.overlay.heat_mode == "relaxed" and page.overlay._heat.isVisible()
    votes = page.state.review.marked_votes
    row, col = [int(v[0]) for v in (votes == votes.max()).nonzero()]
    text = page.overlay.hover_text(col + 0.5, row + 0.5)
    assert text.startswith(f"{int(votes.max())} of 3 marked: ")
    # P then click: a comment pinned to the clicked point
    qtbot.keyClick(page, Qt.Key.Key_P, _NO)
    assert page.state.pin_mode
    _answer_dialog(qtbot, tags=("extra region",))
    scene = page.view.viewbox.mapViewToScene(page.view.viewbox.viewRect().center())
    qtbot.mouseClick(page.view.graphics.viewport(), Qt.MouseButton.LeftButton, _NO,
                     page.view.graphics.mapFromScene(scene))
    with Project.open(w.gateway.open_project.path) as project:
        [pin] = [r for r in project.reviews.all() if r.is_pin]
        assert pin.pin_kind == "point" and pin.tags == ("extra region",)
    # side by side: one linked pane per annotator
    qtbot.keyClick(page, Qt.Key.Key_S, _NO)
    views = page.image_views()
    assert len(views) == 3
    views[0].viewbox.setRange(xRange=(10, 60), yRange=(10, 60), padding=0)
    assert views[2].viewbox.viewRange()[0] == pytest.approx(
        views[0].viewbox.viewRange()[0], abs=1.0)
    views[1].set_window(100, 50)
    assert views[0].current_window.center == 100 and views[2].current_window.width == 50
    w.close()


def test_consensus_layers_majority_and_staple(qtbot, project_file: Path) -> None:
    """K cycles the consensus layer: the majority mask drawn is the independent pixel count of
    the shown labels, and STAPLE (off the GUI thread) draws SimpleITK's mask and names each
    annotator's sensitivity and specificity."""
    import numpy as np
    import SimpleITK as sitk

    w = _open(qtbot, project_file)
    page: ReviewPage = w.review_page
    layer = page.consensus
    labels = np.asarray(page.state.review.labels)
    marked = (labels != 0).sum(axis=0)  # relaxed level (the tab's default)
    qtbot.keyClick(page, Qt.Key.Key_K, _NO)
    assert layer.mode == "majority" and layer.layer.isVisible()
    drawn = np.asarray(layer.layer.image).astype(bool)
    np.testing.assert_array_equal(drawn, marked * 2 > labels.shape[0])
    assert f"{int(drawn.sum())} px" in layer.summary.text()
    qtbot.keyClick(page, Qt.Key.Key_K, _NO)
    assert layer.mode == "STAPLE"
    qtbot.waitUntil(lambda: "sens./spec." in layer.summary.text(), timeout=20000)
    images = [sitk.GetImageFromArray((lab != 0).astype(np.uint8)) for lab in labels]
    expected = sitk.GetArrayFromImage(sitk.STAPLE(images, 1.0)) > 0.5
    np.testing.assert_array_equal(np.asarray(layer.layer.image).astype(bool), expected)
    assert len(layer.summary.toolTip().splitlines()) == 1 + labels.shape[0]
    qtbot.keyClick(page, Qt.Key.Key_K, _NO)
    assert layer.mode == "off" and not layer.layer.isVisible()
