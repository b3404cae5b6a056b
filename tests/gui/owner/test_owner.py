"""The owner's set-up GUI of the QA workflow: batches, gold and the onboarding pre-filter, the
guideline editor, and the annotator's "guidelines changed" notice (F2), on real widgets with
the results read back from the project file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument

from slicereview.app.annotating import finish
from slicereview.app.images.importing import import_paths
from slicereview.model import Phase, Polygon
from slicereview.store import Project


def _square(project: Project, rater: int, image: int, x0: float, size: float) -> int:
    ann = project.annotations.for_image(rater, image, "onboarding", create=True)
    v = np.array([[x0, x0], [x0 + size, x0], [x0 + size, x0 + size], [x0, x0 + size]], float)
    project.polygons.replace(ann.id, [Polygon(v)])
    finish(project, ann.id, "submitted")
    return ann.id


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    """Three crops of scikit-image's camera (128 × 128), an expert, two annotators of group A
    who finished the first image (one close to the expert, one far off), an owner, a review
    comment."""
    from skimage import data, io

    folder = tmp_path / "images"
    folder.mkdir()
    camera = data.camera()
    for k in range(3):
        io.imsave(folder / f"cam{k}.png", camera[k * 128:(k + 1) * 128, 128:256],
                  check_contrast=False)
    path = tmp_path / "owner.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        first = project.images.all()[0].id
        expert = project.raters.add("expert", "reviewer")
        good, poor = project.raters.add("good", group="A"), project.raters.add("poor", group="A")
        project.raters.add("olivia", "owner")
        _square(project, expert, first, 20, 60)
        near = _square(project, good, first, 22, 58)
        _square(project, poor, first, 90, 20)
        project.reviews.add(first, expert, annotation_id=near, decision="reject",
                            comment="include the thin rim", tags=["missed part"])
    return path


def _shot(folder: Path, widget, name: str) -> None:
    assert widget.grab().save(str(folder / f"{name}.png"))


def test_batches_gold_prefilter_guidelines_and_notice(qtbot, open_window, project_file,
                                                      tmp_path, screenshots) -> None:
    w = open_window(project_file)
    # 1. Phases and batches: an onboarding batch of the listed images for group A.
    w.owner_menu.actions["batches"].trigger()
    dialog = w.owner_menu.dialog
    qtbot.keyClicks(dialog.name_edit, "onboarding A")
    dialog.phase_box.setCurrentText("onboarding")
    dialog.source_box.setCurrentIndex(0)
    assert "image list (3)" in dialog.source_box.currentText()
    dialog.group_list.item(0).setCheckState(Qt.CheckState.Checked)
    dialog.prefilter_check.setChecked(True)
    dialog.min_dice.setValue(0.6)
    dialog.alpha_check.setChecked(True)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.message.text() == ""
    with Project.open(project_file) as project:
        [batch] = project.workflow.batches()
        assert (batch.name, batch.phase, batch.min_dice, batch.alpha_threshold) == (
            "onboarding A", Phase.ONBOARDING, 0.6, 0.667)
        assert len(project.image_sets.members(batch.image_set_id)) == 3
        assert project.workflow.batch_assignments(batch.id) == [(None, "A")]
    # edit: rules change, the name cannot
    dialog.table.selectRow(0)
    assert not dialog.name_edit.isEnabled()
    dialog.max_annotators.setValue(4)
    dialog.low_action.setCurrentIndex(1)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    with Project.open(project_file) as project:
        saved = project.workflow.batch(batch.id)
        assert (saved.max_annotators, saved.low_action) == (4, "review")
    assert dialog.table.item(0, 3).text() == "group A"
    _shot(screenshots, dialog, "batches")
    dialog.close()

    # 2. Gold: the expert's annotation on the first image; a PNG mask for the second.
    w.owner_menu.actions["gold"].trigger()
    gold = w.owner_menu.dialog
    images = gold.owner.batch_images(batch.id)
    gold.select_image(images[0].id)
    assert "expert (reviewer)" in gold.candidate_box.currentText()
    qtbot.mouseClick(gold.mark_button, Qt.MouseButton.LeftButton)
    mask = np.zeros((128, 128), np.uint8)
    mask[30:60, 30:60] = 255
    PILImage.fromarray(mask).save(tmp_path / "gold.png")
    gold.select_image(images[1].id)
    assert gold.import_mask(str(tmp_path / "gold.png"))
    assert gold.images.item(1, 2).text() == "file:gold.png"
    rows = {gold.scores.item(r, 0).text(): [gold.scores.item(r, c).text() for c in range(9)]
            for r in range(gold.scores.rowCount())}
    assert rows["good"][7] == "passes" and rows["poor"][7] == "below"
    assert float(rows["good"][3]) > 0.9 and float(rows["poor"][3]) == 0.0
    with Project.open(project_file) as project:
        ids = {r.name: r.id for r in project.raters.all()}
        assert project.workflow.gold(images[0].id)[2] == "rater:expert"
        assert len(project.workflow.gold_scores()) == 2
    # confirm "good"; override "poor" (no reason: refused; with a reason: stored)
    gold.select_annotator(ids["good"])
    qtbot.mouseClick(gold.confirm_button, Qt.MouseButton.LeftButton)
    gold.select_annotator(ids["poor"])
    qtbot.mouseClick(gold.override_button, Qt.MouseButton.LeftButton)
    assert "needs a reason" in gold.message.text()
    qtbot.keyClicks(gold.reason_edit, "first image was ambiguous")
    qtbot.mouseClick(gold.override_button, Qt.MouseButton.LeftButton)
    with Project.open(project_file) as project:
        decisions = [(q.rater_id, q.go_on, q.prefilter, q.decided_by, q.reason)
                     for q in project.workflow.qualifications()]
    assert decisions == [(ids["good"], True, True, ids["olivia"], ""),
                         (ids["poor"], True, False, ids["olivia"], "first image was ambiguous")]
    assert "go on — olivia" in gold.scores.item(1, 8).text()
    _shot(screenshots, gold, "gold")
    gold.close()

    # 3. Guidelines: write, preview, save twice, history diff, promote a review comment.
    w.owner_menu.actions["guidelines"].trigger()
    editor = w.owner_menu.dialog
    editor.editor.clear()
    for line in ("# Vessels", "Outline each vessel."):  # QTest has no key for "\n": Return
        qtbot.keyClicks(editor.editor, line)
        qtbot.keyClick(editor.editor, Qt.Key.Key_Return)
    assert "Outline each vessel." not in editor.preview.toPlainText()  # after typing stops
    qtbot.waitUntil(lambda: "Outline each vessel." in editor.preview.toPlainText(), timeout=2000)
    assert editor.editor.toPlainText() == "# Vessels\nOutline each vessel.\n"
    assert editor.save() == 1
    editor.editor.setPlainText("# Vessels\nOutline each calcified vessel.\n")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    editor.versions.setCurrentRow(0)
    assert "+Outline each calcified vessel." in editor.diff.toPlainText()
    assert editor.comments.count() == 1
    editor.comments.setCurrentRow(0)
    assert not editor.crop.pixmap().isNull()  # the crop the promotion will put in
    assert editor.promote() == 3
    with Project.open(project_file) as project:
        entry = project.guidelines.entries()[0][0]
    assert f"entry:{entry}" in editor.editor.toPlainText()
    picture = editor.preview.document().resource(QTextDocument.ResourceType.ImageResource,
                                                 QUrl(f"entry:{entry}"))
    assert isinstance(picture, QImage) and picture.width() > 0  # the crop, in the preview
    with Project.open(project_file) as project:
        assert project.guidelines.get()[0] == 3
        assert "missed part; include the thin rim" in project.guidelines.get()[1]
        assert project.guidelines.entries()[0][4][:4] == b"\x89PNG"
    editor.tabs.setCurrentIndex(0)
    _shot(screenshots, editor, "guidelines")
    editor.close()
    qtbot.waitUntil(w.isActiveWindow, timeout=2000)  # the keyboard is back in the main window

    # 4. The annotator sees the notice; F2 shows what changed and records the look.
    page = w.annotate_page
    page.select_annotator(ids["good"])
    w.tabs.setCurrentIndex(0)  # the View tab: F2 is the Annotate tab's key only
    qtbot.keyClick(w.browser, Qt.Key.Key_F2)
    assert page.guideline_notice.dialog is None
    w.tabs.setCurrentWidget(w.annotate_page)
    page.select_annotator(ids["good"])
    notice = page.guideline_notice
    assert notice.isVisible() and "version 3" in notice.label.text()
    _shot(screenshots, w, "annotate_notice")
    w.browser.setFocus()  # F2 works anywhere in the window while the Annotate tab is shown
    qtbot.keyClick(w.browser, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: notice.dialog is not None and notice.dialog.isVisible())
    assert "Outline each calcified vessel." in notice.dialog.diff.toPlainText()
    _shot(screenshots, notice.dialog, "changes")
    assert not notice.isVisible()
    with Project.open(project_file) as project:
        assert project.guidelines.last_seen(ids["good"]) == 3
        assert project.guidelines.last_seen(ids["poor"]) is None
