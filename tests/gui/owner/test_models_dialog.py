"""Owner ▸ Models…: on real widgets, the model raters listed apart with licence and counts;
predictions imported from files with one line each; an ONNX model run in the background with
its progress and Cancel (the images done are kept); read back from the project file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.store import Project
from tests import onnx_models


def _project(tmp_path: Path, n: int = 3) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for k in range(n):
        img = np.full((96, 128), 300, np.uint16)
        img[20:36, 20 + 25 * k:40 + 25 * k] = 3900
        PILImage.fromarray(img).save(folder / f"mammo{k}.png")
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        project.raters.add("olivia", "owner")
    return path


def test_import_and_run_from_the_models_dialog(qtbot, open_window, tmp_path: Path) -> None:
    path = _project(tmp_path)
    w = open_window(path)
    w.owner_menu.actions["models"].trigger()
    dialog = w.owner_menu.dialog
    assert dialog.table.rowCount() == 0
    masks = tmp_path / "masks"
    masks.mkdir()
    mask = np.zeros((96, 128), np.uint8)
    mask[20:36, 20:40] = 255
    PILImage.fromarray(mask).save(masks / "C000001.png")
    PILImage.fromarray(mask).save(masks / "elsewhere.png")
    dialog.model_name.setText("vendor@2")
    worker = dialog.start_import([masks])
    with qtbot.waitSignal(worker.finished):
        pass
    qtbot.waitUntil(lambda: dialog.cancel_button.isEnabled() is False)
    text = dialog.output.toPlainText()
    assert "matched    C000001.png -> C000001" in text
    assert "unmatched  elsewhere.png" in text and "vendor@2: 1 matched, 1 unmatched" in text
    assert [dialog.table.item(0, c).text() for c in range(5)] == ["vendor@2", "–", "1", "1",
                                                                   "0"]
    onnx, card = tmp_path / "spots.onnx", tmp_path / "spots.json"
    onnx.write_bytes(onnx_models.bright())
    card.write_text(json.dumps(onnx_models.card(name="spots", version="3", licence="MIT")))
    dialog.onnx_file.setText(str(onnx))
    dialog.card_file.setText(str(card))
    seen: list[int] = []
    worker = dialog.start_run()
    worker.progress.connect(lambda done, total, what: seen.append(done))
    with qtbot.waitSignal(worker.finished, timeout=120_000):
        pass
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 2)
    assert "spots@3: 3 image(s) predicted and stored, 0 failed" in dialog.output.toPlainText()
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text()
            for r in range(2)}
    assert rows == {"spots@3": "MIT", "vendor@2": "–"}
    assert seen and dialog.progress.format() == "done"
    with Project.open(path) as project:
        rater = project.raters.by_name("spots@3")
        assert rater.is_model and len(project.annotations.all(rater_id=rater.id)) == 3


def test_cancel_stops_a_run_and_keeps_what_was_done(qtbot, open_window, tmp_path) -> None:
    path = _project(tmp_path, n=4)
    w = open_window(path)
    w.owner_menu.actions["models"].trigger()
    dialog = w.owner_menu.dialog
    onnx, card = tmp_path / "m.onnx", tmp_path / "m.json"
    onnx.write_bytes(onnx_models.bright())
    card.write_text(json.dumps(onnx_models.card(tile={"size": 16, "overlap": 4})))
    dialog.onnx_file.setText(str(onnx))
    dialog.card_file.setText(str(card))
    worker = dialog.start_run()
    assert dialog.cancel_button.isEnabled() and not dialog.run_button.isEnabled()
    # Cancel once the first image is stored (the second one begins)
    worker.progress.connect(lambda done, total, what: what == "C000002"
                            and dialog.cancel_button.click())
    with qtbot.waitSignal(worker.finished, timeout=120_000):  # (a run ends with its report)
        pass
    qtbot.waitUntil(lambda: dialog.run_button.isEnabled())
    assert "(cancelled: the images done are kept)" in dialog.output.toPlainText()
    with Project.open(path) as project:
        rater = project.raters.by_name("test-model@1")
        done = len(project.annotations.all(rater_id=rater.id))
    assert 1 <= done < 4
