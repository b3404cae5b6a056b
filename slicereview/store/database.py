"""The database under an open project: one connection, its SQL dialect and transactions.

Every part of a project (:mod:`.project`) reaches the database through one :class:`Database`,
so that what differs between a project file (SQLite) and a server project (PostgreSQL,
:mod:`.postgres`) has one home: placeholders, the id of a new row, bulk loading, transactions
and busy handling, and the change counter. The store's SQL is written once, in the subset both
speak, with SQLite's ``?`` placeholders; rows are read by index or by column name.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar, Protocol

from slicereview.store.connection import set_busy_timeout, transaction


class Row(Protocol):
    """A result row: by index (``row[0]``) or by column name (``row["id"]``)."""

    def __getitem__(self, key: int | str, /) -> Any: ...


class Database(ABC):
    """One open connection to a project's database (see the module docstring)."""

    #: ``"sqlite"`` (a project file) or ``"postgres"`` (a server project).
    kind: ClassVar[str]
    #: The driver's exception for a broken constraint (unique, foreign key, check).
    IntegrityError: type[Exception]

    @abstractmethod
    def execute(self, sql: str, args: Iterable[object] | dict = ()) -> Any:
        """Run one statement; returns a cursor (``fetchone``, ``fetchall``, ``fetchmany``,
        iteration, ``rowcount``)."""

    def tuples(self, sql: str, args: Iterable[object] = ()) -> list[tuple]:
        """Every row of one query as a plain tuple: for reads of many rows by position (a
        session's 60,000 answers), where a row object per row costs more than the row."""
        return [tuple(r) for r in self.execute(sql, args).fetchall()]

    @abstractmethod
    def executemany(self, sql: str, rows: Iterable[Iterable[object]]) -> Any:
        """Run one statement once per row of arguments."""

    @abstractmethod
    def insert(self, sql: str, args: Iterable[object] = ()) -> int:
        """Run one ``INSERT`` of one row into a table with an ``id``; returns the new id."""

    @abstractmethod
    def load_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]
                  ) -> int:
        """Insert many rows as they are (ids included); returns how many."""

    def bulk_loading(self) -> AbstractContextManager[object]:
        """Around many :meth:`load_rows` in one transaction (``copy``): on a server, foreign
        keys are checked once per key at the end instead of once per row
        (:func:`.postgres_schema.foreign_keys_checked_at_end`); on a file, nothing changes."""
        from contextlib import nullcontext

        return nullcontext()

    @abstractmethod
    def reset_ids(self, tables: Iterable[str]) -> None:
        """After rows were inserted with their ids (:meth:`load_rows`, an undone deletion):
        new rows of ``tables`` get ids after the largest."""

    @abstractmethod
    def copy_to_file(self, dest: Path, without: Sequence[str] = ()) -> None:
        """Write the whole project to a new project file ``dest`` (rows and ids as they
        are, stored image paths too); the rows of the tables in ``without`` may be left out
        (a caller that deletes them anyway saves copying them)."""

    @abstractmethod
    def json_has_key(self, column: str, key: str) -> tuple[str, object]:
        """A condition that the JSON object in ``column`` has the top-level ``key``, and its
        one argument (SQLite's ``json_type``; PostgreSQL's ``jsonb_exists``)."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[object]:
        """One user intent: committed when the block ends, rolled back when it raises
        (:class:`~.errors.ProjectBusyError` when another writer held the lock too long).
        Nested use joins the outer transaction."""

    def grant_login(self, name: str) -> str | None:
        """Let the server login ``name`` use the project, as the rater of that name, with
        the database keeping annotators blind to each other (:mod:`.postgres_access`): a new
        login's one-time password, ``None`` for an existing login. A file has no logins."""
        raise ValueError("A project file has no logins: people get the file (or a work "
                         "package); logins are for a project on a server.")

    def login(self) -> str | None:
        """The server login this connection works as (a rater of that name is "you" on a
        server); ``None`` on a file, which has no logins."""
        return None

    def logins(self, names: Sequence[str]) -> dict[str, bool] | None:
        """On a server: whether each of ``names`` is a login that can connect and use the
        project (:func:`.postgres_access.login_states`); ``None`` on a file: a file has no
        logins."""
        return None

    def remove_login(self, name: str) -> str:
        """Take the server login ``name`` off the project (:func:`.postgres_access.
        remove_login`); a file has no logins."""
        raise ValueError("A project file has no logins: nobody logs in to a file, so there "
                         "is no login to remove (and work in a project is never deleted).")

    def claim_row(self, key: int, sql: str, args: Sequence[object] = ()) -> Row | None:
        """Run ``sql``, one statement that claims at most one row and returns it (``UPDATE
        ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING ...``), in a short
        transaction of its own; the row, or ``None``. On a server the transaction holds an
        advisory lock of ``key`` (one claim per key at a time, e.g. per annotator; claims of
        different keys run at once, and nothing waits for the write lock) and is one round
        trip (:meth:`.postgres.PostgresDatabase.claim_row`); on a file it is
        :meth:`transaction` (``RETURNING``: SQLite 3.35 or later). Inside a transaction, the
        statement joins it."""
        with self.transaction():
            row: Row | None = self.execute(sql, args).fetchone()
        return row

    @property
    @abstractmethod
    def in_transaction(self) -> bool: ...

    @abstractmethod
    def data_version(self) -> int:
        """A number that changes when *another* connection commits (this one's own commits
        leave it)."""

    @abstractmethod
    def set_busy_timeout(self, seconds: float) -> None:
        """How long a call waits for another writer's lock before ``ProjectBusyError``."""

    @abstractmethod
    def close(self) -> None: ...


