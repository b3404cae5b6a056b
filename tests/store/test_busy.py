"""A lock held by another connection beyond the busy timeout is a typed, retryable error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from slicereview.store import Project, ProjectBusyError
from slicereview.store.connection import is_busy

pytestmark = pytest.mark.file_only(
    "SQLite's file locks (another connection's SHARED or RESERVED lock); the server's busy "
    "handling is in test_server.py")


def test_write_under_another_lock_raises_project_busy_and_changes_nothing(tmp_path: Path):
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        project.set_busy_timeout(0.1)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(ProjectBusyError, match="busy") as info:
            project.raters.add("alice")
        assert is_busy(info.value) and not project.db.in_transaction
        with pytest.raises(sqlite3.OperationalError) as read_info:  # reads wait too
            project.raters.all()
        assert is_busy(read_info.value)
        other.execute("COMMIT")
        other.close()
        project.raters.add("alice")  # the same call, retried, lands
        assert [r.name for r in project.raters.all()] == ["alice"]


def test_commit_blocked_by_a_reader_is_rolled_back(tmp_path: Path):
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        project.set_busy_timeout(0.1)
        reader = sqlite3.connect(path, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM raters").fetchone()  # a SHARED lock
        with pytest.raises(ProjectBusyError):
            project.raters.add("bob")
        assert not project.db.in_transaction
        reader.execute("COMMIT")
        reader.close()
        assert project.raters.all() == []
