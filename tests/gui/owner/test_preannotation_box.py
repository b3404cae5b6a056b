"""Owner ▸ Phases and batches…, *Pre-annotation of the selected batch*, on real widgets: the
owner shows the model on a random half of a batch, the design is read back from the file and
the sentence says what is in force; switching it off; only model raters are offered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from slicereview.app.images.importing import import_paths
from slicereview.app.models.raters import model_rater
from slicereview.app.qa.workflow import define_batch
from slicereview.store import Project


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    from skimage import io

    for k in range(4):
        io.imsave(tmp_path / f"im{k}.png", np.full((32, 32), 100 * k, np.uint16),
                  check_contrast=False)
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(tmp_path.glob("im*.png")))
        ids = [im.id for im in project.images.all()]
        people = [project.raters.add(n) for n in ("ann", "bob")]
        project.raters.add("olivia", "owner")
        model_rater(project, "net", "4")
        define_batch(project, "b", "formal", ids, raters=people)
    return path


def test_the_owner_pre_annotates_half_of_a_batch(qtbot, open_window, project_file):
    w = open_window(project_file)
    w.owner_menu.actions["batches"].trigger()
    dialog = w.owner_menu.dialog
    box = dialog.preannotation
    assert not box.apply_button.isEnabled()
    assert "Select a batch" in box.state.text()
    dialog.table.selectRow(0)
    assert box.apply_button.isEnabled()
    assert [box.model_box.itemText(i) for i in range(box.model_box.count())] == ["net@4"]
    assert box.state.text() == "No model is shown: annotators start empty."
    box.share_box.setCurrentIndex(box.share_box.findData("half"))
    box.seed.setValue(9)
    qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
    assert box.message.text() == ""
    assert box.state.text().startswith(
        "net@4 is shown on a random half (seed 9): 4 of 8 image × annotator starts")
    with Project.open(project_file) as project:
        [batch] = project.workflow.batches()
        setting = project.preannotation.setting(batch.id)
        assert (setting.share, setting.seed, setting.set_by) == ("half", 9, "owner")
        design = project.preannotation.design(batch.id)
        assert len(design) == 8 and sum(s for *_, s in design) == 4
    box.share_box.setCurrentIndex(box.share_box.findData(None))
    qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
    assert box.state.text() == "No model is shown: annotators start empty."
    with Project.open(project_file) as project:
        assert project.preannotation.settings() == []
    dialog.close()