class SqliteDatabase(Database):
    """An open project file (:mod:`.connection` opens and checks it)."""

    kind = "sqlite"
    IntegrityError = sqlite3.IntegrityError

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Iterable[object] | dict = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, args)  # type: ignore[arg-type]

    def executemany(self, sql: str, rows: Iterable[Iterable[object]]) -> sqlite3.Cursor:
        return self.conn.executemany(sql, rows)  # type: ignore[arg-type]

    def tuples(self, sql: str, args: Iterable[object] = ()) -> list[tuple]:
        """SQLite's own tuples (no ``sqlite3.Row``: ~40 % faster for many rows)."""
        cursor = self.conn.cursor()
        cursor.row_factory = None
        return cursor.execute(sql, args).fetchall()  # type: ignore[arg-type]

    def insert(self, sql: str, args: Iterable[object] = ()) -> int:
        row_id = self.conn.execute(sql, args).lastrowid  # type: ignore[arg-type]
        if row_id is None:  # only after a statement that is not an INSERT
            raise RuntimeError("no row was inserted")
        return row_id

    def load_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]
                  ) -> int:
        marks = ", ".join("?" * len(columns))
        cur = self.conn.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        return max(0, cur.rowcount)

    def reset_ids(self, tables: Iterable[str]) -> None:
        """Nothing to do: SQLite gives a new row the largest id + 1."""

    def copy_to_file(self, dest: Path, without: Sequence[str] = ()) -> None:
        """SQLite's backup API: the file as it is committed now (all of it)."""
        out = sqlite3.connect(dest)
        try:
            self.conn.backup(out)
        finally:
            out.close()

    def json_has_key(self, column: str, key: str) -> tuple[str, object]:
        return f"json_type({column}, ?) IS NOT NULL", '$."' + key.replace('"', '\\"') + '"'

    def transaction(self) -> AbstractContextManager[object]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (see :func:`.connection.transaction`)."""
        return transaction(self.conn)

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def set_busy_timeout(self, seconds: float) -> None:
        set_busy_timeout(self.conn, seconds)

    def close(self) -> None:
        self.conn.close()
