"""File ▸ Connect to server…: typed URL, recent URLs (never a password), the project opened
like a file, a bad URL or a missing database said, and the password asked for when the server
wants one (a cluster of its own with password logins: scram-sha-256)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit, QMessageBox

from slicereview.gui.common import settings as user_settings
from slicereview.store import Project


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("connect")
    with Project.create(made, name="team study") as project:
        project.raters.add("anna")
    yield made
    postgres_cluster.drop_database(made)


def _connect(qtbot, w, text: str):
    w.actions_["connect_server"].trigger()
    dialog = w.file_menu.server_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.combo.setFocus()
    dialog.combo.lineEdit().clear()
    qtbot.keyClicks(dialog.combo.lineEdit(), text)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    return dialog


def test_connect_opens_the_project_and_remembers_the_url(qtbot, open_window, url) -> None:
    w = open_window()
    assert "connect_server" in {a.objectName().removeprefix("action_")
                                for a in w.menuBar().actions()[0].menu().actions()}
    _connect(qtbot, w, url)
    qtbot.waitUntil(lambda: w.gateway.is_open, timeout=10000)
    assert w.gateway.open_project.is_server
    assert w.windowTitle().startswith("team study")
    assert user_settings.recent_servers()[0] == url
    w.gateway.close()
    # the next time the URL is offered: in the dialog, on the start page, in Open recent
    w.actions_["connect_server"].trigger()
    dialog = w.file_menu.server_dialog
    assert dialog.combo.itemText(0) == url
    dialog.reject()
    w.start_page.refresh()
    items = w.start_page.recent.findItems(url, Qt.MatchFlag.MatchExactly)
    assert len(items) == 1
    w.start_page._open_recent(items[0])
    assert w.gateway.is_open and w.gateway.open_project.is_server
    w.gateway.close()
    w.recent_menu.aboutToShow.emit()
    [action] = [a for a in w.recent_menu.actions() if a.text() == url]
    action.trigger()
    assert w.gateway.is_open and w.gateway.open_project.is_server


def test_a_url_that_is_not_one_and_a_missing_database_are_said(
        qtbot, open_window, url, monkeypatch) -> None:
    said: list[str] = []
    monkeypatch.setattr("slicereview.gui.window.file_actions.QMessageBox.critical",
                        lambda _parent, _title, text: said.append(text))
    w = open_window()
    dialog = _connect(qtbot, w, "/home/anna/study.srproj")
    assert dialog.isVisible() and "postgresql://" in dialog.problem.text()
    dialog.reject()
    missing = url.replace("/connect", "/nosuchdb")
    _connect(qtbot, w, missing)
    qtbot.waitUntil(lambda: bool(said), timeout=10000)
    assert "no such database" in said[0] and not w.gateway.is_open
    assert user_settings.recent_servers() == []


def test_an_empty_database_is_offered_to_become_a_project(
        qtbot, open_window, postgres_cluster, monkeypatch) -> None:
    empty = postgres_cluster.new_database("empty")
    asked: list[str] = []
    answers = iter([QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
    monkeypatch.setattr("slicereview.gui.window.file_actions.QMessageBox.question",
                        lambda _parent, _title, text: asked.append(text) or next(answers))
    w = open_window()
    _connect(qtbot, w, empty)
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=10000)
    assert "is an empty database" in asked[0] and not w.gateway.is_open
    assert user_settings.recent_servers() == []
    _connect(qtbot, w, empty)  # Yes: made and opened
    qtbot.waitUntil(lambda: w.gateway.is_open, timeout=10000)
    assert w.gateway.open_project.is_server and user_settings.recent_servers() == [empty]
    w.gateway.close()
    postgres_cluster.drop_database(empty)


@pytest.fixture(scope="module")
def password_cluster(postgres_cluster):
    """A cluster that asks every login for a password."""
    from tests.postgres_cluster import Cluster

    cluster = Cluster(postgres_cluster.bin, postgres_cluster.root.parent)
    cluster.admin("CREATE ROLE anna LOGIN PASSWORD 'pa:ss w@rd'")
    cluster.admin("CREATE DATABASE study OWNER anna")
    hba = cluster.data / "pg_hba.conf"
    cluster.admin(f"COPY (SELECT 'local all {cluster.user} trust' UNION ALL "
                  "SELECT 'local all all scram-sha-256') TO "
                  f"'{hba}'")
    cluster.admin("SELECT pg_reload_conf()")
    yield cluster
    cluster.stop()


def test_a_password_is_asked_for_and_never_remembered(
        qtbot, open_window, password_cluster, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    url = f"postgresql://anna@/study?host={password_cluster.socket}"
    Project.create(url.replace("anna@", "anna:pa%3Ass%20w%40rd@"), name="locked").close()
    w = open_window()
    _connect(qtbot, w, url)
    qtbot.waitUntil(lambda: type(w.file_menu.server_dialog).__name__ == "PasswordDialog",
                    timeout=10000)
    asked = w.file_menu.server_dialog
    qtbot.waitUntil(asked.isVisible)
    field = asked.findChild(QLineEdit)
    assert field.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(field, "pa:ss w@rd")
    asked.accept()
    qtbot.waitUntil(lambda: w.gateway.is_open, timeout=10000)
    assert w.windowTitle().startswith("locked")
    assert user_settings.recent_servers()[0] == url
    stored = (Path(user_settings.config_dir()) / "settings.ini").read_text()
    assert "pa:ss" not in stored and "w%40rd" not in stored and "w@rd" not in stored


def test_open_url_asks_for_the_password_too(
        qtbot, open_window, password_cluster, monkeypatch, tmp_path: Path) -> None:
    """`slicereview open URL` (the window's open_project) asks for the password as the
    Connect dialog does (it said "Cannot open project: ... Type it when slicereview asks",
    and nothing asked)."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    password_cluster.admin("CREATE DATABASE opened OWNER anna")
    url = f"postgresql://anna@/opened?host={password_cluster.socket}"
    Project.create(url.replace("anna@", "anna:pa%3Ass%20w%40rd@"), name="opened").close()
    w = open_window()
    refused: list[str] = []

    def close_boxes() -> None:  # (a modal "Cannot open project" would wait for ever)
        for box in QApplication.topLevelWidgets():
            if isinstance(box, QMessageBox) and box.isVisible():
                refused.append(box.text())
                box.done(0)

    QTimer.singleShot(2000, close_boxes)
    assert not w.open_project(url)  # not yet: the password is asked for
    assert refused == []
    asked = w.file_menu.server_dialog
    assert type(asked).__name__ == "PasswordDialog"
    qtbot.waitUntil(asked.isVisible)
    qtbot.keyClicks(asked.findChild(QLineEdit), "pa:ss w@rd")
    asked.accept()
    qtbot.waitUntil(lambda: w.gateway.is_open, timeout=10000)
    assert w.windowTitle().startswith("opened")


def test_a_wrong_password_is_asked_for_again(
        qtbot, open_window, password_cluster, monkeypatch, tmp_path: Path) -> None:
    """Issue 31: after a wrong password the window said "Cannot open project" and stopped;
    it asks again, saying the password was refused, and the right one opens the project."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    password_cluster.admin("CREATE DATABASE retried OWNER anna")
    url = f"postgresql://anna@/retried?host={password_cluster.socket}"
    Project.create(url.replace("anna@", "anna:pa%3Ass%20w%40rd@"), name="retried").close()
    w = open_window()
    boxes: list[str] = []

    def close_boxes() -> None:
        for box in QApplication.topLevelWidgets():
            if isinstance(box, QMessageBox) and box.isVisible():
                boxes.append(box.text())
                box.done(0)

    assert not w.open_project(url)
    first = w.file_menu.server_dialog
    qtbot.waitUntil(first.isVisible)
    qtbot.keyClicks(first.findChild(QLineEdit), "not it")
    QTimer.singleShot(3000, close_boxes)  # (a "Cannot open project" would wait for ever)
    first.accept()
    qtbot.waitUntil(lambda: w.file_menu.server_dialog is not first, timeout=10000)
    again = w.file_menu.server_dialog
    assert type(again).__name__ == "PasswordDialog" and "refused" in again.labelText()
    qtbot.waitUntil(again.isVisible)
    qtbot.keyClicks(again.findChild(QLineEdit), "pa:ss w@rd")
    again.accept()
    qtbot.waitUntil(lambda: w.gateway.is_open, timeout=10000)
    assert w.windowTitle().startswith("retried") and boxes == []
