"""The whole-file checks of a project file run once per process for a file that has not
changed since: a second open of a settled file skips them, any change checks again."""

from __future__ import annotations

import os
import time

import pytest

from slicereview.model import NewImage
from slicereview.store import Project, connection


@pytest.mark.file_only("the checks of a project file's bytes (SQLite's quick_check, UTF-8)")
def test_a_settled_file_is_scanned_once_and_again_after_a_change(tmp_path, monkeypatch):
    scans = []
    scan = connection.undecodable_text
    monkeypatch.setattr(connection, "undecodable_text", lambda c: scans.append(1) or scan(c))
    path = tmp_path / "p.srproj"
    Project.create(path).close()
    before = len(scans)
    for _ in range(2):  # just written: checked every time
        connection.check_file(path)
    assert len(scans) == before + 2
    old = time.time_ns() - 60 * 10**9
    os.utime(path, ns=(old, old))
    for _ in range(3):
        connection.check_file(path)
    assert len(scans) == before + 3  # settled: once
    (tmp_path / "x.png").write_bytes(b"x")
    with Project.open(path) as p:  # (opening checks it: the one scan of this stamp)
        p.images.add_source(tmp_path / "x.png", "a" * 64, "png", [NewImage(2, 2)])
    assert len(scans) == before + 3
    connection.check_file(path)
    assert len(scans) == before + 4  # changed since: checked again
    (tmp_path / "p.srproj-journal").write_bytes(b"")
    os.utime(path, ns=(old, old))
    connection.check_file(path)  # (an empty journal is not hot)
    assert len(scans) == before + 5  # a journal beside it: always checked
