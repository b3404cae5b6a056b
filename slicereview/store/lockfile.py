"""Who else has a project open: a small lock file beside the project.

SQLite already keeps two connections from corrupting the file; this lock is only *information*
for people: "also open on HOST by USER since TIME". It never stops anyone from opening the
project (a second person rating a shared project on a network drive is supported).

``<name>.srproj.lock`` is a JSON object ``{"host", "pid", "user", "started", "heartbeat",
"instance"}`` (times in UTC, ISO 8601; ``instance`` a random id, so two windows of one process
are told apart). The first instance to open the project writes it (exclusive create,
so two instances starting together cannot both think they own it) and removes it on close,
only if it is still its own. Every :data:`HEARTBEAT_S` the owner rewrites ``heartbeat``; an
instance that does not own the lock takes it over when it has become *stale*:

* the same host and a ``pid`` that is no longer running (a crash or ``kill -9``), or
* a ``heartbeat`` older than :data:`STALE_HOURS` (a machine that went away).

A lock file that cannot be read (truncated, garbage) counts as stale. Locks are a courtesy:
every failure to write or remove one (read-only folder) is ignored.

Example
-------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> mine = ProjectLock(folder / "a.srproj")
>>> mine.acquire()          # nobody else: no other holder
>>> mine.owned, lock_path(folder / "a.srproj").name
(True, 'a.srproj.lock')
>>> other = ProjectLock(folder / "a.srproj", pid=1, host="elsewhere")
>>> other.acquire().host == mine.info.host
True
>>> mine.release(); other.acquire() is None
True
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import socket
import uuid
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

#: The owner refreshes its heartbeat this often (seconds).
HEARTBEAT_S = 60
#: A lock whose heartbeat is older than this is stale whatever its host.
STALE_HOURS = 2.0


def lock_path(project_path: str | Path) -> Path:
    """``<project file name>.lock`` beside the project file."""
    p = Path(project_path)
    return p.with_name(p.name + ".lock")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name (some containers): still say something
        return "unknown user"


@dataclass(frozen=True)
class LockInfo:
    """One instance that has the project open."""

    host: str
    pid: int
    user: str
    started: str
    heartbeat: str
    instance: str = ""

    def describe(self) -> str:
        """``"HOST by USER since 2026-11-23 10:14 UTC"``."""
        when = self.started.replace("T", " ")[:16]
        return f"{self.host} by {self.user} since {when} UTC"


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    except OSError:
        return False
    return True


def read_lock(path: str | Path) -> LockInfo | None:
    """The lock beside project ``path``; ``None`` if there is none or it cannot be read."""
    try:
        data = json.loads(lock_path(path).read_text(encoding="utf-8"))
        return LockInfo(str(data["host"]), int(data["pid"]), str(data["user"]),
                        str(data["started"]), str(data["heartbeat"]),
                        str(data.get("instance", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_stale(info: LockInfo | None, *, host: str | None = None,
             stale_hours: float = STALE_HOURS, now: datetime | None = None) -> bool:
    """Whether a lock no longer stands for a running instance (see the module docstring)."""
    if info is None:
        return True
    if info.host == (host or socket.gethostname()) and not _pid_alive(info.pid):
        return True
    try:
        beat = datetime.fromisoformat(info.heartbeat)
    except ValueError:
        return True
    if beat.tzinfo is None:
        beat = beat.replace(tzinfo=timezone.utc)
    return (now or _now()) - beat > timedelta(hours=stale_hours)


class ProjectLock:
    """This instance's lock on one project file."""

    def __init__(self, project_path: str | Path, *, host: str | None = None,
                 pid: int | None = None, user: str | None = None,
                 stale_hours: float = STALE_HOURS) -> None:
        self.path = lock_path(project_path)
        self.project_path = Path(project_path)
        started = _now().isoformat(timespec="seconds")
        self.info = LockInfo(host or socket.gethostname(), os.getpid() if pid is None else pid,
                             user or _user(), started, started, uuid.uuid4().hex)
        self.stale_hours = stale_hours
        self.owned = False

    def _is_mine(self, info: LockInfo | None) -> bool:
        return info is not None and (info.host, info.pid, info.instance) == (
            self.info.host, self.info.pid, self.info.instance)

    def _write(self, *, exclusive: bool) -> bool:
        data = json.dumps(asdict(self.info), indent=1)
        try:
            if exclusive:
                with self.path.open("x", encoding="utf-8") as fh:
                    fh.write(data)
            else:
                tmp = self.path.with_name(f"{self.path.name}.{self.info.pid}.tmp")
                tmp.write_text(data, encoding="utf-8")
                os.replace(tmp, self.path)
        except OSError:
            return False
        return True

    def acquire(self) -> LockInfo | None:
        """Take the lock if it is free or stale; return the *other* holder, else ``None``.

        Called on open and on every heartbeat (so a lock freed by the other instance, or gone
        stale, is taken over; the owner's heartbeat is refreshed).
        """
        current = read_lock(self.project_path)
        if self._is_mine(current):
            self.info = replace(self.info, heartbeat=_now().isoformat(timespec="seconds"))
            self.owned = self._write(exclusive=False)
            return None
        self.owned = False
        if current is not None and not is_stale(current, host=self.info.host,
                                                stale_hours=self.stale_hours):
            return current
        if current is not None or self.path.exists():  # stale or unreadable: clear it
            with contextlib.suppress(OSError):
                self.path.unlink()
        self.owned = self._write(exclusive=True)
        if self.owned:
            return None
        other = read_lock(self.project_path)  # someone won the race
        return None if other is None or self._is_mine(other) else other

    heartbeat = acquire

    def release(self) -> None:
        """Remove the lock if it is still this instance's."""
        if self._is_mine(read_lock(self.project_path)):
            with contextlib.suppress(OSError):
                self.path.unlink()
        self.owned = False
