"""File ▸ Export work package… and Merge work package…: real dialogs and workers, paths from a
patched QFileDialog, the result checked in the project files."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

from slicereview.demo.workflow import return_package
from slicereview.gui.window.package_dialog import PackageDialog
from slicereview.model import Polygon
from slicereview.store import Project
from tests.app.qa_project import build


@pytest.fixture
def qa_path(tmp_path: Path) -> Path:
    folder = tmp_path / "qa"
    folder.mkdir()
    return build(folder, images=12)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def messages(monkeypatch) -> list[tuple[str, str]]:
    said: list[tuple[str, str]] = []
    for kind in ("information", "warning", "critical"):
        monkeypatch.setattr(QMessageBox, kind, lambda parent, title, text, *a, _k=kind, **k:
                            said.append((_k, text)))
    return said


def test_export_then_merge_back(open_window, qtbot, qa_path: Path, tmp_path: Path,
                                monkeypatch, messages) -> None:
    w = open_window(qa_path)
    assert w.actions_["export_package"].isEnabled() and w.actions_["merge_package"].isEnabled()
    menu = [a.text() for a in w.menuBar().actions()[0].menu().actions()]
    assert "&Export work package…" in menu and "&Merge work package…" in menu

    def choose(dialog: PackageDialog) -> int:
        assert dialog.annotator_box.findText("a0-1") >= 0
        dialog.annotator_box.setCurrentText("a0-1")
        batches = [dialog.batch_box.itemText(k) for k in range(dialog.batch_box.count())]
        assert batches[1:] == ["onboarding", "formal"]      # a0-1 is not in the pilot
        dialog.batch_box.setCurrentText("formal")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(PackageDialog, "exec", choose)
    sent = tmp_path / "a0-1"                               # ".zip" is added
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(sent), ""))
    w.actions_["export_package"].trigger()
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    sent = sent.with_suffix(".zip")
    assert messages[-1][0] == "information" and str(sent) in messages[-1][1]
    with zipfile.ZipFile(sent) as zf:
        assert "manifest.json" in zf.namelist() and "project.srproj" in zf.namelist()

    # the annotator outlines one more region on their first formal image, elsewhere
    def work(remote: Project) -> None:
        rater = remote.raters.by_name("a0-1").id
        ann = remote.annotations.all(rater_id=rater, phase="formal")[0]
        polys = remote.polygons.of(ann.id)
        square = np.array([[50, 50], [58, 50], [58, 58], [50, 58]], float)
        remote.polygons.replace(ann.id, [*polys, Polygon(square)])

    back = return_package(sent, tmp_path / "back.zip", work)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(back), ""))
    w.actions_["merge_package"].trigger()
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    assert messages[-1][0] == "information"
    assert "0 added, 1 updated" in messages[-1][1] and "0 conflicts" in messages[-1][1]
    with Project.open(qa_path) as p:
        ann = p.annotations.all(rater_id=p.raters.by_name("a0-1").id, phase="formal")[0]
        assert any(np.allclose(q.vertices[0], [50, 50]) for q in p.polygons.of(ann.id))
    # merging twice adds nothing
    w.actions_["merge_package"].trigger()
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    assert "0 added, 0 updated" in messages[-1][1]


def test_refused_package_leaves_the_project_untouched(open_window, qtbot, qa_path: Path,
                                                      tmp_path: Path, monkeypatch,
                                                      messages) -> None:
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    other = build(other_folder, images=12, seed=3)
    from slicereview.app.qa.packages import package

    with Project.open(other) as p:
        foreign = package(p, "a2-1", tmp_path / "foreign.zip")
    w = open_window(qa_path)
    before = _sha(qa_path)   # (after opening: looking at a project writes nothing to it)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(foreign), ""))
    w.actions_["merge_package"].trigger()
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    kind, text = messages[-1]
    assert kind == "warning" and "\n" not in text and "project" in text.lower()
    assert _sha(qa_path) == before


def test_the_annotator_opens_the_package_zip_with_file_open(open_window, qtbot, qa_path: Path,
                                                            tmp_path: Path, monkeypatch,
                                                            messages) -> None:
    """File ▸ Open project… accepts the zip: it is unpacked beside itself and opened; the
    annotator outlines a region in the Annotate tab and the edit is in the unpacked project."""
    from slicereview.app.qa.packages import package
    from tests.gui.annotate.test_annotate import _click

    (tmp_path / "inbox").mkdir()
    with Project.open(qa_path) as p:
        sent = package(p, "a0-1", tmp_path / "inbox" / "a0-1.zip", batch="formal")
    w = open_window(None)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(sent), ""))
    w.file_menu.open_project()                        # checked and unpacked in a worker:
    assert w.packages.worker is not None and not w.gateway.is_open  # the GUI thread is free
    qtbot.waitUntil(lambda: w.packages.worker is None and w.gateway.is_open, timeout=30000)
    unpacked = tmp_path / "inbox" / "a0-1" / "project.srproj"
    assert not messages and w.gateway.is_open and w.gateway.open_project.path == unpacked
    assert w.browser.image_ids() and not w.gateway.missing_files()
    w.tabs.setCurrentWidget(w.annotate_page)
    page = w.annotate_page
    me = w.gateway.open_project.raters.by_name("a0-1").id
    page.select_you(me)
    page.select_annotator(me)
    qtbot.waitUntil(lambda: page.view.display is not None)

    def stored() -> int:
        with Project.open(unpacked) as remote:
            return sum(len(remote.polygons.of(a.id)) for a in remote.annotations.all(rater_id=me)
                       if a.image_id == page.image_id)

    before = stored()
    for x, y in [(10, 10), (40, 12), (38, 40), (12, 36), (10.3, 10.2)]:
        _click(qtbot, page, x, y)
    assert stored() == before + 1                # written through to the unpacked project


def test_a_damaged_package_zip_is_refused_by_file_open(open_window, qtbot, qa_path: Path,
                                                       tmp_path: Path, monkeypatch,
                                                       messages) -> None:
    """A zip whose image does not match its manifest: one-line warning, no folder written,
    the window stays usable (the check runs in the worker, off the GUI thread)."""
    from slicereview.app.qa.packages import package

    with Project.open(qa_path) as p:
        sent = package(p, "a0-1", tmp_path / "a0-1.zip", batch="formal")
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(sent) as src, zipfile.ZipFile(damaged, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.startswith("images/"):
                data = data[:-1] + bytes([data[-1] ^ 0xFF])  # one byte of an image changed
            dst.writestr(info, data)
    w = open_window(None)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(damaged), ""))
    w.file_menu.open_project()
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    kind, text = messages[-1]
    assert kind == "warning" and "damaged" in text and "\n" not in text
    assert not w.gateway.is_open and not (tmp_path / "damaged").exists()


def test_package_refusals_are_plain_words_in_the_gui(open_window, qtbot, qa_path: Path,
                                                     tmp_path: Path, monkeypatch,
                                                     messages) -> None:
    """Merge work package… and File ▸ Open project… say what happened and what to do, never
    zipfile's "(File is not a zip file)"; nothing is written."""
    notes = tmp_path / "notes.zip"
    notes.write_text("these are my notes")
    w = open_window(qa_path)
    before = _sha(qa_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(notes), ""))
    w.actions_["merge_package"].trigger()
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    kind, text = messages[-1]
    assert kind == "warning" and text == (
        "notes.zip is not a zip file (or it was cut short), so nothing was merged; a work "
        "package is the .zip that slicereview wrote for an annotator: check that this is the "
        "right file, or ask for the package again.")
    assert _sha(qa_path) == before
    w.file_menu.open_project()                                  # the annotator's side
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    kind, text = messages[-1]
    assert kind == "warning" and text.startswith("notes.zip is not a zip file") and \
        "so nothing was unpacked;" in text and "File is not" not in text
    assert not (tmp_path / "notes").exists() and _sha(qa_path) == before
