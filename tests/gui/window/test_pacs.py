"""File ▸ Import from PACS… against a real Orthanc: the study list (date, modality,
description, number of images), the search box, the import with its progress dialog, and the
viewer showing an imported image after its cache was deleted."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydicom.data import get_testdata_file

from slicereview.gui.window.main_window import MainWindow
from slicereview.gui.window.pacs_dialog import PacsDialog
from slicereview.store import Project
from tests.orthanc_server import PASSWORD, USER, start


@pytest.fixture(scope="module")
def orthanc(tmp_path_factory):
    server = start(tmp_path_factory.mktemp("orthanc"))
    try:
        for name in ("CT_small.dcm", "MR_small.dcm"):
            server.upload(get_testdata_file(name))
        yield server
    finally:
        server.stop()


@pytest.fixture
def window(open_window, tmp_path: Path, monkeypatch) -> MainWindow:
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_CACHE", str(tmp_path / "cache"))
    for name in ("SLICEREVIEW_DICOMWEB_USER", "SLICEREVIEW_DICOMWEB_PASSWORD",
                 "SLICEREVIEW_DICOMWEB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "p.srproj"
    Project.create(path).close()
    return open_window(path, size=None, exposed=False)


def _dialog(window, qtbot, orthanc, password=PASSWORD, search="") -> PacsDialog:
    dialog = PacsDialog(window)
    qtbot.addWidget(dialog)
    dialog.url_edit.setText(orthanc.dicomweb)
    dialog.user_edit.setText(USER)
    dialog.password_edit.setText(password)
    dialog.search_edit.setText(search)
    dialog.search_button.click()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=30000)
    return dialog


def test_list_search_import_and_show_after_cache_loss(window, qtbot, orthanc, tmp_path):
    assert window.actions_["import_pacs"].isEnabled()
    dialog = _dialog(window, qtbot, orthanc)
    table = dialog.table
    rows = {table.item(r, 1).text(): [table.item(r, c).text() for c in range(4)]
            for r in range(table.rowCount())}
    assert rows["CT"][0] == "2004-01-19" and rows["CT"][3] == "1"
    assert set(rows) == {"CT", "MR"}
    assert not dialog.import_button.isEnabled()
    searched = _dialog(window, qtbot, orthanc, search="e")  # CT_small's description: e+1
    assert searched.table.rowCount() == 1 and searched.table.item(0, 1).text() == "CT"
    by_date = _dialog(window, qtbot, orthanc, search="2004-08-26")  # MR_small's date
    assert by_date.table.rowCount() == 1 and by_date.table.item(0, 1).text() == "MR"
    table.selectAll()
    assert dialog.import_button.isEnabled() and len(dialog.chosen()) == 2
    worker = window.pacs.start_import(dialog.url(), dialog.auth(), dialog.chosen())
    with qtbot.waitSignal(worker.finished, timeout=120000) as blocker:
        pass
    assert blocker.args[0].added_images == 2
    qtbot.waitUntil(lambda: len(window.browser.image_ids()) == 2, timeout=10000)
    for file in (tmp_path / "cache").glob("*.dcm"):
        file.unlink()
    window.gateway.cache.clear()
    for image_id in window.browser.image_ids():
        assert window.show_image(image_id), window.image_label.text()
    assert len(list((tmp_path / "cache").glob("*.dcm"))) == 2  # fetched again
    # (issue 31) opened again: on the project's PACS, the studies imported marked as such
    again = PacsDialog(window, imported=window.gateway.pacs_studies())
    qtbot.addWidget(again)
    assert again.url() == orthanc.dicomweb
    again.user_edit.setText(USER)
    again.password_edit.setText(PASSWORD)
    again.search_button.click()
    qtbot.waitUntil(lambda: again.worker is None, timeout=30000)
    assert [again.table.item(r, 4).text() for r in range(again.table.rowCount())] == [
        "imported", "imported"]
    assert "2 of them are in the project already" in again.status.text()


def test_a_refused_login_is_one_sentence_under_the_list(window, qtbot, orthanc):
    dialog = _dialog(window, qtbot, orthanc, password="wrong")
    assert dialog.table.rowCount() == 0
    assert "refused access (HTTP 401" in dialog.status.text()


def test_login_is_asked_when_a_refetch_is_refused(window, qtbot, orthanc, tmp_path,
                                                  monkeypatch):
    """A new session (no credentials in memory, none in the environment) whose cache is gone:
    showing an image asks for a log-in once, then fetches it."""
    from slicereview.engines.dicomweb.http import Auth
    from slicereview.gui.window import pacs_dialog

    worker = window.pacs.start_import(orthanc.dicomweb, Auth.basic(USER, PASSWORD), [])
    with qtbot.waitSignal(worker.finished, timeout=120000):
        pass
    qtbot.waitUntil(lambda: len(window.browser.image_ids()) == 2, timeout=10000)
    for file in (tmp_path / "cache").glob("*.dcm"):
        file.unlink()
    window.gateway.cache.clear()
    window.gateway.credentials.set(orthanc.dicomweb, None)  # as in a new session
    asked: list[str] = []

    def answer(dialog):
        asked.append(dialog.windowTitle())
        dialog.user_edit.setText(USER)
        dialog.password_edit.setText(PASSWORD)
        return pacs_dialog.LoginDialog.DialogCode.Accepted

    monkeypatch.setattr(pacs_dialog.LoginDialog, "exec", answer)
    image_id = window.browser.image_ids()[0]
    assert window.show_image(image_id), window.image_label.text()
    assert asked == ["Log in to the PACS"]


def test_the_listing_is_counted_in_the_progress_dialog_and_cancel_stops_it(window, qtbot,
                                                                            orthanc, tmp_path):
    """Import from PACS… of the chosen studies: while their series are listed the progress
    dialog says which study of how many, and Cancel there stops the import with nothing added.
    A relay holds the second study's series query until Cancel was pressed (no race)."""
    from PySide6.QtWidgets import QPushButton

    from slicereview.app.images.pacs_listing import list_studies
    from slicereview.engines.dicomweb.http import Auth
    from tests.gated_proxy import GatedProxy

    auth = Auth.basic(USER, PASSWORD)
    studies = [s.study_uid for s in list_studies(orthanc.dicomweb, auth).rows]
    assert len(studies) == 2
    proxy = GatedProxy(orthanc.url)
    try:
        reached = proxy.hold(r"/studies/[0-9.]+/series$", nth=2)
        worker = window.pacs.start_import(f"{proxy.url}/dicom-web", auth, studies)
        assert worker is not None and reached.wait(120)
        progress = window.file_menu._import_dialog
        assert progress is not None
        qtbot.waitUntil(lambda: progress.labelText() == "Listing study 2 of 2…", timeout=30000)
        assert (progress.value(), progress.maximum()) == (1, 2)
        progress.findChild(QPushButton).click()               # Cancel, as the user presses it
        proxy.release()
        with qtbot.waitSignal(worker.finished, timeout=120000) as blocker:
            pass
    finally:
        proxy.stop()
    report = blocker.args[0]
    assert report.cancelled and report.added_files == 0
    assert window.file_menu.import_worker is None and window.browser.image_ids() == []
    assert not [p for p in proxy.paths if "/instances/" in p.split("?")[0]]  # nothing fetched
    with Project.open(window.gateway.project.location) as project:
        assert project.images.all() == []
