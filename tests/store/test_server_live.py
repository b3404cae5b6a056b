"""Two users of one server project, live: the change notices (``LISTEN/NOTIFY``) one
connection gets when another commits, who else has the project open, and a connection killed
by the server (``pg_terminate_backend``) in the middle of a session: reads go on, a write is
committed once or refused with :class:`ConnectionLostError` (nothing of it saved), and what
became of a ``COMMIT`` without an answer is read from the server (``pg_xact_status``)."""

from __future__ import annotations

import contextlib
import select
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from slicereview.store import Project
from slicereview.store.errors import ConnectionLostError
from slicereview.store.postgres import CHANGED
from slicereview.store.postgres_link import Backend, outcome
from slicereview.store.postgres_live import BYE, HELLO, Listener, visitors


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("live")
    Project.create(made, name="live").close()
    yield made
    postgres_cluster.drop_database(made)


def _notices(listener: Listener, wanted: str, timeout_s: float = 60.0) -> list:
    """The notices that arrive within ``timeout_s`` until one says ``wanted`` (waiting on the
    socket as the window's socket notifier does)."""
    found: list = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([listener.fileno()], [], [], deadline - time.monotonic())
        if ready:
            found += listener.read()
            if any(n.payload == wanted for n in found):
                return found
    return found


def _terminate(cluster, pid: int) -> None:
    cluster.admin(f"SELECT pg_terminate_backend({pid}, 5000)")


def test_a_commit_of_one_user_reaches_the_other_user_at_once(url):
    with Project.open(url) as anna, Project.open(url) as bob:
        listener = Listener.open(url)
        try:
            before = bob.data_version()
            anna.raters.add("anna")
            got = _notices(listener, CHANGED)
            assert [n.payload for n in got if n.payload == CHANGED] == [CHANGED]
            assert got[-1].pid == anna.db.conn.info.backend_pid  # who committed: pushed
            assert bob.data_version() != before
            assert [r.name for r in bob.raters.all()] == ["anna"]
            # a read-only intent or a transaction that wrote nothing sends nothing
            with anna.transaction():
                anna.raters.all()
            assert _notices(listener, CHANGED, timeout_s=0.3) == []
        finally:
            listener.close()


def test_a_rolled_back_write_sends_no_notice(url):
    with Project.open(url) as anna:
        listener = Listener.open(url)
        try:
            with pytest.raises(RuntimeError), anna.transaction():
                anna.raters.add("never")
                raise RuntimeError("the intent failed")
            assert _notices(listener, CHANGED, timeout_s=0.3) == []
            assert anna.raters.all() == []
        finally:
            listener.close()


def test_windows_see_who_else_is_there(url):
    with Project.open(url) as project:
        first = Listener.open(url)
        second = Listener.open(url)
        try:
            assert any(n.payload == HELLO for n in _notices(first, HELLO))
            others = visitors(project.db, exclude={first.pid})
            assert [v.pid for v in others] == [second.pid]
            assert others[0].user and others[0].describe().startswith(others[0].host + " by ")
            second.close()
            bye = [n for n in _notices(first, BYE) if n.payload == BYE]
            assert [n.pid for n in bye] == [second.pid]
            # the window that said goodbye is left out at once (the server may list its
            # session for a moment more) and is gone from the server soon after
            assert visitors(project.db, exclude={first.pid, bye[0].pid}) == []
            deadline = time.monotonic() + 5
            while visitors(project.db, exclude={first.pid}) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert visitors(project.db, exclude={first.pid}) == []
        finally:
            first.close()


def test_a_listener_whose_connection_is_ended_says_so(url, postgres_cluster):
    listener = Listener.open(url)
    try:
        _terminate(postgres_cluster, listener.pid)
        select.select([listener.fileno()], [], [], 2.0)
        with pytest.raises(ConnectionLostError, match="connection to the server was lost"):
            for _ in range(20):  # the socket says "readable"; the read says why
                listener.read()
                time.sleep(0.05)
    finally:
        listener.close()


