"""Owner ▸ Privacy…: the setting shown, a change asked for with a confirmation that says what
changes (No changes nothing; Yes records it with who and when), the images to check before
sharing listed; on real widgets, read back from the project file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from slicereview.app.images.importing import import_paths
from slicereview.model import SharedImages, SharedNames
from slicereview.store import Project
from tests import privacy_sentinels as sentinels


def _answer(button: QMessageBox.StandardButton, said: list[str]) -> None:
    for box in QApplication.topLevelWidgets():
        if isinstance(box, QMessageBox) and box.objectName() == "confirm_privacy":
            said.append(box.text())
            box.done(button)
            return
    QTimer.singleShot(50, lambda: _answer(button, said))  # (not shown yet: look again)


def test_privacy_dialog_changes_only_when_confirmed(qtbot, open_window, tmp_path: Path):
    folder = tmp_path / "in"
    folder.mkdir()
    sentinels.dicom(folder / "a.dcm", 0, modality="US")
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        import_paths(project, [folder / "a.dcm"])
        project.raters.add("olivia", "owner")
    w = open_window(path)
    w.owner_menu.actions["privacy"].trigger()
    dialog = w.owner_menu.dialog
    assert dialog.deidentified.isChecked() and dialog.case_ids.isChecked()
    assert "(the default)" in dialog.state.text()
    assert "C000001: it is an ultrasound image" in dialog.flagged.toPlainText()
    dialog.originals.click()
    said: list[str] = []
    QTimer.singleShot(0, lambda: _answer(QMessageBox.StandardButton.No, said))
    dialog.apply_button.click()
    assert "ORIGINAL image files" in said[0]
    assert dialog.message.text() == "Nothing was changed." and dialog.deidentified.isChecked()
    with Project.open(path) as project:
        assert project.privacy.log() == []
    dialog.originals.click()
    dialog.file_names.click()
    QTimer.singleShot(0, lambda: _answer(QMessageBox.StandardButton.Yes, said))
    dialog.apply_button.click()
    assert "file name" in said[1] and dialog.message.text() == "Saved."
    assert "the ORIGINAL files, named by file name" in dialog.state.text()
    with Project.open(path) as project:
        [entry] = project.privacy.log()
        assert (entry.images, entry.names) == (SharedImages.ORIGINALS, SharedNames.FILE_NAMES)
    assert "originals, file_names" in dialog.log.toPlainText()
