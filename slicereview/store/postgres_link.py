"""The connection to a server project: making it, telling why it failed, making it again.

**Connecting** (:func:`connect`): psycopg in autocommit mode with the session settings of a
project (``lock_timeout``, read-only, ``idle_in_transaction_session_timeout``), an
``application_name`` and, over TCP, keepalives and a user timeout so that a dropped network
is noticed within about 30 s instead of the operating system's two hours (libpq ignores them
on a Unix socket). A failure becomes one of the store's typed errors (:func:`connect_error`):
the server does not answer (:class:`~.errors.ServerUnreachableError`), it wants a password or
refuses the login (:class:`~.errors.AuthenticationError`), it has no such database
(:class:`~.errors.NoSuchDatabaseError`); the messages never show a password.

**Reconnecting** after the connection broke (:class:`~.postgres.PostgresDatabase` calls
:func:`reconnect`): attempts at once, then after :data:`PAUSES` (doubling up to 8 s), asking
the front end's :data:`Wait` between attempts -- the command line sleeps for up to
:data:`PATIENCE_S`, the main window shows the state and keeps repainting, and either may give
up. Once back, the old server process is ended if it still runs (after a network drop it may
sit in its transaction, holding the write lock, until the server notices), and
:func:`outcome` tells whether a transaction whose ``COMMIT`` got no answer was committed, with
PostgreSQL's ``pg_xact_status``: a write is committed once or reported as not saved, never
repeated blindly.

Example
-------
>>> waited = []
>>> patient(5.0, sleep=waited.append)(Outage(1, 0.25, 0.0, "lost"))
True
>>> patient(5.0, sleep=waited.append)(Outage(7, 8.0, 4.0, "lost")), waited
(False, [0.25])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slicereview.store.errors import (
    AuthenticationError,
    ConnectionLostError,
    NoSuchDatabaseError,
    ProjectBusyError,
    ProjectError,
    ServerError,
    ServerTimeoutError,
    ServerUnreachableError,
)
from slicereview.store.location import describe

CONNECT_TIMEOUT_S = 10
#: Pauses between reconnection attempts, in seconds (the last one repeats).
PAUSES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: How long the command line keeps trying to reconnect before it gives up.
PATIENCE_S = 30.0
#: A server process left in a transaction by a lost client is ended after this long (ms).
IDLE_IN_TRANSACTION_MS = 120_000
#: TCP keepalives and user timeout (a dropped network is noticed in about 30 s).
_TCP: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
        "keepalives_count": 3, "tcp_user_timeout": 30_000}


@dataclass(frozen=True)
class Outage:
    """One pause of a reconnection: before ``attempt`` + 1, after ``elapsed_s`` seconds of
    trying; ``message`` says what happened, for people."""

    attempt: int
    pause_s: float
    elapsed_s: float
    message: str


#: Called between reconnection attempts; waits ``pause_s`` (or less) and returns whether to
#: try again.
Wait = Callable[[Outage], bool]


def patient(limit_s: float = PATIENCE_S, sleep: Callable[[float], object] = time.sleep
            ) -> Wait:
    """The command line's :data:`Wait`: sleep each pause, give up after ``limit_s``."""

    def wait(outage: Outage) -> bool:
        if outage.elapsed_s + outage.pause_s > limit_s:
            return False
        sleep(outage.pause_s)
        return True

    return wait


def connect(url: str, settings: dict[str, str], *, application_name: str = "slicereview",
            row_factory: Any = None) -> Any:
    """A new autocommit connection to ``url`` with the session ``settings`` applied
    (``SET name = value`` each); raises the typed :class:`~.errors.ServerError` of
    :func:`connect_error`."""
    try:
        import psycopg
    except ImportError as exc:
        raise ProjectError(
            "Opening a project on a PostgreSQL server needs psycopg: install it with "
            "`pip install \"slicereview[server]\"` (or `pip install \"psycopg[binary]\"`)."
        ) from exc
    extra: dict[str, Any] = {} if row_factory is None else {"row_factory": row_factory}
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                               application_name=application_name, **_TCP, **extra)
    except psycopg.Error as exc:
        raise connect_error(url, exc) from None  # (its pgconn would show the password)
    try:
        for name, value in settings.items():
            conn.execute(f"SET {name} = {value}")
    except BaseException:
        conn.close()
        raise
    return conn


