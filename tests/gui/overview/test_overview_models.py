"""The Overview with a model: the matrix's model row and column after the line (a model cell
lists where model and person disagree most), and the Models tab with the report's values; the
Models tab's empty state without a model."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from slicereview.app.qa.preannotation import set_preannotation
from slicereview.app.qa.workflow import define_batch
from slicereview.app.report import model_qa, preannotation
from slicereview.app.report.formatting import fmt
from slicereview.app.report.matrix import model_disagreements
from slicereview.app.report.owner_report import collect
from slicereview.demo.preannotation import add_images, add_model, simulate_preannotated_work
from slicereview.gui.overview import tables
from slicereview.store import Project


def _project(folder: Path, with_model: bool) -> Path:
    path = folder / "p.srproj"
    with Project.create(path) as project:
        images, regions = add_images(project, folder, 6, seed=3)
        people = [project.raters.ensure(f"Simulated follower {k}", simulated=True)
                  for k in "ABC"]
        batch = define_batch(project, "pre", "formal", images, raters=people)
        if with_model:
            model = add_model(project, regions, seed=3)
            set_preannotation(project, batch, model, "half", seed=5)
        else:
            from slicereview.demo.annotators import simulate_annotators

            for image in images:
                drawn = simulate_annotators((160, 160), regions[image], seed=image)
                for rater, polygons in zip(people, drawn.values(), strict=False):
                    ann = project.annotations.for_image(rater, image)
                    project.polygons.replace(ann.id, polygons)
                    project.annotations.set_status(ann.id, "submitted")
            return path
        simulate_preannotated_work(project, batch, regions, follow=0.6, seed=1)
    return path


def _computed(open_window, qtbot, path: Path):
    w = open_window(path, size=(1280, 800))
    page = w.overview_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    return w, page


def _cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() if table.item(r, c) else ""
             for c in range(table.columnCount())] for r in range(table.rowCount())]


@pytest.mark.slow  # 6 s
def test_overview_shows_the_model_in_the_matrix_and_the_models_tab(open_window, qtbot,
                                                                   tmp_path: Path) -> None:
    path = _project(tmp_path, with_model=True)
    with Project.open(path) as p:
        expected = collect(p)
    [part] = expected.models
    w, page = _computed(open_window, qtbot, path)
    ids, matrix = page.matrix_ids, page.matrix
    assert len(ids) == 3 and matrix.rowCount() == matrix.columnCount() == 5  # 3 + line + M1
    assert matrix.verticalHeaderItem(4).text() == f"M1  {part.label} · model"
    assert matrix.verticalHeaderItem(4).font().italic()
    for k, person in enumerate(ids):  # the model's row and column: model_qa's values
        value, n = part.pairwise[person]
        assert matrix.item(4, k).text() == matrix.item(k, 4).text() == f"{fmt(value)}\n{n} img"
        key = (min(ids[0], ids[1]), max(ids[0], ids[1]))
        assert matrix.item(0, 1).text().startswith(fmt(expected.agreement.pairwise[key]))
    page.sections.setCurrentWidget(page.agreement)
    assert matrix.item(4, 4).text() == "" and page.agreement.model_note.isVisibleTo(page)
    rect = matrix.visualItemRect(matrix.item(4, 1))
    qtbot.mouseClick(matrix.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    rows = model_disagreements(part, ids[1])
    assert page.pair_list.count() == len(rows) == part.pairwise[ids[1]][1]
    assert page.pair_list.item(0).text().startswith(rows[0].case_id)
    assert part.label in page.pair_label.text()
    with qtbot.waitSignal(page.image_requested, timeout=5000) as shown:
        page.pair_list.setCurrentRow(0)
    assert shown.args == [rows[0].image_id]
    assert matrix.item(4, 1).data(tables.MODEL_ROLE) == (0, ids[1])

    models = page.models
    page.sections.setCurrentWidget(models)
    assert not models.empty.isVisibleTo(page) and models.summary.isVisibleTo(page)
    assert _cells(models.summary) == [model_qa.summary_cells(part)]
    assert models.images.rowCount() == len(part.images)
    assert models.summary.isColumnHidden(10) and models.images.isColumnHidden(12)  # no gold
    [batch] = expected.preannotation
    assert [row[1:] for row in _cells(models.batches)] == preannotation.rows(batch)
    assert preannotation.heading(batch) in models.batch_notes.text()
    assert model_qa.NOTE in models.texts() and preannotation.NOTE in models.texts()


@pytest.mark.slow  # 4 s
def test_the_models_tab_says_when_there_is_no_model(open_window, qtbot, tmp_path: Path) -> None:
    w, page = _computed(open_window, qtbot, _project(tmp_path, with_model=False))
    models = page.models
    page.sections.setCurrentWidget(models)
    assert models.empty.isVisibleTo(page) and models.empty.text() == model_qa.EMPTY
    assert not models.summary.isVisibleTo(page) and not models.images.isVisibleTo(page)
    assert models.batches_empty.isVisibleTo(page)
    assert models.batches_empty.text() == preannotation.EMPTY
    assert page.matrix.rowCount() == len(page.matrix_ids) == 3  # no line, no model row
    assert page.agreement.model_note.isHidden()
