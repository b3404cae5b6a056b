"""The lock file beside a project: who else has it open, stale locks recognised."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from slicereview.store.lockfile import ProjectLock, is_stale, lock_path, read_lock

pytestmark = pytest.mark.file_only("the lock file beside a project file")

CHILD = """
import sys, time
from slicereview.store.lockfile import ProjectLock

lock = ProjectLock(sys.argv[1], user="bob")
print("other" if lock.acquire() else "mine", flush=True)
time.sleep(60)
"""


def test_a_second_instance_sees_the_first_and_a_killed_one_is_stale(tmp_path: Path) -> None:
    project = tmp_path / "shared.srproj"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(project)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "mine"
        info = read_lock(project)
        assert info.pid == child.pid and info.user == "bob"
        me = ProjectLock(project, user="ann")
        other = me.acquire()
        assert other is not None and other.pid == child.pid and not me.owned
        assert "by bob since" in other.describe()
        me.release()  # not ours: left alone
        assert read_lock(project).pid == child.pid
    finally:
        child.kill()  # as kill -9: no chance to remove the lock
        child.wait(10)
    assert lock_path(project).exists()
    assert is_stale(read_lock(project))  # same host, process gone
    assert me.heartbeat() is None and me.owned  # the next heartbeat takes it over
    assert read_lock(project).user == "ann"
    me.release()
    assert not lock_path(project).exists()


def test_locks_from_elsewhere_go_stale_only_without_a_heartbeat(tmp_path: Path) -> None:
    project = tmp_path / "p.srproj"
    far = ProjectLock(project, host="workstation-7", pid=999_999_999)
    assert far.acquire() is None
    me = ProjectLock(project)
    assert me.acquire().host == "workstation-7"  # another host: its pid means nothing here
    old = (datetime.now(UTC) - timedelta(hours=3)).isoformat(timespec="seconds")
    data = json.loads(lock_path(project).read_text())
    data["heartbeat"] = old
    lock_path(project).write_text(json.dumps(data))
    assert me.acquire() is None and me.owned
    lock_path(project).write_text("{not json")
    assert read_lock(project) is None and is_stale(None)
    assert me.acquire() is None and read_lock(project).pid == me.info.pid
