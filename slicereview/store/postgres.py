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
incremented (by a function run as the tables' owner: the state row is theirs alone), and the
transaction is committed. Waiting for the lock longer than the busy timeout
(``lock_timeout``), a deadlock, a serialisation failure or a statement the server cancelled
(``statement_timeout``: :class:`~.errors.ServerTimeoutError`; a read outside a transaction
is sent again first) rolls the transaction back and raises :class:`~.errors.ProjectBusyError`:
nothing was written, the same intent may be retried.

Each statement to the server is a round trip, so a transaction sends what needs no answer of
its own together with a statement that does: the ``BEGIN`` and the lock go in one message with
the transaction's first statement (a transaction that runs none sends nothing); the read of the
transaction's id (what tells, after a connection lost during ``COMMIT``, whether it was
committed) goes with its ``INSERT``, ``UPDATE`` or ``DELETE`` statements until one changed a
row; the change counter with the ``COMMIT``, which a transaction that ran only ``SELECT``
statements sends alone. A submit on a loopback server is three messages (it was nine).

Opening, checking, creating and migrating a server project: :mod:`.postgres_opening`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from slicereview.store import postgres_access as access
from slicereview.store import postgres_link as link
from slicereview.store import postgres_rules as rules
from slicereview.store.database import Database
from slicereview.store.errors import ConnectionLostError
from slicereview.store.location import describe
from slicereview.store.postgres_dialect import row_factory, to_postgres
from slicereview.store.postgres_link import is_busy as is_busy  # (for callers)
from slicereview.store.postgres_schema import STATE_TABLE
from slicereview.store.schema import APPLICATION_ID

#: The channel of the change notices (``NOTIFY``; per database): every committed write sends
#: :data:`CHANGED` (:mod:`.postgres_live` listens; :data:`~.postgres_rules.COUNT_FN` sends it).
CHANNEL, CHANGED = rules.CHANNEL, rules.CHANGED
#: Key of the advisory lock every write transaction holds ("SRvw" as a number).
WRITE_LOCK = APPLICATION_ID
#: First key of the two-key advisory lock of a claim (:meth:`PostgresDatabase.claim_row`; a
#: 32-bit number, "SRcl").
CLAIM_LOCK = 0x5352636C


