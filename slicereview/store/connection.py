"""Opening, checking, creating and migrating the SQLite project file.

Durability: the rollback journal (``journal_mode=DELETE``) with ``synchronous=FULL``, so every
committed transaction survives a crash or ``kill -9``, and the file works on network drives
(where WAL does not). Every user intent is one transaction (:func:`transaction`).

Opening never changes a file that is not ours, is damaged or is newer: all checks run on a
read-only connection first: the header's application id, the schema version, the schema itself
(the tables and columns the migrations made, and no unknown tables, indexes, triggers or views:
a trigger slipped into the file could delete every new answer), ``quick_check`` and the text
itself (a flipped byte in a data page passes ``quick_check`` but leaves text that is not
UTF-8, which no later read could decode). The one
write before the checks is SQLite's own crash recovery of a file that is ours: a program killed
in the middle of a transaction leaves a *hot journal* (``<file>-journal``) that a read-only
connection cannot roll back, so :func:`check_file` rolls it back on a read-write connection
(restoring the last committed state) and checks again -- but only after rolling it back into a
copy proved that the journal is the project's own (:mod:`.sidecars`; a stray ``-wal`` is
refused there too). Every message is one line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.store import locks
from slicereview.store.errors import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    ProjectBusyError,
    ProjectError,
)
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_check import (
    describe_schema,
    expected_schema,
    schema_differences,
    undecodable_text,
)
from slicereview.store.sidecars import check_journal, check_wal

if TYPE_CHECKING:
    from slicereview.store.database import SqliteDatabase

_SQLITE_MAGIC = b"SQLite format 3\x00"
_BUSY_TIMEOUT_S = 5.0


def _configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _read_only(path: Path, timeout: float = _BUSY_TIMEOUT_S) -> sqlite3.Connection:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=timeout)


def check_file(path: str | Path, *, busy_timeout_s: float = _BUSY_TIMEOUT_S) -> int:
    """Check that ``path`` is a healthy slicereview project this version can open.

    Returns the file's schema version. Raises :class:`NotAProjectError`,
    :class:`DamagedProjectError` or :class:`NewerProjectError` and then has not written to the
    file. The only write is SQLite's roll-back of a hot journal in a file whose header says it
    is ours (see the module docstring). While another program commits (it holds the file's
    PENDING or EXCLUSIVE lock for longer than ``busy_timeout_s``) the check cannot read:
    :class:`ProjectBusyError`, and the same call may be retried.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"No project file at {path}. Create one with `slicereview new {path}`."
        )
    # (Not open()/close(): closing a descriptor of the file would drop the POSIX locks of this
    # process's other connections to it; see store/locks.py.)
    header = locks.read(path, 100)
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise NotAProjectError(
            f"{path} is not a slicereview project (it is not an SQLite database). "
            "Open a .srproj file, or create a project with `slicereview new`."
        )
    # application_id is bytes 68-71 of the header (big-endian): refuse a foreign database
    # before SQLite opens it, so that not even its crash recovery touches someone else's file.
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise NotAProjectError(
            f"{path} is an SQLite database but not a slicereview project "
            f"(application_id {app_id:#x}, expected {APPLICATION_ID:#x}). "
            "It was left untouched."
        )
    check_wal(path, header)
    check_journal(path, _check_sqlite)
    stamp = _settled_stamp(path)
    if stamp is not None and _CHECKED.get(stamp) is not None:
        return _CHECKED[stamp]
    try:
        version = _check_sqlite(path, busy_timeout_s)
    except _HotJournal:
        _roll_back_hot_journal(path)
        version = _check_sqlite(path, busy_timeout_s)
    if stamp is not None and stamp == _settled_stamp(path):
        _CHECKED[stamp] = version
    return version


#: The files this process found healthy, by :func:`_settled_stamp`: the whole-file scans
#: (``quick_check``, the UTF-8 scan: ~1 s at 20,000 images) run once per process for a file
#: that has not changed since -- ``open --screenshot`` checks the file before Qt starts and
#: the window opens it again. (A byte flipped in place with the file's time put back
#: between two opens of one process would be missed by the second: not something a write
#: does.)
_CHECKED: dict[tuple[str, int, int, int, int], int] = {}
#: A file changed this recently is checked again every time (a change within the
#: file system's time granularity must not share a stamp with the version checked).
_SETTLED_S = 2.0


