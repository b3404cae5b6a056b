"""Damaged and tampered project files are refused with one line, and never changed.

Each case makes a real project, damages it (or puts a foreign sidecar file beside it), then
opens it read-write and read-only: both must raise a :class:`ProjectError` whose message is one
line naming the file, and the project's SHA-256 and the folder's file list must not change.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from slicereview.model import NewImage
from slicereview.store import DamagedProjectError, Project, ProjectError, check_file, verdicts
from slicereview.store.schema import SCHEMA_VERSION
from slicereview.store.sidecars import JOURNAL_MAGIC

pytestmark = pytest.mark.file_only("damaged project files and their sidecar files, byte for byte")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    path = tmp_path / "study.srproj"
    with Project.create(path, name="study") as project:
        for k in range(30):
            project.raters.add(f"rater-{k:03d}-" + "x" * 200, "annotator")
        for k in range(10):
            frames = [NewImage(rows=8, cols=8, frame=f) for f in range(3)]
            image = tmp_path / "data" / f"img{k}.png"
            image.parent.mkdir(exist_ok=True)
            image.write_bytes(bytes([k]) * 100)
            project.images.add_source(image, f"{k:064x}", "png", frames)
    return path


# A writer that dies in the middle of a big transaction, leaving a hot journal behind
# (a tiny page cache makes SQLite spill changed pages to the file before the commit).
_CRASHING_WRITER = textwrap.dedent("""
    import os, sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA cache_size = 2")
    conn.execute("BEGIN IMMEDIATE")
    for k in range(3000):
        conn.execute(sys.argv[2], (k, "y" * 300))
    os._exit(0)
