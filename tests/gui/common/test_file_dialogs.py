"""File dialogs open beside the project file, then in the folder last used for that kind of
file, and in the documents (or home) folder when there is no project file — never in the
program's working directory."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from slicereview.gui.common import file_dialogs
from slicereview.gui.owner.questions import QuestionsDialog
from slicereview.store import Project


def _asked(monkeypatch, answer: Path | None) -> list[str]:
    """Answer every file dialog with ``answer`` and record the folder each one opened in."""
    opened: list[str] = []

    def dialog(_parent, _title, folder="", _filters="", *a, **k):
        opened.append(folder)
        return (str(answer) if answer else "", "")

    for name in ("getSaveFileName", "getOpenFileName"):
        monkeypatch.setattr(QFileDialog, name, dialog)
    return opened


def test_dialogs_open_beside_the_project_then_where_last_used(open_window, qtbot, tmp_path,
                                                              monkeypatch) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    study = tmp_path / "study"
    study.mkdir()
    with Project.create(study / "p.srproj"):
        pass
    w = open_window(study / "p.srproj")
    assert w.gateway.folder == study

    # Export questions: beside the project, with the suggested name
    out = tmp_path / "elsewhere" / "q.json"
    out.parent.mkdir()
    opened = _asked(monkeypatch, out)
    dialog = QuestionsDialog(w.gateway.owner, w)
    qtbot.addWidget(dialog)
    dialog.on_export()
    assert opened == [str(study / "questions.json")]
    assert out.exists()                           # the export itself ran
    # the next questions dialog opens where the last one was saved ...
    opened = _asked(monkeypatch, None)
    dialog.on_import()
    assert opened == [str(out.parent)]
    # ... while another kind (the HTML report, a work package) still opens beside the project
    w.file_menu.open_project()
    assert opened[-1] == str(study)
    assert not any(folder.startswith(str(cwd)) for folder in opened)


def test_without_a_project_file_dialogs_open_in_the_documents_folder(open_window, tmp_path,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    w = open_window()                             # no project (as for a server project)
    assert w.gateway.folder is None
    opened = _asked(monkeypatch, None)
    w.file_menu.open_project()
    assert opened == [str(file_dialogs.documents())]
    assert Path(opened[0]) != tmp_path
    # a remembered folder that was deleted since is not offered
    gone = tmp_path / "gone"
    gone.mkdir()
    file_dialogs.remember_folder("project", gone)
    gone.rmdir()
    w.file_menu.open_project()
    assert opened[-1] == str(file_dialogs.documents())