def _settled_stamp(path: Path) -> tuple[str, int, int, int, int] | None:
    """The file's identity, size and modification time; ``None`` when it changed within
    :data:`_SETTLED_S` or has a journal or WAL beside it (then it is always checked)."""
    import os
    import time

    try:
        st = os.stat(path)
    except OSError:
        return None
    if time.time_ns() - st.st_mtime_ns < _SETTLED_S * 1e9 or any(
            os.path.exists(f"{path}{suffix}") for suffix in ("-journal", "-wal")):
        return None
    return (os.fspath(path.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class _HotJournal(Exception):
    """The read-only check met a hot journal left by a crashed writer."""


def _is_hot_journal(path: Path, exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", None)  # Python >= 3.11
    if name is not None:
        return name == "SQLITE_READONLY_ROLLBACK"
    journal = path.with_name(path.name + "-journal")
    return "readonly" in str(exc) and journal.is_file()


def _roll_back_hot_journal(path: Path) -> None:
    """Let SQLite roll back the interrupted transaction (needs write access to the folder)."""
    try:
        conn = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S)
        try:
            # Taking the first shared lock makes SQLite roll back the hot journal.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise DamagedProjectError(
            f"{path} was not closed cleanly and its journal ({path.name}-journal) must be "
            "rolled back, which failed; open it once from a folder where you may write files "
            "(the file was left untouched)."
        ) from exc


_UNTOUCHED = "(the file was left untouched)"


def _damaged(path: Path, what: str) -> DamagedProjectError:
    return DamagedProjectError(
        f"{path} is damaged ({what}); restore it from a backup {_UNTOUCHED}."
    )


def _check_sqlite(path: Path, timeout: float = _BUSY_TIMEOUT_S) -> int:
    try:
        conn = _read_only(path, timeout)
    except sqlite3.Error as exc:  # pragma: no cover - sqlite opens lazily
        raise _damaged(path, "SQLite cannot open it") from exc
    # Damaged text in the schema or in quick_check's report must not raise UnicodeDecodeError.
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id != APPLICATION_ID:
                raise NotAProjectError(
                    f"{path} is an SQLite database but not a slicereview project "
                    f"(application_id {app_id:#x}, expected {APPLICATION_ID:#x}). "
                    "It was left untouched."
                )
            if version > SCHEMA_VERSION:
                raise NewerProjectError(
                    f"{path} was written by a newer slicereview (project format {version}; this "
                    f"version reads up to {SCHEMA_VERSION}). Update slicereview "
                    "(`pip install -U slicereview`) to open it; the file was left untouched."
                )
            problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
            if problems == ["ok"]:
                _check_schema(conn, path, int(version))
                bad = undecodable_text(conn)
                if bad:
                    raise _damaged(path, f"the text in table {bad[0]} is not valid UTF-8")
        except sqlite3.OperationalError as exc:
            if _is_hot_journal(path, exc):
                raise _HotJournal from exc
            if is_busy(exc):
                raise ProjectBusyError(
                    f"{path} is busy (another program is writing it); try again when it is "
                    "done (the file was left untouched)."
                ) from exc
            raise _damaged(path, "SQLite cannot read it") from exc
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            # (SQLite's error text quotes damaged schema bytes that Python cannot decode.)
            raise _damaged(path, "SQLite cannot read it") from exc
        if problems != ["ok"]:
            n = len(problems)
            raise _damaged(path, f"SQLite's quick_check found {n} problem{'s' * (n != 1)}")
        return int(version)
    finally:
        conn.close()


def _check_schema(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Refuse a schema that is not the one ``MIGRATIONS[:version]`` makes (see module doc).

    Version 0 (or less) is never one of ours: :func:`create_file` sets the application id
    and the format number in one transaction. So such a file is refused by every command
    alike (``info`` and ``open`` read-only, ``import`` read-write), never migrated into: it
    may be another program's database that copied our application id.
    """
    actual = describe_schema(conn)
    if version <= 0:
        current = expected_schema(MIGRATIONS, SCHEMA_VERSION)
        matches = not schema_differences(actual, current)
        advice = (
            f"restore it from a backup, or, as its tables are those of format "
            f"{SCHEMA_VERSION}, repair it with `sqlite3 \"{path}\" \"PRAGMA user_version = "
            f"{SCHEMA_VERSION}\"` and open it again" if matches else
            "restore it from a backup"
        )
        raise DamagedProjectError(
            f"{path} has a damaged project format number ({version}); {advice} "
            f"{_UNTOUCHED}."
        )
    differences = schema_differences(actual, expected_schema(MIGRATIONS, version))
    if differences:
        shown = ", ".join(differences[:3]) + (", ..." if len(differences) > 3 else "")
        raise DamagedProjectError(
            f"{path} is not a slicereview project as this version wrote it ({shown}); "
            f"restore it from a backup {_UNTOUCHED}."
        )


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the pending migrations in one transaction. Returns the new schema version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise NewerProjectError(f"Project format {version} is newer than {SCHEMA_VERSION}.")
    if version == SCHEMA_VERSION:
        return version
    # executescript() commits first and cannot be rolled back as a whole, so run the statements
    # one by one inside an explicit transaction.
    conn.execute("BEGIN IMMEDIATE")
    try:
        for step in range(version, SCHEMA_VERSION):
            for statement in _statements(MIGRATIONS[step]):
                conn.execute(statement)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return SCHEMA_VERSION


def _statements(script: str) -> Iterator[str]:
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()


def create_file(path: str | Path, fill: Callable[[SqliteDatabase], None] | None = None) -> None:
    """Create a new project file at ``path`` (which must not exist): the schema, then ``fill``
    (e.g. a whole copied project) in one transaction. On any error the file is removed."""
    from slicereview.store.database import SqliteDatabase

    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} already exists; open it, or choose another name.")
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _configure(conn)
        conn.execute("PRAGMA journal_mode = DELETE")
        migrate(conn)
        if fill is not None:
            db = SqliteDatabase(conn)
            with db.transaction():
                fill(db)
    except BaseException:
        conn.close()
        path.unlink(missing_ok=True)
        raise
    conn.close()


def connect(path: str | Path, *, read_only: bool = False,
            busy_timeout_s: float = _BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """Open an existing project after :func:`check_file`, migrating older files.

    The connection is in autocommit mode (``isolation_level=None``); group the statements of one
    user intent with :func:`transaction`. Worker threads open their own connection with
    ``read_only=True``. ``busy_timeout_s``: how long the check and the connection wait for
    another program's lock (:class:`ProjectBusyError` after that).
    """
    path = Path(path)
    version = check_file(path, busy_timeout_s=busy_timeout_s)
    if read_only:
        if version < SCHEMA_VERSION:
            # A read-only connection cannot migrate, and the code expects the current tables.
            raise ProjectError(
                f"{path} uses project format {version}; open it once with write access to "
                f"upgrade it to format {SCHEMA_VERSION}."
            )
        conn = _read_only(path, busy_timeout_s)
        conn.isolation_level = None
        return _configure(conn)
    conn = sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_s,
                           check_same_thread=False)
    _configure(conn)
    if version < SCHEMA_VERSION:
        try:
            migrate(conn)
        except BaseException as exc:
            conn.close()
            if is_busy(exc):
                raise ProjectBusyError(ProjectBusyError.MESSAGE) from exc
            raise
    return conn


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is :class:`ProjectBusyError` or SQLite's "database is locked"
    (``SQLITE_BUSY``, e.g. of a read): another connection held a lock for longer than the
    busy timeout."""
    if isinstance(exc, ProjectBusyError):
        return True
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    name = getattr(exc, "sqlite_errorname", None)  # Python >= 3.11
    return name == "SQLITE_BUSY" if name else "database is locked" in str(exc)


def set_busy_timeout(conn: sqlite3.Connection, seconds: float) -> None:
    """How long SQLite waits for another connection's lock before a call fails with
    :class:`ProjectBusyError` (default :data:`_BUSY_TIMEOUT_S`)."""
    conn.execute(f"PRAGMA busy_timeout = {max(0, int(seconds * 1000))}")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One user intent: ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception).

    Nested use joins the outer transaction. When another program holds the file's lock for
    longer than the busy timeout, ``BEGIN`` or ``COMMIT`` fails: the transaction is rolled
    back and :class:`ProjectBusyError` raised, so the caller may retry the whole intent.
    """
    if conn.in_transaction:
        yield conn
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise ProjectBusyError(ProjectBusyError.MESSAGE) from exc
        raise
    try:
        yield conn
        conn.execute("COMMIT")  # waits for readers' locks: may be busy too
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if is_busy(exc):
            raise ProjectBusyError(ProjectBusyError.MESSAGE) from exc
        raise
