"""What only a server project has: creating the schema in an empty database (and refusing any
other database untouched), the opening checks, read-only sessions, the change counter, busy
handling under another writer's lock, and messages that never show a password."""

from __future__ import annotations

import sys
import threading

import pytest

from slicereview.store import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    Project,
    ProjectBusyError,
    ProjectError,
)
from slicereview.store.location import describe
from slicereview.store.postgres import WRITE_LOCK
from slicereview.store.postgres_schema import STATE_TABLE, migration_statements
from slicereview.store.schema import MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_check import expected_schema


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("server")
    yield made
    postgres_cluster.drop_database(made)


def _snapshot(url: str) -> list[tuple]:
    """Every table with its rows, and every function, of a database (to prove it untouched)."""
    import psycopg
    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")]
        rows = [(t, sorted(map(repr, conn.execute(f"SELECT * FROM {t}").fetchall())))
                for t in tables]
        functions = conn.execute("SELECT proname FROM pg_proc p JOIN pg_namespace n ON "
                                 "n.oid = p.pronamespace WHERE nspname = 'public' "
                                 "ORDER BY 1").fetchall()
    return [*rows, ("functions", functions)]


def test_new_makes_the_schema_every_migration_makes(url):
    import psycopg
    with Project.create(url, name="study") as project:
        assert project.is_server and project.path is None and project.folder is None
        assert project.name == "study" and project.meta("project_uuid")
    with psycopg.connect(url) as conn:
        state = conn.execute(f"SELECT application_id, schema_version FROM {STATE_TABLE}"
                             ).fetchall()
        columns = {}
        for table, column in conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns WHERE "
                "table_schema = 'public' ORDER BY table_name, ordinal_position"):
            columns.setdefault(table, []).append(column)
    assert state == [(0x53527677, SCHEMA_VERSION)]
    sqlite = expected_schema(MIGRATIONS, SCHEMA_VERSION)["tables"]
    assert {t: [c[0] for c in cols] for t, cols in sqlite.items()} == {
        t: c for t, c in columns.items() if t != STATE_TABLE}


def test_every_migration_statement_has_a_translation():
    statements = [s for step in range(SCHEMA_VERSION) for s in migration_statements(step)]
    assert statements and not any("?" in s or "OR IGNORE" in s for s in statements)


@pytest.mark.parametrize("foreign", [
    "CREATE TABLE patients (id int PRIMARY KEY, name text); "
    "INSERT INTO patients VALUES (1, 'x')",
    "CREATE SEQUENCE counter",
    "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "CREATE SCHEMA other",
])
def test_a_database_holding_anything_else_is_refused_untouched(url, foreign):
    import psycopg
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(foreign)
    before = _snapshot(url)
    with pytest.raises(NotAProjectError, match="not empty.*left untouched"):
        Project.create(url)
    with pytest.raises(NotAProjectError, match="not a slicereview project.*left untouched"):
        Project.open(url)
    assert _snapshot(url) == before


def test_an_empty_database_says_how_to_make_a_project(url):
    with pytest.raises(NotAProjectError, match="empty database.*slicereview new"):
        Project.open(url)
    assert _snapshot(url) == [("functions", [])]


def test_new_twice_is_refused(url):
    Project.create(url).close()
    with pytest.raises(FileExistsError, match="already holds a slicereview project"):
        Project.create(url)


def test_newer_and_altered_projects_are_refused_untouched(url):
    import psycopg
    Project.create(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = {SCHEMA_VERSION + 1}")
    before = _snapshot(url)
    with pytest.raises(NewerProjectError, match="newer slicereview"):
        Project.open(url)
    assert _snapshot(url) == before
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = {SCHEMA_VERSION}")
        conn.execute("CREATE FUNCTION wipe() RETURNS trigger LANGUAGE plpgsql AS "
                     "'BEGIN DELETE FROM answers; RETURN NEW; END'")
        conn.execute("CREATE TRIGGER wipe AFTER INSERT ON answers FOR EACH ROW "
                     "EXECUTE FUNCTION wipe()")
    before = _snapshot(url)
    with pytest.raises(DamagedProjectError, match="unknown trigger wipe"):
        Project.open(url)
    assert _snapshot(url) == before


def test_an_older_project_is_migrated(url):
    import psycopg
    with psycopg.connect(url, autocommit=True) as conn:  # a format-1 project
        from slicereview.store.postgres_schema import STATE_DDL, STATE_INSERT

        conn.execute(STATE_DDL)
        conn.execute(STATE_INSERT)
        for statement in migration_statements(0):
            conn.execute(statement)
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = 1")
        conn.execute("INSERT INTO raters (name, role) VALUES ('ann', 'annotator')")
    with pytest.raises(ProjectError, match="open it once with write access"):
        Project.open(url, read_only=True)
    with Project.open(url) as project:
        assert [r.name for r in project.raters.all()] == ["ann"]
        assert project.annotations.all() == [] and project.workflow.batches() == []
    with psycopg.connect(url) as conn:
        assert conn.execute(f"SELECT schema_version FROM {STATE_TABLE}").fetchone()[0] == \
            SCHEMA_VERSION


def test_read_only_refuses_writes(url):
    import psycopg
    Project.create(url).close()
    with Project.open(url, read_only=True) as project:
        assert project.raters.all() == []
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            project.raters.add("ann")
        assert project.raters.all() == []


def test_data_version_changes_on_other_connections_commits_only(url):
    with Project.create(url) as mine, Project.open(url) as theirs:
        start = mine.data_version()
        mine.raters.add("me")
        assert mine.data_version() == start  # our own commit
        theirs.raters.add("them")
        assert mine.data_version() != start


def test_a_writer_holding_the_lock_makes_a_write_busy_and_changes_nothing(url):
    import psycopg
    Project.create(url).close()
    holding, release = threading.Event(), threading.Event()

    def other_writer() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("BEGIN")
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            holding.set()
            release.wait(120)
            conn.execute("ROLLBACK")

    thread = threading.Thread(target=other_writer)
    thread.start()
    try:
        assert holding.wait(10)
        with Project.open(url, busy_timeout_s=0.2) as project:
            with pytest.raises(ProjectBusyError, match="busy"):
                project.raters.add("ann")
            assert thread.is_alive()  # refused while the other still held it, not after
            assert not project.db.in_transaction
            release.set()
            thread.join()
            project.raters.add("ann")  # the same intent, retried
            assert [r.name for r in project.raters.all()] == ["ann"]
    finally:
        release.set()
        thread.join()


def test_messages_never_show_the_password(postgres_cluster):
    url = postgres_cluster.url("no_such_database").replace("postgres@", "postgres:s3cret@")
    with pytest.raises(ProjectError) as info:
        Project.open(url)
    assert "s3cret" not in str(info.value) and "no_such_database" in str(info.value)
    assert describe(url + "&password=s3cret").count("s3cret") == 0


def test_without_psycopg_the_message_says_what_to_install(url, monkeypatch):
    # (psycopg comes back before the url fixture's teardown, which drops the database with it)
    with monkeypatch.context() as mp, pytest.raises(
            ProjectError, match=r"pip install \"slicereview\[server\]\""):
        mp.setitem(sys.modules, "psycopg", None)
        Project.open(url)


def test_copy_knows_every_table():
    from slicereview.store.copying import TABLES

    tables = expected_schema(MIGRATIONS, SCHEMA_VERSION)["tables"]
    assert sorted(TABLES) == sorted(tables)  # a new table needs its place in the copy order
