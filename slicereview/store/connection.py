"""Opening, creating and migrating the SQLite project file.

Durability: the rollback journal (``journal_mode=DELETE``) with ``synchronous=FULL``, so every
committed transaction survives a crash or ``kill -9``, and the file works on network drives
(where WAL does not). Every user intent is one transaction (:func:`transaction`).

Opening checks the file first (:mod:`.checking`: it never changes a file that is not ours,
is damaged or is newer).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.store.checking import _BUSY_TIMEOUT_S, _read_only, check_file, is_busy
from slicereview.store.errors import NewerProjectError, ProjectBusyError, ProjectError
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

if TYPE_CHECKING:
    from slicereview.store.database import SqliteDatabase


def _configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


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