""")


def _hot_journal(db: Path, insert: str) -> Path:
    subprocess.run([sys.executable, "-c", _CRASHING_WRITER, str(db), insert], check=True)
    journal = db.with_name(db.name + "-journal")
    assert journal.read_bytes()[:8] == JOURNAL_MAGIC
    return journal


def _foreign_journal(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "notes.db"
    other.parent.mkdir()
    conn = raw(other)
    conn.execute("CREATE TABLE notes (k INTEGER, text TEXT)")
    conn.executemany("INSERT INTO notes VALUES (?, ?)", [(k, "z" * 300) for k in range(400)])
    conn.close()
    journal = _hot_journal(other, "INSERT INTO notes VALUES (?, ?)")
    shutil.copyfile(journal, project.with_name(project.name + "-journal"))


def _other_projects_journal(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "other.srproj"
    other.parent.mkdir()
    Project.create(other).close()
    journal = _hot_journal(other, "INSERT INTO meta VALUES ('k' || ?, ?)")
    shutil.copyfile(journal, project.with_name(project.name + "-journal"))


def _foreign_wal(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "wal.db"
    other.parent.mkdir()
    conn = raw(other)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    shutil.copyfile(other.with_name("wal.db-wal"), project.with_name(project.name + "-wal"))
    conn.close()


def _truncate(project: Path, tmp_path: Path) -> None:
    data = project.read_bytes()
    project.write_bytes(data[: len(data) * 2 // 3])


def _flip_bytes(project: Path, tmp_path: Path) -> None:
    data = bytearray(project.read_bytes())
    rng = random.Random(7)
    for _ in range(64):
        k = rng.randrange(4096, len(data))
        data[k] ^= 0xFF
    project.write_bytes(bytes(data))


def _sql(*statements: str) -> Callable[[Path, Path], None]:
    def tamper(project: Path, tmp_path: Path) -> None:
        conn = raw(project)
        for statement in statements:
            conn.execute(statement)
        conn.close()
    return tamper


def _garbage_journal(project: Path, tmp_path: Path) -> None:
    """Not a journal at all (SQLite took it for a hot one and deleted it)."""
    project.with_name(project.name + "-journal").write_bytes(random.Random(3).randbytes(5000))


def _zeroed_journal(project: Path, tmp_path: Path) -> None:
    """A journal-named file of zeros: SQLite ignores it on reading, overwrites it on writing."""
    project.with_name(project.name + "-journal").write_bytes(bytes(4096))


def _bad_utf8_text(project: Path, tmp_path: Path) -> None:
    """A flipped byte inside a rater's name: the page is intact for quick_check, but the text
    is no longer UTF-8."""
    data = bytearray(project.read_bytes())
    at = data.index(b"rater-007-") + 12
    data[at] = 0xB5
    project.write_bytes(bytes(data))


CASES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "garbage journal": (_garbage_journal, "move that file to another folder"),
    "zeroed journal": (_zeroed_journal, "move that file to another folder"),
    "text not UTF-8": (_bad_utf8_text, "is not valid UTF-8"),
    "truncated": (_truncate, "restore it from a backup"),
    "flipped": (_flip_bytes, "restore it from a backup"),
    "foreign journal": (_foreign_journal, "move that file to another folder"),
    "other project's journal": (_other_projects_journal, "move that file to another folder"),
    "foreign wal": (_foreign_wal, "move that file to another folder"),
    "missing table": (_sql("DROP TABLE guidelines"), "table guidelines is missing"),
    "changed column": (_sql("ALTER TABLE raters ADD COLUMN note TEXT"),
                       "the columns of table raters differ"),
    "injected trigger": (_sql(
        "CREATE TRIGGER wipe AFTER INSERT ON answers BEGIN DELETE FROM answers; END"),
        "unknown trigger wipe"),
    "injected view": (_sql("CREATE VIEW v AS SELECT * FROM raters"), "unknown view v"),
    "unknown index": (_sql("CREATE INDEX u ON raters (role)"), "unknown index u"),
    "version zero": (_sql("PRAGMA user_version = 0"), f"PRAGMA user_version = {SCHEMA_VERSION}"),
    "negative version": (_sql("PRAGMA user_version = -3"), "damaged project format number"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_damaged_project_is_refused_untouched(project_path: Path, tmp_path: Path, case: str,
                                              monkeypatch: pytest.MonkeyPatch):
    damage, needle = CASES[case]
    # Found healthy first, its verdict kept (store/verdicts.py): damage made since is refused
    # all the same, as any write changes the file's stamp.
    monkeypatch.setattr(verdicts, "SETTLED_S", 0.2)
    time.sleep(0.3)
    check_file(project_path)
    assert verdicts.recall(verdicts.stamp(project_path)) == SCHEMA_VERSION
    damage(project_path, tmp_path)
    before = sha256(project_path)
    siblings = sorted(p.name for p in project_path.parent.iterdir())
    sidecars = {p.name: sha256(p) for p in project_path.parent.iterdir() if p.is_file()}
    for read_only in (False, True):
        with pytest.raises(ProjectError) as info:
            Project.open(project_path, read_only=read_only)
        message = str(info.value)
        assert "\n" not in message and str(project_path) in message
        assert needle in message, message
        assert "write access" not in message  # advice that would then fail
        assert "Error" not in message and "sqlite3." not in message  # no raw exception text
    with pytest.raises(ProjectError):
        check_file(project_path)
    assert sha256(project_path) == before
    assert sorted(p.name for p in project_path.parent.iterdir()) == siblings
    assert {p.name: sha256(p) for p in project_path.parent.iterdir() if p.is_file()} == sidecars


def test_quick_check_output_never_breaks_the_line(project_path: Path):
    data = bytearray(project_path.read_bytes())
    for page in (3, 5, 7, 9):  # several damaged b-tree pages: quick_check says many lines
        data[page * 4096 + 8:(page + 1) * 4096] = random.Random(page).randbytes(4096 - 8)
    project_path.write_bytes(bytes(data))
    with pytest.raises(DamagedProjectError) as info:
        check_file(project_path)
    assert "\n" not in str(info.value)


def test_own_hot_journal_is_still_rolled_back(project_path: Path):
    _hot_journal(project_path, "INSERT INTO meta VALUES ('k' || ?, ?)")
    assert check_file(project_path) == SCHEMA_VERSION
    with Project.open(project_path) as project:
        assert project.meta("k1") is None  # the crashed transaction is gone
        assert project.meta("name") == "study"


def test_our_application_id_at_format_zero_is_refused_not_migrated_into(tmp_path: Path):
    """Another program's database that copied our application id (format 0, its own table):
    every opening refuses it; an import used to write every project table into it."""
    from slicereview.store.schema import APPLICATION_ID

    path = tmp_path / "fresh.srproj"
    conn = raw(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("CREATE TABLE scratch (x)")
    conn.close()
    before = sha256(path)
    for read_only in (False, True):
        with pytest.raises(DamagedProjectError, match=r"damaged project format number \(0\)"):
            Project.open(path, read_only=read_only)
    assert sha256(path) == before
