"""The whole-file checks of a project file run once for a file that has not changed since, in
this process and in later ones (store/verdicts.py): a second open of a settled file skips
them, any change -- a commit, bytes written by another tool, times put back -- checks again,
and damage made after a file was found healthy is still refused."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from slicereview.model import NewImage
from slicereview.store import DamagedProjectError, Project, checking, verdicts

pytestmark = pytest.mark.file_only("the checks of a project file's bytes (quick_check, UTF-8)")

SETTLE = 0.2  # (the real 2 s would make these tests slow)


@pytest.fixture
def scans(monkeypatch):
    found: list[int] = []
    scan = checking.undecodable_text
    monkeypatch.setattr(checking, "undecodable_text", lambda c: found.append(1) or scan(c))
    monkeypatch.setattr(verdicts, "SETTLED_S", SETTLE)
    return found


def settle() -> None:
    time.sleep(SETTLE * 1.5)


def forget_this_process() -> None:
    checking._CHECKED.clear()


def test_a_settled_file_is_scanned_once_and_again_after_a_change(tmp_path, scans):
    path = tmp_path / "p.srproj"
    Project.create(path).close()
    before = len(scans)
    for _ in range(2):  # just written: checked every time
        checking.check_file(path)
    assert len(scans) == before + 2
    settle()
    for _ in range(3):
        checking.check_file(path)
    assert len(scans) == before + 3  # settled: once
    (tmp_path / "x.png").write_bytes(b"x")
    with Project.open(path) as p:  # (opening checks it: the one scan of this stamp)
        p.images.add_source(tmp_path / "x.png", "a" * 64, "png", [NewImage(2, 2)])
    assert len(scans) == before + 3
    settle()
    checking.check_file(path)
    assert len(scans) == before + 4  # changed since: checked again
    (tmp_path / "p.srproj-journal").write_bytes(b"")
    settle()
    checking.check_file(path)  # (an empty journal is not hot)
    assert len(scans) == before + 5  # a journal beside it: always checked


def test_the_verdict_outlives_the_process_until_the_file_changes(tmp_path, scans):
    path = tmp_path / "p.srproj"
    Project.create(path).close()
    settle()
    checking.check_file(path)
    forget_this_process()  # as a later run of slicereview
    checking.check_file(path)
    n = len(scans)
    old = os.stat(path)
    path.write_bytes(path.read_bytes())  # the same bytes written again (another tool)...
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # ... with its times put back
    assert os.stat(path).st_size == old.st_size and os.stat(path).st_mtime_ns == old.st_mtime_ns
    settle()
    forget_this_process()
    checking.check_file(path)
    assert len(scans) == n + 1  # the change time moved: checked again


def test_another_process_reuses_the_verdict(tmp_path, scans):
    path = tmp_path / "p.srproj"
    Project.create(path).close()
    settle()
    checking.check_file(path)
    code = ("import sys; from slicereview.store import checking, verdicts; calls = []; "
            f"verdicts.SETTLED_S = {SETTLE}; "
            "scan = checking.undecodable_text; "
            "checking.undecodable_text = lambda c: calls.append(1) or scan(c); "
            "checking.check_file(sys.argv[1]); print(len(calls))")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, check=True, env={**os.environ})
    assert done.stdout.strip() == "0"


def test_damage_after_a_healthy_verdict_is_refused(tmp_path, scans):
    """Text made invalid after the file was found healthy (the damage quick_check passes):
    every later opening, in this process or another, refuses it."""
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        project.raters.add("rater-007-" + "x" * 40)
    settle()
    checking.check_file(path)
    data = bytearray(path.read_bytes())
    data[data.index(b"rater-007-") + 12] = 0xB5
    path.write_bytes(bytes(data))
    for read_only in (True, False):
        with pytest.raises(DamagedProjectError, match="not valid UTF-8"):
            Project.open(path, read_only=read_only)
    settle()
    forget_this_process()
    with pytest.raises(DamagedProjectError, match="not valid UTF-8"):
        checking.check_file(path)


def test_a_read_that_meets_damage_says_so(tmp_path):
    """Damage that appears while the project is open (after its checks) is named by the
    store the way the checks name it, not as SQLite's raw error."""
    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        project.raters.add("rater-007-" + "x" * 40)
    with (pytest.raises(DamagedProjectError, match="not valid UTF-8") as info,
          Project.open(path, read_only=True) as project):
        data = bytearray(path.read_bytes())
        data[data.index(b"rater-007-") + 12] = 0xB5
        path.write_bytes(bytes(data))
        project.raters.all()
    assert "\n" not in str(info.value) and str(path) in str(info.value)
