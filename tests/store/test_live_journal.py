"""A journal of another process's transaction in progress is live, not a leftover.

Real second processes hold SQLite write transactions open (``BEGIN IMMEDIATE`` + an insert:
RESERVED, with a ``-journal`` on disk; ``BEGIN EXCLUSIVE`` + an insert: EXCLUSIVE) while this
process opens the project. The lock is tested directly (store/locks.py), so opening never calls
such a journal damaged and does not wait for it to disappear; it waits for a lock that stops
reads (EXCLUSIVE) as for any busy file. Leftover journals of killed writers are covered by
test_damaged_projects.py (still detected, still rolled back when they are the project's own).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from slicereview.store import Project, ProjectBusyError, check_file, locks
from slicereview.store.checking import _check_sqlite
from slicereview.store.sidecars import check_journal, has_live_journal, journal_path

pytestmark = pytest.mark.file_only("SQLite's rollback journal beside a project file")

_HOLDER = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    if sys.argv[2] == "spill":  # a big transaction: pages spill into the file under EXCLUSIVE
        conn.execute("PRAGMA cache_size = 2")
        for k in range(3000):
            conn.execute("INSERT INTO meta VALUES (?, ?)", (f"spill{k}", "y" * 300))
    conn.execute("INSERT INTO meta VALUES ('held', 'yes')")
    print("holding", flush=True)
    sys.stdin.readline()  # until the test says so (or closes the pipe)
    conn.execute("COMMIT")
""")

# A second program's transactions, one step at a time on the test's word: ``begin small``
# (RESERVED, a journal whose magic is still zero), ``begin spill`` (pages spill into the file:
# EXCLUSIVE and a live journal), ``commit``, ``recommit small|spill`` (commit and begin the next
# transaction at once). Each step answers with its name and the number of commits so far.
_STEPPED_WRITER = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO meta VALUES (?, '')", [(f"w{j}",) for j in range(100)])
    conn.execute("COMMIT")
    commits = 0

    def begin(size):
        conn.execute("PRAGMA cache_size = " + ("2" if size == "spill" else "-2000"))
        conn.execute("BEGIN IMMEDIATE")
        if size == "spill":
            conn.execute("UPDATE meta SET value = ? WHERE key LIKE 'w%'", (str(commits) * 1000,))
        else:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'w0'", (str(commits),))

    print("ready", flush=True)
    for line in sys.stdin:
        command, *size = line.split()
        if command in ("commit", "recommit"):
            conn.execute("COMMIT")
            commits += 1
        if command in ("begin", "recommit"):
            begin(size[0])
        print(command, commits, flush=True)
""")


class _SteppedWriter:
    """The process running :data:`_STEPPED_WRITER` on ``path``."""

    def __init__(self, path: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _STEPPED_WRITER, str(path)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready"
        self.commits = 0

    def do(self, step: str) -> None:
        """Run ``step`` in the writer and wait until it is done."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(step + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().split()
        assert reply[:1] == step.split()[:1], (step, reply)
        self.commits = int(reply[1])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        assert self.proc.wait(30) == 0


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    path = tmp_path / "live.srproj"
    with Project.create(path, name="live") as project:
        project.raters.add("alice")
    return path


def _hold(path: Path, mode: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path), mode],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("go\n")
    holder.stdin.close()
    assert holder.wait(30) == 0


def test_the_probe_tells_another_process_from_this_one_and_from_none(project_path: Path):
    assert locks.writer(project_path) == locks.NONE
    holder = _hold(project_path, "small")
    try:
        # A transaction that has not spilled has a journal whose magic is still zero (SQLite
        # writes it at the commit): not checked at all, but the probe sees the writer.
        assert journal_path(project_path).exists() and not has_live_journal(project_path)
        assert locks.writer(project_path) == locks.ELSEWHERE
    finally:
        _release(holder)
    assert locks.writer(project_path) == locks.NONE
    own = sqlite3.connect(project_path, isolation_level=None)
    own.execute("BEGIN IMMEDIATE")
    own.execute("INSERT INTO meta VALUES ('own', 'yes')")
    expected = locks.HERE if hasattr(locks.fcntl, "F_OFD_GETLK") else locks.NONE
    assert locks.writer(project_path) == expected
    own.execute("COMMIT")
    own.close()


def test_a_small_transaction_elsewhere_does_not_stop_opening(project_path: Path):
    holder = _hold(project_path, "small")
    try:
        start = time.monotonic()
        with Project.open(project_path) as project:  # readers go on under RESERVED
            opened_s = time.monotonic() - start
            assert project.meta("held") is None  # only what is committed
            assert [r.name for r in project.raters.all()] == ["alice"]
            _release(holder)
            assert project.meta("held") == "yes"  # the other transaction landed
    finally:
        if holder.poll() is None:
            _release(holder)
    assert opened_s < 1.5, opened_s


def test_a_live_journal_elsewhere_is_waited_for_as_a_busy_file_never_damage(
        project_path: Path, monkeypatch):
    from slicereview.store import sidecars

    waits: list[Path] = []
    wait_for_journal = sidecars._wait_for_journal
    monkeypatch.setattr(sidecars, "_wait_for_journal",
                        lambda path: (waits.append(path), wait_for_journal(path))[1])
    holder = _hold(project_path, "spill")  # magic journal on disk, EXCLUSIVE held
    timer: threading.Timer | None = None
    try:
        assert has_live_journal(project_path)
        assert locks.writer(project_path) == locks.ELSEWHERE
        journal = journal_path(project_path).read_bytes()
        with pytest.raises(ProjectBusyError, match="busy"):
            Project.open(project_path, busy_timeout_s=0.2)
        # At once (no wait for the journal to disappear, no copy checked) and untouched.
        assert waits == []
        assert journal_path(project_path).read_bytes() == journal
        timer = threading.Timer(1.0, _release, (holder,))
        timer.start()
        start = time.monotonic()
        with Project.open(project_path, busy_timeout_s=60.0) as project:  # waits, then opens
            waited = time.monotonic() - start
            assert project.meta("held") == "yes" and project.meta("spill2999") is not None
        assert waited > 0.8, waited
    finally:
        if timer is not None:
            timer.join()  # (it releases the holder; releasing it twice would fail)
        if holder.poll() is None and holder.stdin is not None and not holder.stdin.closed:
            _release(holder)
    assert not journal_path(project_path).exists()


