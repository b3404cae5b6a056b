"""A throwaway PostgreSQL cluster for the test session (``initdb`` + ``pg_ctl``).

The cluster lives in a temporary folder, listens on a Unix socket in that folder only (no TCP:
``listen_addresses=''``) and is stopped and deleted at the end. PostgreSQL refuses to run as
root, so when the tests run as root (CI, these machines) the server runs as the ``postgres``
user of the OS package (``runuser -u postgres --``), which owns the folder.

The binaries are found through ``SLICEREVIEW_PG_BIN``, ``pg_config --bindir`` or
``/usr/lib/postgresql/<version>/bin`` (Debian's ``postgresql`` package).
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Settings of a cluster that holds nothing worth keeping: no TCP, no durability (a crashed
#: test server loses nothing anyone needs), room for the connections of one test run.
_SERVER_OPTIONS = (
    "-c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
    "-c max_connections=200 -c shared_buffers=32MB"
)


def find_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``, or ``None`` when PostgreSQL is not installed."""
    given = os.environ.get("SLICEREVIEW_PG_BIN")
    if given:
        return Path(given) if (Path(given) / "initdb").is_file() else None
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        folder = Path(out.stdout.strip())
        if (folder / "initdb").is_file():
            return folder
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name) if
                   Path(p).parent.parent.name.isdigit() else 0)
    return Path(found[-1]).parent if found else None


class Cluster:
    """One running test cluster; :meth:`new_database` makes an empty database per test."""

    def __init__(self, bin_dir: Path, parent: Path | None = None, *,
                 durable: bool = False, settings: str = "") -> None:
        """``parent``: the folder to make the cluster's folder in (the temporary folder when
        not given); the ``postgres`` user must be able to reach it when the tests run as
        root. ``durable``: commits survive :meth:`halt` (``synchronous_commit=on``; the
        session's cluster does without). ``settings``: more server options, last (they
        win), e.g. ``-c fsync=on`` for a server that flushes as a real one does."""
        self.bin = bin_dir
        self.options = (_SERVER_OPTIONS + (" -c synchronous_commit=on" if durable else "")
                        + (f" {settings}" if settings else ""))
        self.root = Path(tempfile.mkdtemp(prefix="slicereview-pg-", dir=parent))
        self.data = self.root / "data"
        self.socket = self.root / "socket"
        self.socket.mkdir()
        self.as_postgres: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            for folder in (self.root, self.socket):
                os.chown(folder, user.pw_uid, user.pw_gid)
            self.as_postgres = ["runuser", "-u", "postgres", "--"]
        self.user = "postgres" if self.as_postgres else pwd.getpwuid(os.geteuid()).pw_name
        self._names = itertools.count(1)
        self._run("initdb", "-D", str(self.data), "--auth=trust", "--encoding=UTF8",
                  "--locale=C.UTF-8", "-U", self.user)
        self.start()

    def start(self) -> None:
        """Start the server (again, after :meth:`halt`)."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-w",
                  "-o", f"{self.options} -c unix_socket_directories='{self.socket}'",
                  "start")

    def halt(self) -> None:
        """Stop the server at once, keeping its data (a crash or a restart: :meth:`start`
        brings it back)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run([*self.as_postgres, str(self.bin / program), *args],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()}")

    def url(self, database: str = "postgres") -> str:
        """A libpq URL of ``database`` on this cluster's socket."""
        return f"postgresql://{self.user}@/{database}?host={self.socket}"

    def admin(self, sql: str) -> None:
        """Run one statement as the superuser in the ``postgres`` database (autocommit)."""
        import psycopg
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self, prefix: str = "t") -> str:
        """The URL of a new, empty database."""
        name = f"{prefix}{next(self._names)}"
        self.admin(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url`` (closing connections a test left open)."""
        name = url.split("?")[0].rsplit("/", 1)[1]
        self.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():  # (not after a halt)
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def fingerprint(location: object) -> str:
    """What proves a project unchanged: the SHA-256 of a project file's bytes, or of every row
    of every table of a database (the server's change counter included)."""
    import psycopg
    if not isinstance(location, str):
        return hashlib.sha256(Path(location).read_bytes()).hexdigest()  # type: ignore[arg-type]
    digest = hashlib.sha256()
    with psycopg.connect(location) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() ORDER BY 1")]
        for table in tables:
            digest.update(table.encode())
            rows = conn.execute(f"SELECT * FROM {table}").fetchall()
            for row in sorted(rows, key=repr):
                digest.update(repr(row).encode())
    return digest.hexdigest()


def foreign(location: object) -> object:
    """Make ``location`` hold something that is not a project: a text file, or a database
    with another program's table. Returns ``location``."""
    import psycopg
    if isinstance(location, str):
        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute("CREATE TABLE notes (line text)")
            conn.execute("INSERT INTO notes VALUES ('hello')")
    else:
        Path(location).write_text("hello")  # type: ignore[arg-type]
    return location
