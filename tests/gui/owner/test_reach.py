"""What the owner defines reaches the people who work: Owner ▸ Questions… and Groups…, a new
batch that asks for its phase and images, the stop decision and the low-agreement rule on the
Annotate tab, review-first flags in the queue. Real widgets driven by qtbot; results read back
from the project file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from slicereview.app.annotating import finish
from slicereview.app.images.importing import import_paths
from slicereview.app.qa.workflow import decide, define_batch
from slicereview.model import Polygon
from slicereview.store import Project

_L = Qt.MouseButton.LeftButton


def _square(x: float, y: float = 10.0, s: float = 30.0) -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float))


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    from skimage import data, io

    folder = tmp_path / "images"
    folder.mkdir()
    camera = data.camera()
    for k in range(3):
        io.imsave(folder / f"cam{k}.png", camera[k * 96:(k + 1) * 96, 96:192],
                  check_contrast=False)
    path = tmp_path / "owner.srproj"
    with Project.create(path) as p:
        import_paths(p, sorted(folder.glob("*.png")))
        for name in ("ann", "bob", "cy"):
            p.raters.add(name)
        p.raters.add("olivia", "owner")
        p.raters.add("rev", "reviewer")
    return path


def test_questions_dialog_add_edit_reorder_retire_import(qtbot, open_window, project_file,
                                                         tmp_path, monkeypatch) -> None:
    w = open_window(project_file)
    w.owner_menu.actions["questions"].trigger()
    dialog = w.owner_menu.dialog
    qtbot.keyClicks(dialog.key_edit, "density")
    qtbot.keyClicks(dialog.title_edit, "Breast density")
    dialog.choices_edit.setPlainText("A\nB\nC")
    qtbot.mouseClick(dialog.save_button, _L)
    assert dialog.message.text() == ""
    qtbot.mouseClick(dialog.new_button, _L)
    qtbot.keyClicks(dialog.key_edit, "kind")
    dialog.scope_box.setCurrentIndex(dialog.scope_box.findData("polygon"))
    dialog.kind_box.setCurrentIndex(dialog.kind_box.findData("dropdown"))
    dialog.choices_edit.setPlainText("Calcification\n  Punctate\n  Vascular\nMass\nMass")
    qtbot.mouseClick(dialog.save_button, _L)
    assert "'Mass' is there twice" in dialog.message.text()           # refused, one sentence
    dialog.choices_edit.setPlainText("Calcification\n  Punctate\n  Vascular\nMass")
    qtbot.mouseClick(dialog.save_button, _L)
    with Project.open(project_file) as p:
        assert [(q.name, q.scope, q.kind) for q in p.questions.all()] == [
            ("density", "image", "radio"), ("kind", "polygon", "dropdown")]
        assert p.questions.by_name("kind").options == [
            {"value": "Calcification", "children": ["Punctate", "Vascular"]}, "Mass"]
        # an annotator answers density
        a = p.annotations.for_image(p.raters.by_name("ann").id, 1)
        p.annotations.set_image_classifications(a.id, {"density": "B"})
    # reorder: kind first
    qtbot.mouseClick(dialog.up_button, _L)
    with Project.open(project_file) as p:
        assert [q.name for q in p.questions.all()] == ["kind", "density"]
    # an answered question keeps its kind
    dialog.list.setCurrentRow(1)
    assert "1 annotation answer it" in dialog.answered_label.text()
    dialog.kind_box.setCurrentIndex(dialog.kind_box.findData("checklist"))
    qtbot.mouseClick(dialog.save_button, _L)
    assert "its scope and kind stay" in dialog.message.text()
    # retire it: no longer asked on the Annotate tab, the stored answer stays
    annotate = w.annotate_page
    assert [q.name for q in annotate.panel.image_form.questions] == ["density"]
    dialog.list.setCurrentRow(1)
    qtbot.mouseClick(dialog.retire_button, _L)
    assert annotate.panel.image_form.questions == []
    assert "retired" in dialog.list.item(1).text()
    with Project.open(project_file) as p:
        assert p.questions.by_name("density").retired
        assert p.annotations.get(a.id).classifications == {"density": "B"}
    # export, then import into another project: the same questions, in order
    out = tmp_path / "questions.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    qtbot.mouseClick(dialog.export_button, _L)
    assert [q["key"] for q in json.loads(out.read_text())["questions"]] == ["kind", "density"]
    dialog.list.setCurrentRow(1)
    qtbot.mouseClick(dialog.retire_button, _L)          # Restore
    assert [q.name for q in annotate.panel.image_form.questions] == ["density"]
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(out), ""))
    qtbot.mouseClick(dialog.import_button, _L)
    assert "0 added, 1 updated, 1 unchanged" in dialog.answered_label.text()
    with Project.open(project_file) as p:
        assert p.questions.by_name("density").retired     # as the file said


def test_groups_dialog(qtbot, open_window, project_file) -> None:
    w = open_window(project_file)
    w.owner_menu.actions["groups"].trigger()
    groups = w.owner_menu.dialog
    groups.select_names(["ann", "bob"])
    groups.group_box.setEditText("A2")
    qtbot.mouseClick(groups.put_button, _L)
    assert groups.message.text() == ""
    with Project.open(project_file) as p:
        assert [(r.name, r.group) for r in p.raters.all() if r.role == "annotator"] == [
            ("ann", "A2"), ("bob", "A2"), ("cy", None)]
    groups.select_names(["bob"])
    qtbot.mouseClick(groups.out_button, _L)
    with Project.open(project_file) as p:
        assert p.raters.by_name("bob").group is None


def test_groups_dialog_shows_a_long_group_name_on_one_line(qtbot, open_window,
                                                           project_file) -> None:
    w = open_window(project_file)
    w.owner_menu.actions["groups"].trigger()
    groups = w.owner_menu.dialog
    groups.select_names(["ann"])
    groups.group_box.setEditText("A0 (no feedback)")
    qtbot.mouseClick(groups.put_button, _L)
    qtbot.waitExposed(groups)
    table = groups.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "ann")
    text = table.item(row, 1).text()
    assert text == "A0 (no feedback)"
    assert table.columnWidth(1) > table.fontMetrics().horizontalAdvance(text)
    assert not table.wordWrap()


def test_a_new_batch_asks_for_phase_and_images(qtbot, open_window, project_file) -> None:
    with Project.open(project_file) as p:
        for name in ("ann", "bob"):
            p.raters.set_group(p.raters.by_name(name).id, "A2")
    w = open_window(project_file)
    # Phases and batches: a name alone is not a batch
    w.owner_menu.actions["batches"].trigger()
    batches = w.owner_menu.dialog
    assert batches.phase_box.currentIndex() == -1 and batches.source_box.currentIndex() == -1
    qtbot.keyClicks(batches.name_edit, "pilot")
    qtbot.mouseClick(batches.save_button, _L)
    assert "Choose the batch's phase" in batches.message.text()
    batches.phase_box.setCurrentText("pilot")
    qtbot.mouseClick(batches.save_button, _L)
    assert "Choose the batch's images" in batches.message.text()
    with Project.open(project_file) as p:
        assert p.workflow.batches() == []
    batches.source_box.setCurrentIndex(0)
    batches.group_list.item(0).setCheckState(Qt.CheckState.Checked)    # group A2
    qtbot.mouseClick(batches.save_button, _L)
    with Project.open(project_file) as p:
        [batch] = p.workflow.batches()
        assert (batch.name, str(batch.phase), len(p.image_sets.members(batch.image_set_id))) == (
            "pilot", "pilot", 3)
        assert p.workflow.batch_assignments(batch.id) == [(None, "A2")]
    qtbot.mouseClick(batches.new_button, _L)                 # the form starts empty again
    assert batches.phase_box.currentIndex() == -1
    assert batches.group_list.item(0).checkState() is Qt.CheckState.Unchecked


def _annotate_as(w, qtbot, name: str, phase: str, image_id: int):
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    rater = next(r.id for r in w.gateway.annotate.annotators() if r.name == name)
    page.select_you(rater)
    page.select_annotator(rater)
    page.panel.phase_box.setCurrentText(phase)
    w.browser.select(image_id)
    qtbot.waitUntil(lambda: page.image_id == image_id)
    return page


def test_stop_decision_on_the_annotate_tab(qtbot, open_window, project_file) -> None:
    with Project.open(project_file) as p:
        ann, owner = p.raters.by_name("ann").id, p.raters.by_name("olivia").id
        onboarding = define_batch(p, "onboarding", "onboarding", [1], raters=[ann])
        decide(p, onboarding, ann, owner, go_on=False, reason="misses findings")
        define_batch(p, "formal", "formal", [2, 3], raters=[ann])
    w = open_window(project_file)
    # ann was stopped: formal work is read-only and the page says why and who decided
    page = _annotate_as(w, qtbot, "ann", "formal", 2)
    assert not page.panel.submit_button.isEnabled() and not page.actions_["polygon"].isEnabled()
    said = page.panel.message_label.text()
    assert "olivia decided on" in said and "ann stops after the onboarding batch" in said
    assert "misses findings" in said
    page.panel.phase_box.setCurrentText("onboarding")          # onboarding stays open
    assert page.panel.submit_button.isEnabled()
    # the owner overrides (what Gold and onboarding… does): the page follows at once
    w.gateway.owner.decide(onboarding, ann, owner, go_on=True, reason="second chance")
    page.panel.phase_box.setCurrentText("formal")
    assert page.panel.submit_button.isEnabled()


def test_extra_annotator_sees_the_assignment_in_the_image_list(qtbot, open_window,
                                                               project_file) -> None:
    with Project.open(project_file) as p:
        ann, bob, cy = (p.raters.by_name(n).id for n in ("ann", "bob", "cy"))
        formal = define_batch(p, "formal", "formal", [2, 3], raters=[ann, bob],
                              alpha_threshold=0.5)
        # ann and bob disagree on image 2: the rule gives it to cy
        for rater, x in ((ann, 5.0), (bob, 55.0)):
            a = p.annotations.for_image(rater, 2, "formal")
            p.polygons.replace(a.id, [_square(x)])
            finish(p, a.id, "submitted")
        [flag] = [f for f in p.workflow.image_flags() if f.batch_id == formal]
        assert (flag.kind, flag.rater_id) == ("assign", cy)
    w = open_window(project_file)
    _annotate_as(w, qtbot, "cy", "formal", 2)
    qtbot.waitUntil(lambda: w.browser.assignment_of(2) is not None, timeout=5000)
    assert "⚑ given to you: low agreement" in w.browser.row_text(2)
    assert "strict α (nominal, image level)" in w.browser.row_tooltip(2)
    assert w.browser.assignment_of(3) is None
    box = w.browser.status_box
    box.setCurrentIndex(box.findData("assigned"))
    assert w.browser.image_ids() == [2]


def test_review_first_images_lead_the_queue_with_the_reason(qtbot, open_window,
                                                            project_file) -> None:
    with Project.open(project_file) as p:
        ann, bob = p.raters.by_name("ann").id, p.raters.by_name("bob").id
        define_batch(p, "formal", "formal", [2, 3], raters=[ann, bob], alpha_threshold=0.5,
                     low_action="review")
        for image, (xa, xb) in ((2, (5.0, 55.0)), (3, (5.0, 6.0))):
            for rater, x in ((ann, xa), (bob, xb)):
                a = p.annotations.for_image(rater, image, "formal")
                p.polygons.replace(a.id, [_square(x)])
                finish(p, a.id, "submitted")
        assert [(f.image_id, f.kind) for f in p.workflow.image_flags()] == [(2, "review")]
    w = open_window(project_file)
    w.tabs.setCurrentWidget(w.review_page)
    review = w.review_page
    qtbot.waitUntil(lambda: len(review.state.rows) == 2, timeout=20000)
    assert review.state.rows[0].image_id == 2 and review.state.rows[0].flag
    assert review.queue_panel.table.item(0, 0).text().endswith("⚑")
    assert review.queue_panel.table.item(0, 1).toolTip().splitlines()[1].startswith(
        "Flagged in batch “formal”")
    assert not math.isnan(review.state.rows[1].features.strict_alpha)
