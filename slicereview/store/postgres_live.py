"""Live change notices and who else is there, for a project on a server.

**Change notices.** Every committed write transaction sends ``NOTIFY`` on
:data:`~.postgres.CHANNEL` from its one commit point
(:meth:`.postgres.PostgresDatabase.transaction`; PostgreSQL delivers it when, and only if, the
transaction commits). A :class:`Listener` is a
second connection that ``LISTEN``\\ s: its socket becomes readable when a notice arrives, so a
window waits on the socket (a Qt socket notifier) instead of polling, and :meth:`Listener.read`
never blocks. The same socket also becomes readable when the server or the network goes away:
:meth:`Listener.read` then raises :class:`~.errors.ConnectionLostError`.

**Who else is there.** A server project has no lock file. A window's listener connects with the
``application_name`` ``"slicereview window <start> <host>"`` (start: seconds since 1970, UTC),
which PostgreSQL shows to every login in ``pg_stat_activity`` along with the login's name, and
ends when the window closes or its process dies (the server drops the session; after a network
drop, within the keepalive time). :func:`visitors` reads them: nothing is written anywhere and
no heartbeat is needed. A listener says :data:`HELLO` when it starts and :data:`BYE` before it
closes, so other windows update the list at once.

Example
-------
>>> window_name(1714572300, "ward-3")
'slicereview window 1714572300 ward-3'
>>> Visitor.parse("anna", "slicereview window 1714572300 ward-3", 42).describe()
'ward-3 by anna since 2024-05-01 14:05 UTC'
>>> Visitor.parse("bob", "psql", 43) is None
True
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from slicereview.store import postgres_link as link
from slicereview.store.errors import ConnectionLostError
from slicereview.store.postgres import CHANGED, CHANNEL

#: What a window's listener is called in ``pg_stat_activity`` (then its start and host).
WINDOW_PREFIX = "slicereview window"
#: Notices a listener sends about itself.
HELLO, BYE = "hello", "bye"
#: PostgreSQL keeps the first 63 bytes of an ``application_name``.
_NAME_BYTES = 63

__all__ = ["BYE", "CHANGED", "CHANNEL", "HELLO", "Listener", "Notice", "Visitor",
           "visitors", "window_name"]


def window_name(started: int, host: str) -> str:
    """The ``application_name`` of a window's listener (cut to what PostgreSQL keeps)."""
    name = f"{WINDOW_PREFIX} {started} {host}"
    return name.encode()[:_NAME_BYTES].decode("utf-8", "ignore")


@dataclass(frozen=True)
class Notice:
    """One notice: ``payload`` (:data:`~.postgres.CHANGED`, :data:`HELLO`, :data:`BYE`) sent
    by the server process ``pid``."""

    payload: str
    pid: int


@dataclass(frozen=True)
class Visitor:
    """Another window on the same server project: the login, its host, since when."""

    user: str
    host: str
    since: datetime | None
    pid: int

    @classmethod
    def parse(cls, user: str, application_name: str, pid: int) -> Visitor | None:
        if not application_name.startswith(WINDOW_PREFIX + " "):
            return None
        rest = application_name[len(WINDOW_PREFIX) + 1:]
        started, _, host = rest.partition(" ")
        since = (datetime.fromtimestamp(int(started), timezone.utc) if started.isdigit()
                 else None)
        return cls(user, host or "?", since, pid)

    def describe(self) -> str:
        """``HOST by USER since TIME`` (as the lock file of a project file says it)."""
        when = "" if self.since is None else f" since {self.since:%Y-%m-%d %H:%M} UTC"
        return f"{self.host} by {self.user}{when}"


class Listener:
    """A connection that listens for the project's notices (see the module docstring).

    :meth:`open` blocks while it connects (run it off the GUI thread); everything else is
    quick: :meth:`read` only takes what already arrived.
    """

    def __init__(self, conn: Any, url: str) -> None:
        self.conn = conn
        self.url = url
        #: The server process of this listener (others see it in ``pg_stat_activity``).
        self.pid = int(conn.info.backend_pid)

    @classmethod
    def open(cls, url: str, started: int | None = None) -> Listener:
        """Connect to ``url``, ``LISTEN`` and say :data:`HELLO`; raises the store's
        :class:`~.errors.ServerError` subclasses. ``started``: when the window opened the
        project (seconds since 1970; default now), so that a listener made again after a
        lost connection still says since when the window is there."""
        started = int(time.time()) if started is None else started
        name = window_name(started, socket.gethostname())
        conn = link.connect(url, {}, application_name=name)
        try:
            conn.execute(f"LISTEN {CHANNEL}")
            conn.execute(f"NOTIFY {CHANNEL}, '{HELLO}'")
        except BaseException:
            conn.close()
            raise
        return cls(conn, url)

    def fileno(self) -> int:
        """The socket to wait on: readable when a notice arrived or the connection broke."""
        return int(self.conn.fileno())

    def read(self) -> list[Notice]:
        """The notices that arrived (possibly none); never blocks. Raises
        :class:`~.errors.ConnectionLostError` when the connection broke."""
        pgconn = self.conn.pgconn
        try:
            pgconn.consume_input()
        except Exception as exc:
            raise ConnectionLostError(
                f"The connection to the server was lost ({link.lost_reason(exc)}).") from exc
        found: list[Notice] = []
        while True:
            notice = pgconn.notifies()
            if notice is None:
                break
            found.append(Notice(notice.extra.decode("utf-8", "replace"), int(notice.be_pid)))
        if pgconn.status != 0:  # CONNECTION_OK: the server ended the session (a FATAL)
            raise ConnectionLostError("The connection to the server was lost (the server "
                                      "ended the session).")
        return found

    def close(self, *, say_bye: bool = True) -> None:
        """Say :data:`BYE` (unless the connection is already lost) and disconnect."""
        try:
            if say_bye and not self.conn.broken and not self.conn.closed:
                self.conn.execute(f"NOTIFY {CHANNEL}, '{BYE}'")
        except Exception:  # leaving anyway; the server drops the session
            pass
        finally:
            self.conn.close()


def visitors(db: Any, *, exclude: set[int] = frozenset()) -> list[Visitor]:  # type: ignore[assignment]
    """The other windows on the database of ``db`` (a :class:`~.postgres.PostgresDatabase`),
    oldest first; ``exclude``: server processes to leave out (this window's listener, one that
    said :data:`BYE`)."""
    rows = db.execute(
        "SELECT usename, application_name, pid FROM pg_stat_activity "
        "WHERE datname = current_database() AND application_name LIKE ? ORDER BY pid",
        (WINDOW_PREFIX + " %",)).fetchall()
    found = [Visitor.parse(str(r[0] or "?"), str(r[1]), int(r[2])) for r in rows
             if int(r[2]) not in exclude]
    return sorted((v for v in found if v is not None),
                  key=lambda v: (v.since or datetime.max.replace(tzinfo=timezone.utc), v.pid))