class PostgresDatabase(Database):
    """An open server project: one psycopg connection in autocommit mode, made again when it
    is lost (see the module docstring)."""

    kind = "postgres"

    def __init__(self, conn: Any, url: str, *, lock_timeout_ms: int = 5000,
                 read_only: bool = False) -> None:
        import psycopg

        self._conn = conn
        self.url = url
        self.IntegrityError = psycopg.IntegrityError
        self._sql: dict[str, str] = {}
        self._own_commits = 0
        self._lock_timeout_ms = lock_timeout_ms
        self._read_only = read_only
        self._depth = 0
        #: In a transaction: its ``BEGIN`` is not sent yet (it goes with the first statement).
        self._pending_begin = False
        #: In a transaction: its id, read in the message of the first ``INSERT``, ``UPDATE``
        #: or ``DELETE`` that changed a row (``None`` before one).
        self._xid: str | None = None
        #: In a transaction: only ``SELECT`` statements ran, through :meth:`execute` (so it
        #: wrote nothing: its end is a ``COMMIT`` alone, which a read-only session allows).
        self._only_reads = True
        self._reconnecting = False
        self._backend = link.Backend.of(conn)
        #: Between reconnection attempts: waits and says whether to go on (the command line
        #: sleeps up to :data:`.postgres_link.PATIENCE_S`; the main window shows the state).
        self.wait_for_server: link.Wait = link.patient()
        #: The ``pg_current_xact_id()`` of a transaction lost during its ``COMMIT`` whose
        #: outcome is not known yet (checked at the next reconnection).
        self.unsettled: str | None = None
        #: Told the outcome (committed or not) of :attr:`unsettled` when a later reconnection
        #: found it out.
        self.on_settled: Callable[[bool], None] = lambda committed: None

    def _translate(self, sql: str) -> str:
        found = self._sql.get(sql)
        if found is None:
            found = self._sql[sql] = to_postgres(sql)
        return found

    @property
    def conn(self) -> Any:
        """The psycopg connection. In a transaction whose ``BEGIN`` is still pending, it is
        sent first (for code that uses the connection itself: ``COPY``, logins)."""
        if self._depth:
            self._only_reads = False  # (whatever it does, it may write)
            if self._pending_begin:
                self._begin()
        return self._conn

    def execute(self, sql: str, args: Iterable[object] | dict = ()) -> Any:
        text = self._translate(sql)
        params = tuple(args) if not isinstance(args, dict) else args
        if self._depth:
            return self._in_transaction(sql, text, params)
        if self.in_transaction:  # a lost connection ends the transaction: it raises there
            return self._conn.execute(text, params)
        tried = 1
        while True:
            try:
                return self._conn.execute(text, params)
            except Exception as exc:
                if link.is_timeout(exc):  # (cancelled: it changed nothing; a read again)
                    if tried < link.TIMEOUT_TRIES and _READ.match(sql):
                        tried += 1
                        continue
                    raise link.timed_out(exc, self._conn, tried=tried,
                                         changed=not _READ.match(sql)) from exc
                if not link.is_lost(self._conn, exc):
                    raise
                self.reconnect(link.lost_reason(exc))
                if not _READ.match(sql):  # (every write runs in a transaction: never here)
                    raise ConnectionLostError(_LOST_UNKNOWN, saved=None) from exc
                return self._conn.execute(text, params)  # a read outside a transaction: again

    def _in_transaction(self, sql: str, text: str, params: tuple | dict) -> Any:
        """A statement of :meth:`transaction`, in one message with what is still pending:
        the ``BEGIN`` and the write lock before the first statement, the read of the
        transaction's id after a write until one changed a row (see the module docstring; a
        pipeline keeps each statement prepared, as one sent alone)."""
        self._only_reads = self._only_reads and bool(_READ.match(sql))
        begin, asks_xid = self._pending_begin, self._xid is None and _WRITE.match(sql)
        if not begin and not asks_xid:  # a lost connection ends the transaction: it
            return self._conn.execute(text, params)  # raises in transaction()
        for again in (False, True):
            try:
                if begin and (self._conn.broken or self._conn.closed):
                    self.reconnect("the connection had been closed")
                with self._conn.pipeline():
                    for statement in _BEGIN if begin else ():
                        self._conn.execute(statement)
                    cursor = self._conn.execute(text, params)
                    xid = self._conn.execute(_XID) if asks_xid else None
                break
            except Exception as exc:  # nothing of the transaction ran before its BEGIN:
                if again or not begin or not link.is_lost(self._conn, exc):  # sent again
                    self._pending_begin = False
                    raise
                self.reconnect(link.lost_reason(exc))
        self._pending_begin = False
        if xid is not None:
            found = xid.fetchone()[0]
            self._xid = None if found is None else str(found)
        return cursor

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

    def bulk_loading(self) -> Any:
        from slicereview.store.postgres_schema import foreign_keys_checked_at_end

        return foreign_keys_checked_at_end(self.conn)

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
        return self._depth > 0 or self._open_transaction()

    def _open_transaction(self) -> bool:
        """Whether the connection is inside a transaction (not: idle, or lost)."""
        from psycopg.pq import TransactionStatus

        return self._conn.info.transaction_status in (
            TransactionStatus.ACTIVE, TransactionStatus.INTRANS, TransactionStatus.INERROR)

    @contextmanager
    def transaction(self) -> Iterator[object]:
        """One user intent (see the module docstring); nested use joins the outer one."""
        if self.in_transaction:
            yield self
            return
        self._depth, self._pending_begin, self._xid, self._only_reads = 1, True, None, True
        xid: str | None = None
        committing = False
        try:
            yield self
            if self._pending_begin:
                return  # no statement: nothing was sent, nothing to commit
            xid = self._xid
            if xid is not None:  # it wrote: the counter and the COMMIT in one message
                committing = True
                self._conn.execute(f"{_COUNT}; COMMIT")
            elif self._only_reads:
                committing = True
                self._conn.execute("COMMIT")
            else:  # (it may have written otherwise: a function, COPY, executemany)
                row = self._conn.execute(_COUNT).fetchone()
                xid = None if row is None else str(row[0])
                committing = True
                self._conn.execute("COMMIT")
            self._own_commits += xid is not None
        except BaseException as exc:
            if isinstance(exc, ConnectionLostError):
                raise  # (reconnecting gave up)
            if link.is_lost(self._conn, exc):
                if committing and (xid is None or self._committed_after_loss(xid, exc)):
                    self._own_commits += xid is not None
                    return  # committed once (or nothing to commit): the intent is done
                raise ConnectionLostError(_LOST_NOT_SAVED, saved=False, may_retry=True) from exc
            if self._open_transaction() and not self._conn.closed:
                self._conn.rollback()  # (psycopg then forgets what it prepared: a statement
                # of a pipeline that failed may have been skipped by the server unprepared)
            link.refused(exc)
            raise
        finally:
            self._depth, self._pending_begin = 0, False

    def grant_login(self, name: str) -> str | None:  # (in the caller's transaction)
        return access.grant_login(self.conn, name)

    def login(self) -> str | None:
        return str(self.execute("SELECT current_user").fetchone()[0])

    def logins(self, names: Sequence[str]) -> dict[str, bool] | None:
        return access.login_states(self.conn, names)

    def remove_login(self, name: str) -> str:
        return access.remove_login(self.conn, name)

    def claim_row(self, key: int, sql: str, args: Sequence[object] = ()) -> Any:
        """``BEGIN``, an advisory lock of (:data:`CLAIM_LOCK`, ``key``), ``sql`` (an ``UPDATE
        ... SKIP LOCKED ... RETURNING``), ``COMMIT``: one message, one round trip (the values
        bound by psycopg on this side); not the write lock, nor the change counter (a claim
        changes nothing another window shows). The lock is taken before ``sql`` starts, so
        ``sql`` sees the key's previous claim. A connection lost on the way raises
        :class:`ConnectionLostError` (``saved=None``: the claim may have been made); one the
        server cancelled (statement timeout) made nothing and is sent again (up to
        :data:`~.postgres_link.TIMEOUT_TRIES` times). In a transaction both join it."""
        if self.in_transaction:  # (an intent that claims as it starts work)
            self.execute(f"SELECT pg_advisory_xact_lock({CLAIM_LOCK}, {int(key)})")
            return self.execute(sql, args).fetchone()
        from psycopg import ClientCursor

        tried = 0
        while True:
            tried += 1
            if self._conn.broken or self._conn.closed:
                self.reconnect("the connection had been closed")
            self._depth, cursor = 1, ClientCursor(self._conn)
            try:
                cursor.execute(f"BEGIN; SELECT pg_advisory_xact_lock({CLAIM_LOCK}, "
                               f"{int(key)}); {self._translate(sql)}; COMMIT", tuple(args))
                cursor.nextset(), cursor.nextset()  # (the results of BEGIN and of the lock)
                return cursor.fetchone()
            except BaseException as exc:
                if link.is_lost(self._conn, exc):
                    raise ConnectionLostError(_LOST_UNKNOWN, saved=None) from exc
                if self._open_transaction() and not self._conn.closed:
                    self._conn.rollback()
                if link.is_timeout(exc):  # cancelled before its COMMIT: nothing was claimed,
                    if tried < link.TIMEOUT_TRIES:  # so claiming again is safe
                        continue
                    raise link.timed_out(exc, self._conn, tried=tried) from exc
                link.refused(exc)
                raise
            finally:
                self._depth = 0

    def _begin(self) -> None:  # (the pending BEGIN and write lock, alone: :attr:`conn`)
        self._in_transaction("SELECT", "SELECT 1", ())

    def _committed_after_loss(self, xid: str, exc: BaseException) -> bool:
        """After the connection was lost during ``COMMIT``: reconnect and tell whether the
        transaction was committed; when the server cannot be reached, keep it
        :attr:`unsettled` and raise :class:`ConnectionLostError` (``saved=None``)."""
        old = self._backend
        self.unsettled = xid
        try:
            self.reconnect(link.lost_reason(exc), settle=False)
        except ConnectionLostError as lost:
            raise ConnectionLostError(f"{_LOST_UNKNOWN} ({lost})", saved=None) from exc
        committed = link.outcome(self._conn, xid, old)
        self.unsettled = None
        return bool(committed)

    def reconnect(self, reason: str, *, settle: bool = True) -> None:
        """Make the lost connection again (:func:`.postgres_link.reconnect`, asking
        :attr:`wait_for_server` between attempts), end the old server process if it still
        runs, and with ``settle`` tell :attr:`on_settled` what became of :attr:`unsettled`.
        Raises :class:`ConnectionLostError` when it gives up, or at once when called again
        while it waits (the main window repaints meanwhile)."""
        if self._reconnecting:
            raise ConnectionLostError(_LOST_WAITING, saved=False)
        self._reconnecting = True
        try:
            conn = link.reconnect(self._connect, self.wait_for_server, describe(self.url),
                                  reason)
        finally:
            self._reconnecting = False
        old, self._conn = self._conn, conn
        with suppress(Exception):
            old.close()
        previous, self._backend = self._backend, link.Backend.of(conn)
        previous.end(conn)
        if settle and self.unsettled is not None:
            committed = link.outcome(conn, self.unsettled, None)
            self.unsettled = None
            self._own_commits += bool(committed)
            self.on_settled(bool(committed))

    def _connect(self) -> Any:
        return link.connect(self.url, link.settings_of(self._lock_timeout_ms, self._read_only),
                            row_factory=row_factory)

    @property
    def reconnecting(self) -> bool:  # (waiting for the server: the GUI repaints meanwhile)
        return self._reconnecting

    def data_version(self) -> int:
        """Changes when *another* connection commits (the state table's counter, less this
        connection's own commits)."""
        row = self.execute(f"SELECT data_version FROM {STATE_TABLE}").fetchone()
        return int(row[0]) - self._own_commits

    def set_busy_timeout(self, seconds: float) -> None:
        self._lock_timeout_ms = max(1, int(seconds * 1000))
        self.execute(f"SET lock_timeout = {self._lock_timeout_ms}")

    def close(self) -> None:
        self._conn.close()


_READ = re.compile(r"\s*(SELECT|SET|SHOW)\b", re.I)
_WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE)\b", re.I)
_BEGIN = ("BEGIN", f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
_XID = "SELECT CAST(pg_current_xact_id_if_assigned() AS text)"
#: The change counter, incremented when the transaction wrote (its id and the change notice):
#: through :data:`~.postgres_rules.COUNT_FN`, run as the tables' owner, since no login may
#: write the state row itself.
_COUNT = (f"SELECT public.{rules.COUNT_FN}() WHERE pg_current_xact_id_if_assigned() IS NOT NULL")
_LOST_NOT_SAVED = ("The connection to the server was lost; nothing of this change was saved "
                   "(it is saved when done again: the connection is made again first).")
_LOST_UNKNOWN = ("The connection to the server was lost while this change was being saved; "
                 "whether it was saved is checked when the connection is back (do not do it "
                 "again before)")
_LOST_WAITING = ("The connection to the server is lost and being made again; nothing was "
                 "saved, try again in a moment.")
