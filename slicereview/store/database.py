"""The database under an open project: one connection and its transactions.

Every part of a project (:mod:`.project`) reaches the database through one :class:`Database`,
so that the SQL dialect, transactions, busy handling and change detection have one home.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager

from slicereview.store.connection import set_busy_timeout, transaction


class Database:
    """An open SQLite project file.

    ``execute`` and ``executemany`` are the connection's own (rows are :class:`sqlite3.Row`:
    by index and by column name); :meth:`transaction` groups one user intent.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Iterable[object] | dict = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, args)  # type: ignore[arg-type]

    def executemany(self, sql: str, rows: Iterable[Iterable[object]]) -> sqlite3.Cursor:
        return self.conn.executemany(sql, rows)  # type: ignore[arg-type]

    def transaction(self) -> AbstractContextManager[object]:
        """One user intent (see :func:`.connection.transaction`)."""
        return transaction(self.conn)

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: changes when *another* connection commits."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def set_busy_timeout(self, seconds: float) -> None:
        set_busy_timeout(self.conn, seconds)

    def close(self) -> None:
        self.conn.close()