def connect_error(url: str, exc: BaseException) -> ServerError:
    """The store's error for a failed connection attempt (libpq reports these without an
    SQLSTATE: the kind is read from the connection's state and libpq's words)."""
    where = describe(url)
    text = str(exc).strip()
    reason = text.splitlines()[0] if text else type(exc).__name__
    reason = reason.removeprefix("connection failed: ").removeprefix("connection is bad: ")
    pgconn = getattr(exc, "pgconn", None)
    user = getattr(getattr(pgconn, "user", None), "decode", lambda *_: "")("utf-8", "replace")
    login = f" as {user}" if user else ""
    if getattr(pgconn, "needs_password", False):
        return AuthenticationError(
            f"{where}: the server asks for a password{login}. Type it when slicereview asks "
            "(the main window, or a command run in a terminal), or put it in ~/.pgpass (or "
            "the PGPASSWORD variable).", needs_password=True, where=where)
    if "password authentication failed" in text or "authentication failed" in text:
        return AuthenticationError(
            f"{where}: the server refused the login{login} (wrong password, or this login may "
            f"not sign in this way): {_server_words(reason)}", where=where,
            password_refused="password" in text)
    if "role" in text and "does not exist" in text:
        return AuthenticationError(
            f"{where}: the server has no login{login or ' of that name'}; ask the project's "
            f"owner for one ({_server_words(reason)}).")
    if "pg_hba.conf" in text:
        return AuthenticationError(
            f"{where}: the server does not let this login in from here (its pg_hba.conf has "
            f"no line for it); ask the server's administrator ({_server_words(reason)}).")
    if "database" in text and "does not exist" in text:
        return NoSuchDatabaseError(
            f"{where}: the server has no such database; check its name, or create it "
            f"(`createdb`) ({_server_words(reason)}).")
    if "FATAL:" in text and "starting up" not in text and "shutting down" not in text:
        return ServerError(f"{where}: the server refused the connection: "
                           f"{_server_words(reason)}")
    return ServerUnreachableError(
        f"Cannot reach the server of {where}: {reason}. Check the host, port or socket "
        "folder, that the server runs, and the network.")


def _server_words(reason: str) -> str:
    """libpq's reason without the repeated socket/host prefix: what the server said."""
    return reason.split("FATAL:", 1)[1].strip() if "FATAL:" in reason else reason


def is_lost(conn: Any, exc: BaseException) -> bool:
    """Whether ``exc`` means the connection ``conn`` broke (the server or the network went
    away, or the server process was ended), rather than a statement failing."""
    if isinstance(exc, ConnectionLostError):
        return True
    try:
        import psycopg
    except ImportError:  # pragma: no cover - a server project was opened
        return False
    if not isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
        return False
    return bool(conn.broken or conn.closed)


