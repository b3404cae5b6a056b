"""Owner ▸ Project model…: train on the accepted work in the background (progress, the
version's row with its held-out interval), Cancel that stores nothing, predict the unseen
images as project@v1's annotations, and the retraining rule, on real widgets; everything read
back from the project file."""

from __future__ import annotations

from pathlib import Path

from slicereview.app.models.project_model import min_region, retrain_every
from slicereview.store import Project
from tests.app.model_project import build


def _small(path: Path) -> None:
    """Settings small enough for the fast tier, as the project's first version would keep."""
    from slicereview.engines.learning import Settings

    fast = Settings(trees=6, tissue="none", tile=128, patch=64, patches_per_image=4,
                    samples_per_image=1500, sigma_max=4.0)
    with Project.open(path) as project:
        from slicereview.app.models.project_model import train_version

        train_version(project, settings=fast, trained_by="setup")


def test_train_predict_cancel_and_the_rule(qtbot, open_window, tmp_path: Path):
    path = tmp_path / "p.srproj"
    project, _ = build(path, tmp_path / "images", n=6, accepted=4, rejected=0)
    project.close()
    _small(path)  # version 1, with fast settings that the next versions keep
    w = open_window(path)
    w.owner_menu.actions["project_model"].trigger()
    panel = w.owner_menu.dialog.panel
    assert panel.table.rowCount() == 1 and panel.table.item(0, 0).text() == "project@v1"
    assert "4 accepted image(s), 0 of them not in the newest version" in panel.summary.text()
    assert panel.predict_button.isEnabled() and not panel.cancel_button.isVisible()

    worker = panel.train()
    assert worker is not None and not panel.train_button.isEnabled()
    qtbot.waitUntil(lambda: panel.worker is None, timeout=120000)
    assert panel.message.text().startswith("Trained project@v2 on 4 accepted image(s)")
    assert "held-out Dice" in panel.message.text()
    assert panel.table.rowCount() == 2 and panel.table.item(0, 0).text() == "project@v2"
    assert "[" in panel.table.item(0, 3).text()  # the mean and its interval

    panel.train()
    panel.cancel()
    qtbot.waitUntil(lambda: panel.worker is None, timeout=120000)
    assert panel.message.text() == "Cancelled: nothing was stored."
    with Project.open(path) as project:
        assert [v.version for v in project.project_models.all()] == [1, 2]

    panel.predict()
    qtbot.waitUntil(lambda: panel.worker is None, timeout=120000)
    assert panel.message.text().startswith("Predicted 2 image(s)")
    with Project.open(path) as project:
        rater = project.raters.by_name("project@v2")
        assert rater is not None and rater.is_model
        assert len(project.annotations.all(rater_id=rater.id)) == 2

    panel.every.setValue(3)
    panel.smallest.setValue(20)
    panel.apply_button.click()
    assert panel.message.text() == ("Retraining after every 3 newly accepted images; stored "
                                    "predictions keep regions of 20 px and more.")
    with Project.open(path) as project:
        assert retrain_every(project) == 3 and min_region(project) == 20
    assert "retraining after every 3 newly accepted images" in panel.summary.text()
    # the uncertainty order of Owner ▸ Audit and selection order… can read the version's work
    w.owner_menu.dialog.close()
    w.owner_menu.actions["selection"].trigger()
    selection = w.owner_menu.dialog
    # (models first: only v2 predicted, so only v2 is a rater)
    assert selection.rater_box.itemText(0) == "project@v2 (model)"
    assert selection.rater_box.findText("project@v1 (model)") == -1
