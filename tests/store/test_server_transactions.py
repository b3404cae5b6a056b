"""A server project's transactions in few messages (``PostgresDatabase.transaction``): the
``BEGIN`` and the write lock go with the first statement (a psycopg pipeline), the read of the
transaction id with the writes, the change counter with ``COMMIT``. What that must not change:
a busy spell ends cleanly however often it is retried, a lost connection never lets part of an
intent be saved, a write that changed nothing sends no change, a read-only session can read
in a transaction, and opening a project beside a writer does not wait for it."""

from __future__ import annotations

import contextlib

import pytest

from slicereview.store import Project, ProjectBusyError
from slicereview.store.errors import ConnectionLostError
from slicereview.store.postgres import WRITE_LOCK


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("transactions")
    Project.create(made, name="transactions").close()
    yield made
    postgres_cluster.drop_database(made)


class Writer:
    """Another user's connection holding the write lock (its transaction open)."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)

    def __enter__(self) -> Writer:
        self.conn.execute("BEGIN")
        self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.execute("ROLLBACK")
        self.conn.close()


def test_writes_go_on_after_a_busy_spell_retried_many_times(url):
    """The GUI retries a busy write for half a minute against a 5 s lock timeout. psycopg
    prepares a statement at its sixth run; a pipeline cut short by the lock timeout skips it
    on the server, so the rollback must make psycopg forget what it prepared."""
    with Project.open(url) as project:
        project.raters.add("first")
        project.db.set_busy_timeout(0.05)
        with Writer(url):
            for _ in range(8):
                with pytest.raises(ProjectBusyError):
                    project.raters.add("busy")
        project.raters.add("after")
        with project.transaction():  # another write, whose first statement is a read
            project.raters.all()
            project.raters.add("after, again")
        assert [r.name for r in project.raters.all()] == ["first", "after", "after, again"]


def test_a_write_after_a_lost_connection_in_the_same_transaction_is_not_saved(
        url, postgres_cluster):
    """The connection is made again only before a transaction's first message: a later
    statement never runs on a new connection, outside the transaction (even when the code
    between them swallowed the first error)."""
    import psycopg

    with Project.open(url) as project:
        with pytest.raises(ConnectionLostError) as lost, project.transaction():
            project.raters.all()  # (BEGIN sent)
            postgres_cluster.admin(
                f"SELECT pg_terminate_backend({project.db.conn.info.backend_pid}, 5000)")
            with contextlib.suppress(psycopg.OperationalError):  # (code that swallows it)
                project.raters.all()
            project.raters.add("half of an intent")
        assert lost.value.saved is False
        assert project.raters.all() == []


def test_a_write_that_changed_nothing_sends_no_change(url):
    with Project.open(url) as project, Project.open(url) as other:
        before = other.data_version()
        with project.transaction():
            project.db.execute("UPDATE raters SET name = name WHERE id = -1")
            project.db.execute("DELETE FROM raters WHERE id = -1")
        assert other.data_version() == before
        project.raters.add("anna")  # (an UPDATE that did change a row is seen)
        assert other.data_version() != before


def test_a_write_the_statements_do_not_name_is_counted_once(url):
    """``WITH ... INSERT`` is not seen as a write by its first word: the end of the
    transaction asks the server (the change counter's own statement) whether it wrote."""
    with Project.open(url) as project, Project.open(url) as other:
        before, mine = other.data_version(), project.data_version()
        with project.transaction():
            project.db.execute("WITH x AS (SELECT 'w' AS n) INSERT INTO raters (name, role) "
                               "SELECT n, 'annotator' FROM x")
        assert other.data_version() != before
        assert project.data_version() == mine  # its own commit, not another's change


def test_a_read_only_session_reads_in_a_transaction(url):
    with Project.open(url) as project:
        project.raters.add("anna")
    with Project.open(url, read_only=True) as project:
        with project.transaction():
            names = [r.name for r in project.raters.all()]
        assert names == ["anna"]


def test_a_refused_write_leaves_the_next_transaction_clean(url):
    with Project.open(url) as project:
        project.raters.add("anna")
        with pytest.raises(project.db.IntegrityError), project.transaction():
            project.db.execute("INSERT INTO raters (name, role) VALUES ('anna', 'annotator')")
        project.raters.add("bob")
        assert [r.name for r in project.raters.all()] == ["anna", "bob"]


def test_an_owner_opens_an_earlier_project_beside_a_writer_without_waiting(url):
    """The helpers of an earlier version are made again under the write lock, when it is
    free: beside another user's long write the opening goes on and a later one renews them."""
    import psycopg

    from slicereview.app.people import add_login
    from slicereview.model import Role
    from slicereview.store.postgres_access import HELPERS, RATER_FN

    with Project.open(url) as owner:
        add_login(owner, "early", Role.ANNOTATOR)  # (the helpers come with the first login)
    with psycopg.connect(url) as conn:
        conn.execute(f"ALTER FUNCTION {RATER_FN}() SET search_path = public")
    with Writer(url):
        Project.open(url, busy_timeout_s=0.3).close()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT proconfig FROM pg_proc WHERE proname = %s",
                            (RATER_FN,)).fetchone()[0] == ["search_path=public"]
    Project.open(url).close()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT proconfig, prosrc FROM pg_proc WHERE proname = %s",
                            (RATER_FN,)).fetchone() == (None, f" {HELPERS[RATER_FN][1]} ")
