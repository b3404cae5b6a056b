"""The model in the Review tab: the queue sorted by model-disagreement (offered only when the
project has a model), the model's outline as its own layer toggled with O, and the list of
boxes only the model or only the annotators found, computed off the GUI thread and equal to
the app layer's values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from slicereview.app.models.predictions import store_prediction
from slicereview.app.models.raters import model_rater
from slicereview.app.review.model_view import model_disagreements, model_on_image
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project
from tests.gui.review.review_fixture import build_review_project

_NO = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    """The review project and a model that predicts the first annotator's outlines, shifted
    further on each image, and a square nobody drew."""
    from slicereview.engines.masks import rasterize

    path = build_review_project(tmp_path)
    with Project.open(path) as project:
        model = model_rater(project, "net", "3")
        first = min(r.id for r in project.raters.all() if not r.is_model)
        for k, image in enumerate(project.images.all()):
            ann = project.annotations.all(image_id=image.id, rater_id=first)[0]
            labels = np.roll(rasterize(project.polygons.of(ann.id), (image.rows, image.cols)),
                             4 * k, axis=1)
            labels[2:12, 2:12] = 1  # (nobody marks the corner)
            store_prediction(project, model, image.id, labels)
    return path


def _open(qtbot, path: Path) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1500, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(path)
    w.tabs.setCurrentWidget(w.review_page)
    qtbot.waitUntil(lambda: w.review_page.state.review is not None)
    w.review_page.setFocus()
    return w


def test_sort_by_model_disagreement_and_draw_the_models_layer(qtbot, project_file):
    w = _open(qtbot, project_file)
    page, panel = w.review_page, w.review_page.queue_panel
    assert panel.model_box.currentText() == "net@3"
    panel.method_box.setCurrentText("model-disagreement")
    qtbot.waitUntil(lambda: bool(page.state.rows) and "by model-disagreement" in
                    page.state.rows[0].explain)
    project = w.gateway.project
    model = project.raters.by_name("net@3").id
    far = model_disagreements(project, {r.image_id: r.annotation_ids
                                        for r in page.state.rows}, model)
    scores = [r.score for r in page.state.rows]
    assert scores == sorted(scores, reverse=True)
    assert scores == pytest.approx([far[r.image_id] for r in page.state.rows])

    layer = page.model
    assert not layer.item.isVisible()
    qtbot.keyClick(page, Qt.Key.Key_O, _NO)
    assert layer.toggle.isChecked()
    qtbot.waitUntil(lambda: layer.values is not None and layer.item.isVisible())
    row = page.state.row
    expected = model_on_image(project, row.image_id, row.annotation_ids, model)
    assert layer.values.model_only == expected.model_only
    assert (2, 2, 12, 12) in expected.model_only
    assert layer.boxes.count() == len(expected.model_only) + len(expected.people_only)
    assert layer.boxes.item(0).text().startswith("model only")
    assert layer.boxes.item(0).toolTip() == "found by the model, marked by no annotator"
    assert f"Dice {expected.majority.dice:.2f}" in layer.summary.text()
    assert layer.group.isVisible()
    before = page.view.viewbox.viewRange()
    layer.boxes.setCurrentRow(0)  # (a click on the first box zooms to it)
    r0, c0, r1, c1 = layer.found[0][1]
    (x0, x1), (y0, y1) = page.view.viewbox.viewRange()
    assert page.view.viewbox.viewRange() != before and x0 < c0 and x1 > c1 and y0 < r0
    qtbot.keyClick(page, Qt.Key.Key_O, _NO)
    assert not layer.item.isVisible() and layer.boxes.count() == 0
    w.close()


def test_without_a_model_the_method_is_greyed(qtbot, tmp_path):
    w = _open(qtbot, build_review_project(tmp_path))
    panel = w.review_page.queue_panel
    model = panel.method_box.model()
    item = model.item(panel.method_box.findText("model-disagreement"))
    assert not item.isEnabled() and "import them first" in item.toolTip()
    assert panel.model_box.count() == 0
    w.close()


def test_the_model_box_offers_first_the_model_with_the_most_predictions(qtbot, project_file):
    """A model that predicted nothing here (sorted first by its label) is not the default:
    the Review tab's Model box starts on the model with the most predictions."""
    with Project.open(project_file) as project:
        model_rater(project, "aaa-empty", "1")
    w = _open(qtbot, project_file)
    box = w.review_page.queue_panel.model_box
    assert [box.itemText(i) for i in range(box.count())] == ["net@3", "aaa-empty@1"]
    assert box.currentText() == "net@3"
