"""The files SQLite keeps beside a project: a rollback journal (``-journal``) and a
write-ahead log (``-wal``), checked before SQLite is allowed to use them.

SQLite trusts whatever file carries the right name. A ``-journal`` left by *another*
database (copied in with the project, or from a file that once had the same name) is rolled
back into the project when it is opened, writing foreign pages over ours; a ``-wal`` beside a
project in rollback-journal mode is replayed as if it were the project's own. So:

* :func:`check_journal` rolls a hot journal back into a *copy* of the project in a temporary
  folder and checks the copy (application id, schema, ``quick_check``) with the caller's check;
  only when the copy is a healthy project may SQLite roll the journal back into the real file.
* :func:`check_wal` refuses a project whose header says "rollback journal" but which has a
  ``-wal`` beside it (slicereview never uses WAL, so the log cannot be the project's).

Both leave the project and the sidecar files untouched when they refuse.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from slicereview.store.errors import DamagedProjectError, ProjectError

#: First 8 bytes of a rollback journal that may be hot (SQLite's ``aJournalMagic``).
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def journal_path(path: Path) -> Path:
    return path.with_name(path.name + "-journal")


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def has_live_journal(path: Path) -> bool:
    """True when ``path-journal`` exists and starts with the journal magic (SQLite would
    consider rolling it back); a zeroed or empty journal is ignored by SQLite."""
    journal = journal_path(path)
    try:
        with journal.open("rb") as fh:
            return fh.read(8) == JOURNAL_MAGIC
    except OSError:
        return False


def check_wal(path: Path, header: bytes) -> None:
    """Refuse a stray ``-wal`` beside a project in rollback-journal mode (header bytes 18-19
    are 1). The message says to move it away; nothing is changed."""
    wal = wal_path(path)
    if header[18:20] == b"\x01\x01" and wal.exists():
        raise DamagedProjectError(
            f"{path} has a write-ahead log ({wal.name}) beside it that cannot be its own, "
            "because slicereview projects never use one; move that file to another folder "
            "and open the project again (the project was left untouched)."
        )


#: How long a journal may take to disappear (another process committing) before it is checked
#: as a leftover.
ACTIVE_JOURNAL_WAIT_S = 2.0


def check_journal(path: Path, check: Callable[[Path], int]) -> None:
    """Refuse a hot journal that does not belong to the project at ``path``.

    ``check(copy)`` is the caller's full read-only check of a project file (it raises a
    :class:`ProjectError` for anything wrong). The journal is rolled back into a copy of the
    project in a temporary folder first; if the copy then fails ``check``, the journal is
    foreign or damaged and the project is refused untouched.
    """
    # Another process's transaction in progress has a journal too (deleted at its commit, a
    # few milliseconds later): wait a moment before taking a journal for a leftover one.
    deadline = time.monotonic() + ACTIVE_JOURNAL_WAIT_S
    while has_live_journal(path):
        if time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    else:
        return
    journal = journal_path(path)
    with tempfile.TemporaryDirectory(prefix="slicereview-journal-") as folder:
        copy = Path(folder) / path.name
        try:
            shutil.copyfile(path, copy)
            shutil.copyfile(journal, journal_path(copy))
            conn = sqlite3.connect(copy, timeout=1.0)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            finally:
                conn.close()
            check(copy)
        except (ProjectError, sqlite3.Error, OSError):
            raise DamagedProjectError(
                f"{path} has a leftover journal ({journal.name}) beside it that does not "
                "restore it to a healthy project, so it probably belongs to another "
                "database; move that file to another folder and open the project again "
                "(the project was left untouched)."
            ) from None