def test_our_own_transaction_is_live_and_the_probe_keeps_its_locks(project_path: Path):
    own = sqlite3.connect(project_path, isolation_level=None)
    own.execute("BEGIN IMMEDIATE")
    own.execute("PRAGMA cache_size = 2")
    for k in range(3000):  # spilled: a magic journal, and EXCLUSIVE held by this process
        own.execute("INSERT INTO meta VALUES (?, ?)", (f"own{k}", "y" * 300))
    assert has_live_journal(project_path)
    # A worker thread opening its own connection meanwhile waits as for a busy file.
    with pytest.raises(ProjectBusyError):
        Project.open(project_path, read_only=True, busy_timeout_s=0.2)
    assert locks.writer(project_path) in (locks.HERE, locks.NONE)
    # The probe's descriptor stays open: closing it would have dropped our locks.
    other = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import sqlite3, sys
            conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
            try:
                print(conn.execute("SELECT count(*) FROM meta").fetchone())
            except sqlite3.OperationalError as exc:
                print(exc)
        """), str(project_path)], capture_output=True, text=True, check=True)
    assert "locked" in other.stdout, other.stdout
    own.execute("COMMIT")
    own.close()
    with Project.open(project_path, read_only=True) as worker:
        assert worker.meta("own2999") is not None


#: What the other program does at the moment opening tests its lock (:func:`locks.writer`):
#: (just before the test, just after it, what the test finds). ``{size}``: its transaction's.
MOMENTS = {
    "holds its transaction": ("", "", locks.ELSEWHERE),
    "commits just before the lock test": ("commit", "", locks.NONE),
    "commits just after the lock test": ("", "commit", locks.ELSEWHERE),
    "commits and begins again before the lock test": ("recommit {size}", "", locks.ELSEWHERE),
    "commits before the lock test and begins again after it": ("commit", "begin {size}",
                                                                locks.NONE),
}


def test_opening_again_and_again_beside_a_busy_writer_never_refuses(project_path: Path,
                                                                    monkeypatch):
    """Issue #8/#11: two processes at once; a live journal was once taken for a leftover.

    A busy writer meets opening at any moment; here each moment that matters is made on
    purpose (the writer steps on the test's word, from inside the lock test), with a small and
    a spilled transaction, for the journal check alone and for the whole of opening. None of
    them refuses the project."""
    writer = _SteppedWriter(project_path)
    plan = ["", ""]  # the writer's steps just before and just after the next lock test
    probed: list[str] = []
    probe = locks.writer

    def stepped(path: Path) -> str:
        before, after = plan
        plan[:] = ["", ""]
        if before:
            writer.do(before)
        probed.append(probe(path))
        if after:
            writer.do(after)
        return probed[-1]

    monkeypatch.setattr(locks, "writer", stepped)
    opened = commits = 0
    try:
        for size in ("small", "spill"):  # again and again, at every moment
            for moment, (before, after, found) in MOMENTS.items():
                for whole in (False, True):
                    if whole and size == "spill" and after.startswith("begin"):
                        continue  # opening then waits for the lock, as for a busy file
                    if whole and size == "spill" and not after and before != "commit":
                        after = "commit"  # (so that opening's reading can go on)
                    steps = [f"begin {size}", before.format(size=size),
                             after.format(size=size)]
                    writer.do(steps[0])
                    assert has_live_journal(project_path) == (size == "spill")
                    plan[:] = steps[1:]
                    first = len(probed)
                    if whole:
                        with Project.open(project_path, busy_timeout_s=30.0) as project:
                            assert project.meta("name") == "live"
                        opened += 1
                    else:  # the step that took a live journal for a leftover
                        check_journal(project_path, _check_sqlite)
                    assert probed[first:first + 1] == [found], (size, moment, whole)
                    if [step for step in steps if step][-1].split()[0] != "commit":
                        writer.do("commit")  # (the writer is still in a transaction)
                        commits += 1
                    commits += sum("commit" in step for step in steps)
                    assert not journal_path(project_path).exists()
    finally:
        writer.close()
    assert writer.commits == commits and opened == 2 * len(MOMENTS) - 1


def test_without_a_lock_test_a_journal_gets_time_to_disappear(project_path: Path,
                                                              monkeypatch):
    """Windows (no fcntl): the old wait for another process's commit stays."""
    monkeypatch.setattr(locks, "writer", lambda path: locks.UNKNOWN)
    holder = _hold(project_path, "spill")
    timer = threading.Timer(0.5, _release, (holder,))
    start = time.monotonic()
    timer.start()
    try:
        assert has_live_journal(project_path)
        assert check_file(project_path) > 0  # waited for the journal, then checked the file
        assert time.monotonic() - start > 0.4  # (waited; no upper bound: the machine may be busy)
    finally:
        timer.join()


def locks_wait_s() -> float:
    from slicereview.store.sidecars import ACTIVE_JOURNAL_WAIT_S
    return ACTIVE_JOURNAL_WAIT_S
