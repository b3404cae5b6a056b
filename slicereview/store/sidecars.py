"""The files SQLite keeps beside a project: a rollback journal (``-journal``) and a
write-ahead log (``-wal``), checked before SQLite is allowed to use them.

SQLite trusts whatever file carries the right name. A ``-journal`` left by *another*
database (copied in with the project, or from a file that once had the same name) is rolled
back into the project when it is opened, writing foreign pages over ours; a ``-wal`` beside a
project in rollback-journal mode is replayed as if it were the project's own. So:

* :func:`check_journal` leaves a *live* journal to SQLite: while a connection (another
  process, or this one) holds SQLite's write lock on the file, the journal belongs to a
  transaction in progress (tested directly with ``fcntl``, :mod:`.locks`). A journal that no
  writer holds is rolled back into a *copy* of the project in a temporary folder and the copy
  is checked (application id, schema, ``quick_check``) with the caller's check; only when the
  copy is a healthy project may SQLite roll the journal back into the real file.
* :func:`check_wal` refuses a project whose header says "rollback journal" but which has a
  ``-wal`` beside it (slicereview never uses WAL, so the log cannot be the project's).

A ``-journal`` that is no journal at all (neither a header SQLite recognises nor the start of
one a transaction interrupted before its commit leaves) is refused as well: SQLite would
delete it on the first read or overwrite it on the first write. All of these
leave the project and the sidecar files untouched when they refuse.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from slicereview.store import locks
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


#: Where the lock cannot be tested (:data:`.locks.UNKNOWN`, e.g. Windows): how long a journal
#: may take to disappear (another process committing) before it is checked as a leftover.
ACTIVE_JOURNAL_WAIT_S = 2.0
#: Whether :func:`.locks.writer` sees this process's own connections' locks (Linux).
_SEES_OWN_LOCKS = hasattr(locks.fcntl, "F_OFD_GETLK")
#: How often a journal that changed while its copy was checked is looked at again.
_ATTEMPTS = 3


def check_journal(path: Path, check: Callable[[Path], int]) -> None:
    """Refuse a hot journal that does not belong to the project at ``path``.

    A journal is *live* while a connection holds SQLite's write lock on the file
    (:func:`.locks.writer`): another process's transaction in progress, or one of this
    process. It is then no leftover, and SQLite treats it as such: reads go on under RESERVED
    and wait for PENDING / EXCLUSIVE up to the busy timeout (then
    :class:`~.errors.ProjectBusyError`, which the GUI retries like any busy write). Nothing
    is checked and nothing waits here.

    A ``-journal`` that no writer holds and that has no journal header is either the journal
    of a transaction interrupted before its commit began (empty, or SQLite's header with its
    magic still zero and this file's page size: :func:`_unwritten_journal`; SQLite ignores
    it, as nothing of it reached the project) or no journal of this project at all (garbage,
    zeros): SQLite would silently delete or overwrite that, so the project is refused and
    both files are left untouched.

    Otherwise ``check(copy)``, the caller's full read-only check of a project file (it raises a
    :class:`ProjectError` for anything wrong), decides: the journal is rolled back into a copy
    of the project in a temporary folder first; if the copy then fails ``check``, the journal
    is foreign or damaged and the project is refused untouched. A journal that changed while
    its copy was checked (a writer started meanwhile) is looked at again.

    Where the lock cannot be tested, a journal gets :data:`ACTIVE_JOURNAL_WAIT_S` to
    disappear first (another process committing) before it is checked as a leftover.
    """
    for attempt in range(_ATTEMPTS):
        if _stamp(journal_path(path)) is None:
            return
        holder = locks.writer(path)
        if holder in (locks.ELSEWHERE, locks.HERE):
            return  # a transaction in progress: SQLite handles its journal
        hot = has_live_journal(path)
        if holder == locks.UNKNOWN or not (hot or _SEES_OWN_LOCKS):
            # (Where this process's own locks are invisible, a journal whose header is still
            # zero may be a transaction of another connection here, about to commit.)
            _wait_for_journal(path)
        # Stamped after the lock test: a writer that committed in between deleted it.
        stamp = _stamp(journal_path(path))
        if stamp is None:
            return
        try:
            if not has_live_journal(path):
                if _unwritten_journal(path):
                    return  # SQLite ignores it; the next transaction replaces it
                raise _not_a_journal(path)
            _check_copy(path, check)
            return
        except DamagedProjectError:
            unchanged = _stamp(journal_path(path)) == stamp
            if holder == locks.UNKNOWN or attempt == _ATTEMPTS - 1 or (
                    unchanged and locks.writer(path) == locks.NONE):
                raise


def _unwritten_journal(path: Path) -> bool:
    """True for the journal of a transaction that was interrupted before its commit began
    (``kill -9``, a power cut): empty, or a header whose magic SQLite had not written yet
    (12 zero bytes, then a nonce, the file's size in pages, a sector size that is a power
    of two from 512 to 65536, and this project's page size). SQLite ignores such a journal
    (no page of the project was changed) and its next transaction overwrites it."""
    try:
        with journal_path(path).open("rb") as fh:
            head = fh.read(28)
    except OSError:
        return False
    if not head:
        return True
    if len(head) < 28 or any(head[:12]):
        return False
    sector, page = int.from_bytes(head[20:24], "big"), int.from_bytes(head[24:28], "big")
    own = int.from_bytes(locks.read(path, 2, 16), "big")
    own = 65536 if own == 1 else own
    return 512 <= sector <= 65536 and sector & (sector - 1) == 0 and page == own


def _not_a_journal(path: Path) -> DamagedProjectError:
    return DamagedProjectError(
        f"{path} has a file named like its journal ({journal_path(path).name}) beside it "
        "that is not a journal any transaction of this project left (SQLite would delete "
        "or overwrite it); move that file to another folder and open the project again "
        "(the project and that file were left untouched)."
    )


def _wait_for_journal(path: Path) -> None:
    deadline = time.monotonic() + ACTIVE_JOURNAL_WAIT_S
    while _stamp(journal_path(path)) is not None and time.monotonic() < deadline:
        time.sleep(0.02)


def _stamp(journal: Path) -> tuple[int, int, int] | None:
    """The journal's identity (inode, size, mtime); ``None`` when it is gone."""
    try:
        st = journal.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _check_copy(path: Path, check: Callable[[Path], int]) -> None:
    journal = journal_path(path)
    with tempfile.TemporaryDirectory(prefix="slicereview-journal-") as folder:
        copy = Path(folder) / path.name
        try:
            locks.copy(path, copy)  # (closing a descriptor would drop our locks)
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