def test_reads_and_writes_go_on_after_the_server_ended_the_connection(url, postgres_cluster):
    with Project.open(url) as project:
        project.raters.add("anna")
        _terminate(postgres_cluster, project.db.conn.info.backend_pid)
        assert [r.name for r in project.raters.all()] == ["anna"]  # a read: reconnected
        _terminate(postgres_cluster, project.db.conn.info.backend_pid)
        project.raters.add("bob")  # a write: reconnected before it began, committed once
        with Project.open(url) as other:
            assert sorted(r.name for r in other.raters.all()) == ["anna", "bob"]


def test_a_write_cut_off_mid_transaction_is_refused_and_nothing_of_it_saved(
        url, postgres_cluster):
    with Project.open(url) as project:
        with pytest.raises(ConnectionLostError) as lost, project.transaction():
            project.raters.add("half")
            _terminate(postgres_cluster, project.db.conn.info.backend_pid)
            project.raters.add("other half")
        assert lost.value.saved is False and lost.value.may_retry
        assert "nothing of this change was saved" in str(lost.value)
        assert project.raters.all() == []  # (this read reconnects)
        project.raters.add("again")  # the same intent, repeated: committed once
        assert [r.name for r in project.raters.all()] == ["again"]


def test_the_fate_of_a_commit_without_an_answer_is_read_from_the_server(url):
    """``outcome`` tells committed from rolled back, and ends a transaction whose client went
    away before asking (its server process still runs) so that the answer is final."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, \
            psycopg.connect(url, autocommit=True) as asker:
        conn.execute("BEGIN")
        conn.execute("CREATE TEMP TABLE t (x int)")
        committed = conn.execute("SELECT CAST(pg_current_xact_id() AS text)").fetchone()[0]
        conn.execute("COMMIT")
        conn.execute("BEGIN")
        conn.execute("CREATE TEMP TABLE u (x int)")
        rolled = conn.execute("SELECT CAST(pg_current_xact_id() AS text)").fetchone()[0]
        conn.execute("ROLLBACK")
        assert outcome(asker, committed, None) is True
        assert outcome(asker, rolled, None) is False
        backend = Backend.of(conn)
        conn.execute("BEGIN")
        conn.execute("CREATE TEMP TABLE v (x int)")
        hanging = conn.execute("SELECT CAST(pg_current_xact_id() AS text)").fetchone()[0]
        assert outcome(asker, hanging, backend) is False  # ended, so never committed
        assert conn.closed or conn.broken or _is_gone(conn)


def _is_gone(conn) -> bool:
    import psycopg

    try:
        conn.execute("SELECT 1")
    except psycopg.OperationalError:
        return True
    return False


@pytest.fixture(scope="module")
def own_cluster(postgres_cluster):
    """A cluster of these tests alone (they stop and start it again mid-test)."""
    from tests.postgres_cluster import Cluster

    cluster = Cluster(postgres_cluster.bin, postgres_cluster.root.parent, durable=True)
    yield cluster
    cluster.stop()


def test_a_stopped_server_refuses_the_write_with_a_message_and_a_restart_brings_it_back(
        own_cluster):
    from slicereview.store.postgres_link import patient

    url = own_cluster.new_database("down")
    with Project.create(url, name="down") as project:
        project.raters.add("before")
        outages: list = []
        project.db.wait_for_server = lambda outage: (outages.append(outage)
                                                     or patient(1.0)(outage))
        own_cluster.halt()
        started = time.monotonic()
        with pytest.raises(ConnectionLostError) as lost:
            project.raters.add("while down")
        assert time.monotonic() - started < 120  # (gave up; not a hang)
        assert lost.value.saved is False
        assert "could not be reached again" in str(lost.value)
        assert "Nothing of the change in progress was saved" in str(lost.value)
        assert outages and "reconnecting (attempt 2" in outages[0].message
        own_cluster.start()
        project.raters.add("after")
        assert [r.name for r in project.raters.all()] == ["before", "after"]


def test_a_server_back_while_the_write_waits_commits_it_once(own_cluster):
    url = own_cluster.new_database("restart")
    with Project.create(url, name="restart") as project:
        project.raters.add("before")
        own_cluster.halt()

        def wait(outage) -> bool:  # the server comes back during the second pause
            if outage.attempt == 2:
                own_cluster.start()
            time.sleep(outage.pause_s)
            return outage.attempt < 10

        project.db.wait_for_server = wait
        project.raters.add("during")
        with Project.open(url) as other:
            assert [r.name for r in other.raters.all()] == ["before", "during"]


class CutAtCommit:
    """A relay on a Unix socket in front of the cluster that, when :attr:`mode` is set, cuts
    the next connection sending ``COMMIT``: ``"after"`` forwards the ``COMMIT`` and drops the
    connection before the server's answer comes back (the server commits; the client does not
    know), ``"before"`` drops it without forwarding (nothing is committed)."""

    def __init__(self, target: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="relay-"))
        self.target = str(target / ".s.PGSQL.5432")
        self.mode: str | None = None
        #: Set: every new connection is closed at once (the server cannot be reached).
        self.refuse = False
        self.cuts = 0
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(str(self.folder / ".s.PGSQL.5432"))
        self.listener.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refuse:  # the server is away: the connection closes at once
                client.close()
                continue
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.target)
            muted = threading.Event()  # the server's answers are no longer passed on
            for args in ((client, server, muted, True), (server, client, muted, False)):
                threading.Thread(target=self._pump, args=args, daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, muted: threading.Event,
              upstream: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if not upstream and muted.is_set():
                    continue
                if upstream and self.mode and b"COMMIT" in data:
                    mode, self.mode = self.mode, None
                    muted.set()
                    if mode == "after":
                        sink.sendall(data)
                        time.sleep(0.3)  # the server commits; its answer is not passed on
                    self.cuts += 1
                    for end in (source, sink):
                        with contextlib.suppress(OSError):
                            end.shutdown(socket.SHUT_RDWR)
                    return
                sink.sendall(data)

    def url(self, url: str, cluster) -> str:
        return url.replace(f"host={cluster.socket}", f"host={self.folder}")

    def close(self) -> None:
        self.listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def relay(postgres_cluster):
    made = CutAtCommit(postgres_cluster.socket)
    yield made
    made.close()


def test_a_commit_whose_answer_was_lost_counts_as_saved_once(url, postgres_cluster, relay):
    with Project.open(relay.url(url, postgres_cluster)) as project:
        before = project.data_version()
        relay.mode = "after"
        project.raters.add("once")  # no error: the server says it was committed
        assert relay.cuts == 1
        assert [r.name for r in project.raters.all()] == ["once"]  # not repeated
        assert project.data_version() == before  # counted as this connection's own commit
        assert project.db.unsettled is None
    with Project.open(url) as other:
        assert [r.name for r in other.raters.all()] == ["once"]


def test_a_commit_that_never_reached_the_server_is_refused_as_not_saved(
        url, postgres_cluster, relay):
    with Project.open(relay.url(url, postgres_cluster)) as project:
        relay.mode = "before"
        with pytest.raises(ConnectionLostError) as lost:
            project.raters.add("never")
        assert relay.cuts == 1 and lost.value.saved is False and lost.value.may_retry
        assert project.raters.all() == []
        project.raters.add("again")  # the same intent, done again: saved once
    with Project.open(url) as other:
        assert [r.name for r in other.raters.all()] == ["again"]


def test_a_commit_whose_answer_was_lost_while_the_server_stays_away_is_settled_later(
        url, postgres_cluster, relay):
    """Its fate is not known while the server cannot be reached: the write is reported as
    "not known yet" (not as lost, and not repeated); the next connection reads it and tells."""
    from slicereview.store.postgres_link import patient

    with Project.open(relay.url(url, postgres_cluster)) as project:
        told: list[bool] = []
        project.db.on_settled = told.append
        project.db.wait_for_server = patient(0.5)
        relay.mode, relay.refuse = "after", True
        with pytest.raises(ConnectionLostError) as lost:
            project.raters.add("maybe")
        assert lost.value.saved is None and not lost.value.may_retry
        assert "whether it was saved is checked when the connection is back" in str(lost.value)
        assert project.db.unsettled is not None and told == []
        relay.refuse = False
        assert [r.name for r in project.raters.all()] == ["maybe"]  # reconnects, settles
        assert told == [True] and project.db.unsettled is None
