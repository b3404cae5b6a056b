"""The checks a project file passes before it is opened (:func:`check_file`), and what a
damaged file met later by a read means (:func:`damage_seen`).

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

The two *whole-file scans* (``quick_check`` and the UTF-8 scan) are O(file): ~0.8 s at 20,000
images. They run at the first opening of a file after any change to it; a file whose stamp
(identity, size, times, SQLite's change counter) is that of a file that passed them before, in
this process or an earlier one, is not checked again beyond its header and sidecar files
(:mod:`.verdicts`; the schema and format cannot change without changing the stamp either).
Damage that a read meets later raises SQLite's error, which :func:`damage_seen` turns into the
same one-line message.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from slicereview.store import locks, verdicts
from slicereview.store.errors import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    ProjectBusyError,
)
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_check import (
    describe_schema,
    expected_schema,
    schema_differences,
    undecodable_text,
)
from slicereview.store.sidecars import check_journal, check_wal

_SQLITE_MAGIC = b"SQLite format 3\x00"
_BUSY_TIMEOUT_S = 5.0


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
    if header.startswith(b"PK\x03\x04"):
        raise NotAProjectError(
            f"{path} is a zip file, not a project: if it is a work package, open it with "
            f"`slicereview open {path.name}` (it is unpacked beside itself once) and use the "
            "project.srproj in that folder; `slicereview info` describes it as it is.")
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
    stamp = verdicts.stamp(path)
    if stamp is not None:
        known = _CHECKED.get(stamp) or verdicts.recall(stamp)
        if known is not None:
            return known
    try:
        version = _check_sqlite(path, busy_timeout_s)
    except _HotJournal:
        _roll_back_hot_journal(path)
        version = _check_sqlite(path, busy_timeout_s)
    if stamp is not None and stamp == verdicts.stamp(path):
        _CHECKED[stamp] = version
        verdicts.remember(stamp, version)
    return version


#: The files this process found healthy, by their stamp (:mod:`.verdicts`, which keeps them
#: between runs too): the whole-file scans (``quick_check``, the UTF-8 scan: ~0.8 s at 20,000
#: images) run again only when the file changed since.
_CHECKED: dict[verdicts.Stamp, int] = {}


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


def damage_seen(path: Path, exc: BaseException) -> DamagedProjectError | None:
    """The :class:`DamagedProjectError` that ``exc``, raised by a read of the project file at
    ``path``, means -- a damaged page (``SQLITE_CORRUPT``, "database disk image is
    malformed"), a file that stopped being a database, text that is not UTF-8 -- or ``None``
    for any other error. The message is the one the whole-file checks give."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    name = getattr(exc, "sqlite_errorname", None) or ""
    text = str(exc)
    if text.startswith("Could not decode to UTF-8"):
        column = re.match(r"Could not decode to UTF-8 column '([^']*)'", text)
        where = f"column {column.group(1)}" if column else "a column"
        return _damaged(path, f"the text in {where} is not valid UTF-8")
    if (name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB"
            or "malformed" in text or "not a database" in text):
        return _damaged(path, "SQLite cannot read it")
    return None


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

