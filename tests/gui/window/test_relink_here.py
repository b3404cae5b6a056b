"""File ▸ Relink moved files… on a server project asks whether the files moved for everyone or
are under another folder on this machine only; *Only this machine* keeps the project's paths
and the window shows the images from the folder here (docs/server.md, "Relinking per
machine")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from slicereview.app.images.importing import import_paths
from slicereview.store import Project


def _click(name: str | None, button_text: str, seen: list[str]) -> None:
    """Click ``button_text`` in the next modal message box (of object name ``name``)."""

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox) or (name and box.objectName() != name):
            QTimer.singleShot(20, click)
            return
        seen.append(box.text())
        for button in box.buttons():
            if button.text().replace("&", "") == button_text:
                button.click()
                return
        raise AssertionError(f"no button {button_text!r} in {box.text()!r}")

    QTimer.singleShot(0, click)


def test_relink_on_this_machine_only_from_the_file_menu(qtbot, open_window, tmp_path: Path,
                                                        postgres_cluster, monkeypatch) -> None:
    from skimage import io

    shared = tmp_path / "shared" / "study"
    shared.mkdir(parents=True)
    for k in range(2):
        io.imsave(shared / f"im{k}.png", np.full((30, 40), 500 * (k + 1), np.uint16),
                  check_contrast=False)
    url = postgres_cluster.new_database("relink")
    with Project.create(url) as project:
        import_paths(project, sorted(shared.glob("*.png")), hold=False)
        stored = [s.path for s in project.images.sources()]
    here = tmp_path / "mnt" / "nas"
    here.parent.mkdir()
    (tmp_path / "shared").rename(here)
    w = open_window(url)
    assert len(w.gateway.missing_files()) == 2
    monkeypatch.setattr("slicereview.gui.common.file_dialogs.QFileDialog.getExistingDirectory",
                        lambda *_a, **_k: str(tmp_path / "mnt"))
    seen: list[str] = []
    _click("relink_scope", "Only this machine", seen)
    QTimer.singleShot(50, lambda: _click(None, "OK", seen))
    w.file_menu.relink()
    assert "on this machine only" in seen[0]
    assert seen[1].startswith("Found 2 file(s) on this machine (the project's paths are "
                              "unchanged); 0 still missing")
    assert w.gateway.missing_files() == []
    image = w.gateway.images()[0]
    assert w.gateway.file_of(image) == here / "study" / "im0.png"
    assert float(w.gateway.display(image).data.max()) == 500.0
    with Project.open(url) as project:
        assert [s.path for s in project.images.sources()] == stored  # for everyone: unchanged
    w.close()
    postgres_cluster.drop_database(url)