def lost_reason(exc: BaseException) -> str:
    """A one-line reason of a lost connection, for messages."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@dataclass(frozen=True)
class Backend:
    """The server process of a connection: its pid and start time (a pid may be reused)."""

    pid: int
    started: object

    @classmethod
    def of(cls, conn: Any) -> Backend:
        row = conn.execute("SELECT pg_backend_pid(), backend_start FROM pg_stat_activity "
                           "WHERE pid = pg_backend_pid()").fetchone()
        return cls(int(row[0]), row[1])

    def end(self, conn: Any) -> None:
        """End this server process (through ``conn``) if it still runs: after a network
        drop it may still hold its transaction and the write lock."""
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE pid = %s AND backend_start = %s", (self.pid, self.started))


def reconnect(open_connection: Callable[[], Any], wait: Wait, what: str, reason: str
              ) -> Any:
    """A new connection from ``open_connection``, trying again after :data:`PAUSES` while
    ``wait`` agrees; raises :class:`~.errors.ConnectionLostError` (nothing saved, no retry)
    when it gives up or the login is refused now."""
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        try:
            return open_connection()
        except (AuthenticationError, NoSuchDatabaseError) as exc:  # retrying will not help
            raise ConnectionLostError(
                f"The connection to {what} was lost and cannot be made again: {exc} "
                "Nothing of the change in progress was saved.") from exc
        except ServerError as exc:  # not reachable, starting up, too many connections
            reason = str(exc)
        pause = PAUSES[min(attempt, len(PAUSES)) - 1]
        message = (f"The connection to {what} was lost ({_short(reason)}); reconnecting "
                   f"(attempt {attempt + 1} in {pause:g} s)…")
        if not wait(Outage(attempt, pause, time.monotonic() - started, message)):
            raise ConnectionLostError(
                f"The connection to {what} was lost and the server could not be reached "
                f"again ({_short(reason)}). Nothing of the change in progress was saved; "
                "try again when the server is back.")


def _short(reason: str) -> str:
    return reason if len(reason) <= 160 else reason[:157] + "…"


def outcome(conn: Any, xid: str, old: Backend | None, pause_s: float = 0.05,
            tries: int = 100) -> bool | None:
    """Whether transaction ``xid`` (its ``pg_current_xact_id()``) was committed, asked on a
    new connection ``conn`` after the old one (``old``) was lost during its ``COMMIT``.

    A transaction still in progress (its server process has not noticed the lost client) is
    ended first, so the answer is final. ``None`` when the server no longer knows the
    transaction (far in the past: never the case right after a reconnection).
    """
    for _ in range(tries):
        status = conn.execute("SELECT pg_xact_status(CAST(%s AS xid8))", (xid,)).fetchone()[0]
        if status == "committed":
            return True
        if status == "aborted":
            return False
        if status is None:
            return None
        if old is not None:
            old.end(conn)
        time.sleep(pause_s)
    return None  # pragma: no cover - a terminated process ends its transaction at once


def settings_of(lock_timeout_ms: int, read_only: bool) -> dict[str, str]:
    """The session settings of a project's connection."""
    found = {"lock_timeout": str(max(1, lock_timeout_ms)),
             "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_MS)}
    if read_only:
        found["default_transaction_read_only"] = "on"
    return found


#: SQLSTATE of a statement the login's privileges or row-level security refuse.
NOT_ALLOWED = "42501"
BUSY_MESSAGE = ("The project is busy (another user is writing to it); nothing was saved "
                "yet, try again in a moment.")


#: SQLSTATE of a statement the server cancelled: its ``statement_timeout``, or a cancel
#: request (``pg_cancel_backend``).
CANCELLED = "57014"
#: How many times a read, or a claim, that the server cancelled is sent in all.
TIMEOUT_TRIES = 3


def is_timeout(exc: BaseException) -> bool:
    """Whether the server cancelled the statement (``statement_timeout``, or a cancel)."""
    return getattr(exc, "sqlstate", None) == CANCELLED


def timed_out(exc: BaseException, conn: Any = None, *, tried: int = 1,
              changed: bool = True) -> ServerTimeoutError:
    """The one-sentence error of a statement the server cancelled (see :func:`is_timeout`);
    ``conn`` (idle, not in a failed transaction) names this login's ``statement_timeout``;
    ``tried``: how many times it was sent; ``changed``: it may have been a write."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    limit = ""
    if conn is not None and "statement timeout" in text:
        try:
            limit = f" ({conn.execute('SHOW statement_timeout').fetchone()[0]} for this login)"
        except Exception:  # (the connection may be unusable: then it is not named)
            limit = ""
    what = "nothing was changed" if changed else "nothing was read"
    times = f", {tried} times," if tried > 1 else ""
    if "statement timeout" in text:
        return ServerTimeoutError(
            f"The server stopped the statement{times} when it ran longer than its "
            f"statement_timeout allows{limit}, so {what}; try again in a moment (the server "
            "or the project may be busy), or ask the server's administrator to raise "
            "statement_timeout.")
    return ServerTimeoutError(
        f"The server cancelled the statement{times} ({text or 'a cancel request'}), so "
        f"{what}; try again in a moment.")


def refused(exc: BaseException) -> None:
    """Raise the one-sentence error of a write the server refused: busy, cancelled (its
    statement timeout), or not allowed to this login (its privileges, row-level security or
    the data rules); else nothing."""
    if is_timeout(exc):
        raise timed_out(exc) from exc
    if is_busy(exc):
        raise ProjectBusyError(BUSY_MESSAGE) from exc
    if getattr(exc, "sqlstate", None) == NOT_ALLOWED:
        raise ServerError(
            "Your login may not change this (on a server, an annotator changes only their own "
            "work; reviewers and owners the rest), so nothing was saved: "
            f"{str(exc).strip().splitlines()[0]}") from exc


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is a lock wait that timed out, a deadlock or a serialisation failure
    (the transaction was rolled back and may be retried)."""
    if isinstance(exc, ProjectBusyError):
        return True
    sqlstate = getattr(exc, "sqlstate", None)
    return sqlstate in ("55P03", "40001", "40P01")
