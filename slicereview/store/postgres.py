"""The database of a project on a PostgreSQL server (:class:`PostgresDatabase`).

The store's SQL is written once, with SQLite's ``?`` placeholders; :class:`PostgresDatabase`
translates each statement once (``?`` → ``%s``, ``IS ?`` → ``IS NOT DISTINCT FROM %s``,
literal ``%`` doubled) and returns rows that, like :class:`sqlite3.Row`, are read by index and
by column name. psycopg 3 is imported only when a server project is opened.

**Transactions.** A connection is in autocommit mode: a read outside a transaction sees the
latest commits. :meth:`PostgresDatabase.transaction` is one user intent, as on a file:
``BEGIN``, then a transaction-level advisory lock (:data:`WRITE_LOCK`) so that write
transactions run one at a time as SQLite's ``BEGIN IMMEDIATE`` makes them on a file (the
store's "next case id", "next position" reads stay correct without row locks), then, when the
transaction wrote anything, the change counter of :data:`~.postgres_schema.STATE_TABLE` is
incremented, and the transaction is committed. Waiting for the lock longer than the busy
timeout (``lock_timeout``), a deadlock or a serialisation
failure rolls the transaction back and raises :class:`~.errors.ProjectBusyError`: nothing was
written, the same intent may be retried.

Opening, checking, creating and migrating a server project: :mod:`.postgres_opening`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from slicereview.store.database import Database
from slicereview.store.errors import ProjectBusyError, ServerError
from slicereview.store.postgres_schema import STATE_TABLE
from slicereview.store.schema import APPLICATION_ID

#: Key of the advisory lock every write transaction holds ("SRvw" as a number).
WRITE_LOCK = APPLICATION_ID
#: SQLSTATE of a statement the login's privileges or row-level security refuse.
NOT_ALLOWED = "42501"
#: First key of the two-key advisory lock of a claim (:meth:`PostgresDatabase.claim_transaction`;
#: a 32-bit number, "SRcl").
CLAIM_LOCK = 0x5352636C
BUSY_MESSAGE = ("The project is busy (another user is writing to it); nothing was saved "
                "yet, try again in a moment.")


class Row(tuple):
    """A result row read by index or by column name, like :class:`sqlite3.Row`."""

    __slots__ = ()
    _index: ClassVar[dict[str, int]] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


_ROW_TYPES: dict[tuple[str, ...], type[Row]] = {}


def _row_type(names: tuple[str, ...]) -> type[Row]:
    found = _ROW_TYPES.get(names)
    if found is None:
        index: dict[str, int] = {}
        for k, name in enumerate(names):
            index.setdefault(name, k)  # the first of two equal names, as sqlite3.Row
        found = _ROW_TYPES[names] = type("Row", (Row,), {"__slots__": (), "_index": index})
    return found


def row_factory(cursor: Any) -> Callable[[Sequence[Any]], Any]:
    description = cursor.description
    if description is None:
        return tuple
    return _row_type(tuple(d.name for d in description))


_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\bIS \?|\?|%")


def to_postgres(sql: str) -> str:
    """A statement with SQLite's ``?`` placeholders in psycopg's style.

    >>> to_postgres("SELECT 1 FROM t WHERE a = ? AND b IS ? AND c LIKE 'x%?'")
    "SELECT 1 FROM t WHERE a = %s AND b IS NOT DISTINCT FROM %s AND c LIKE 'x%%?'"
    """
    def one(m: re.Match[str]) -> str:
        text = m.group(0)
        if text.startswith("'"):
            return text.replace("%", "%%")
        return {"?": "%s", "%": "%%"}.get(text, "IS NOT DISTINCT FROM %s")

    return _PLACEHOLDER.sub(one, sql)


class PostgresDatabase(Database):
    """An open server project: one psycopg connection in autocommit mode."""

    kind = "postgres"

    def __init__(self, conn: Any, url: str) -> None:
        import psycopg

        self.conn = conn
        self.url = url
        self.IntegrityError = psycopg.IntegrityError
        self._sql: dict[str, str] = {}
        self._own_commits = 0

    def _translate(self, sql: str) -> str:
        found = self._sql.get(sql)
        if found is None:
            found = self._sql[sql] = to_postgres(sql)
        return found

    def execute(self, sql: str, args: Iterable[object] | dict = ()) -> Any:
        return self.conn.execute(self._translate(sql), tuple(args) if not isinstance(
            args, dict) else args)

    def executemany(self, sql: str, rows: Iterable[Iterable[object]]) -> Any:
        cur = self.conn.cursor()
        cur.executemany(self._translate(sql), [tuple(r) for r in rows])
        return cur

    def insert(self, sql: str, args: Iterable[object] = ()) -> int:
        return int(self.execute(sql + " RETURNING id", args).fetchone()[0])

    def load_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]
                  ) -> int:
        """Bulk-load ``rows`` into ``table`` with ``COPY`` (for ``copy``); returns how many."""
        n = 0
        names = ", ".join(columns)
        with self.conn.cursor() as cur, cur.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                n += 1
        return n

    def reset_ids(self, tables: Iterable[str]) -> None:
        """After rows were inserted with their ids: the next id of each table follows the
        largest (an identity column does not notice explicit ids). Never moves backwards."""
        for table in tables:
            self.conn.execute(
                f"SELECT setval(s, greatest(coalesce((SELECT max(id) FROM {table}), 0), "
                "coalesce(pg_sequence_last_value(s), 0)) + 1, false) "
                f"FROM CAST(pg_get_serial_sequence('{table}', 'id') AS regclass) AS s")

    def copy_to_file(self, dest: Path, without: Sequence[str] = ()) -> None:
        """Every row into a new project file (:mod:`.copying`; stored paths as they are),
        except those of the tables named in ``without``."""
        from slicereview.store.connection import create_file
        from slicereview.store.copying import copy_tables

        def fill(db: Database) -> None:
            copy_tables(self, db, without=without)

        create_file(dest, fill)

    def json_has_key(self, column: str, key: str) -> tuple[str, object]:
        return f"jsonb_exists(CAST({column} AS jsonb), ?)", key

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.conn.info.transaction_status != TransactionStatus.IDLE

    @contextmanager
    def transaction(self) -> Iterator[object]:
        """One user intent (see the module docstring); nested use joins the outer one."""
        if self.in_transaction:
            yield self
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield self
            wrote = self.conn.execute(
                f"UPDATE {STATE_TABLE} SET data_version = data_version + 1 "
                "WHERE pg_current_xact_id_if_assigned() IS NOT NULL").rowcount
            self.conn.execute("COMMIT")
            self._own_commits += wrote
        except BaseException as exc:
            if self.in_transaction and not self.conn.closed:
                self.conn.execute("ROLLBACK")
            if is_busy(exc):
                raise ProjectBusyError(BUSY_MESSAGE) from exc
            if getattr(exc, "sqlstate", None) == NOT_ALLOWED:
                raise ServerError(
                    "Your login may not change this (on a server, an annotator changes only "
                    "their own work; reviewers and owners the rest), so nothing was saved: "
                    f"{str(exc).strip().splitlines()[0]}") from exc
            raise

    skip_locked = " FOR UPDATE SKIP LOCKED"

    def grant_login(self, name: str) -> str | None:
        """:func:`.postgres_access.enable_blinding` and :func:`~.postgres_access.add_login`
        in the caller's transaction; a login that may not do it gets a ``ValueError``."""
        import psycopg

        from slicereview.store.postgres_access import add_login, enable_blinding

        try:
            with self.conn.transaction():  # (a savepoint: the error leaves the caller's intact)
                enable_blinding(self.conn)
                return add_login(self.conn, name)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise ValueError(
                "Only the project's owner login, allowed to create logins (CREATEROLE), can "
                f"add people with their own login: {str(exc).strip().splitlines()[0]}") from exc
        except (psycopg.errors.InvalidName, psycopg.errors.ReservedName,
                psycopg.errors.NameTooLong) as exc:
            raise ValueError(f"{name!r} cannot be a login name: "
                             f"{str(exc).strip().splitlines()[0]}") from exc

    @contextmanager
    def claim_transaction(self, key: int) -> Iterator[object]:
        """``BEGIN``, an advisory lock of (:data:`CLAIM_LOCK`, ``key``) -- one claim per key
        at a time, e.g. per annotator --, the caller's ``SELECT ... FOR UPDATE SKIP LOCKED``
        and update, ``COMMIT``; not the write lock, so claims of different keys run at once
        (nor the change counter: a claim changes nothing another window shows). Nested use
        joins the outer transaction."""
        if self.in_transaction:
            yield self
            return
        try:
            self.conn.execute("BEGIN")
            self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (CLAIM_LOCK, key))
            yield self
            self.conn.execute("COMMIT")
        except BaseException as exc:
            if self.in_transaction and not self.conn.closed:
                self.conn.execute("ROLLBACK")
            if is_busy(exc):
                raise ProjectBusyError(BUSY_MESSAGE) from exc
            if getattr(exc, "sqlstate", None) == NOT_ALLOWED:
                raise ServerError(
                    "Your login may not change this (on a server, an annotator changes only "
                    "their own work; reviewers and owners the rest), so nothing was saved: "
                    f"{str(exc).strip().splitlines()[0]}") from exc
            raise

    def data_version(self) -> int:
        """Changes when *another* connection commits (the state table's counter, less this
        connection's own commits)."""
        row = self.conn.execute(f"SELECT data_version FROM {STATE_TABLE}").fetchone()
        return int(row[0]) - self._own_commits

    def set_busy_timeout(self, seconds: float) -> None:
        self.conn.execute(f"SET lock_timeout = {max(1, int(seconds * 1000))}")

    def close(self) -> None:
        self.conn.close()


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is a lock wait that timed out, a deadlock or a serialisation failure
    (the transaction was rolled back and may be retried)."""
    if isinstance(exc, ProjectBusyError):
        return True
    sqlstate = getattr(exc, "sqlstate", None)
    return sqlstate in ("55P03", "40001", "40P01")
