"""Opening, checking, creating and migrating a project on a PostgreSQL server.

**Opening** never writes to a database that is not ours, is newer or has a schema other than
the one its version should have: it reads the state table (missing: an empty database gets
"create a project", any other database "not a slicereview project"), the version, and compares
tables, columns, indexes, triggers, rules and views with what the migrations make. Only then
does an older project get migrated (one transaction, under the write lock).

Creating (``slicereview new URL``) needs an empty database: one that holds nothing outside
PostgreSQL's own schemas (no table, view, sequence, function, type or other schema); any other
database is refused and left untouched. The schema and what ``fill`` writes (a project's name,
or a whole copied project) are one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slicereview.store import postgres_link as link
from slicereview.store.errors import (
    DamagedProjectError,
    EmptyDatabaseError,
    NewerProjectError,
    NotAProjectError,
    ProjectError,
    ServerError,
)
from slicereview.store.location import describe
from slicereview.store.postgres import WRITE_LOCK, PostgresDatabase
from slicereview.store.postgres_dialect import row_factory
from slicereview.store.postgres_rules import TRIGGERS as RULE_TRIGGERS
from slicereview.store.postgres_rules import install_counter
from slicereview.store.postgres_schema import (
    STATE_DDL,
    STATE_INSERT,
    STATE_TABLE,
    TYPES,
    migration_statements,
)
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_check import expected_schema

_BUSY_TIMEOUT_S = 5.0


def _connect(url: str, busy_timeout_s: float, read_only: bool = False) -> Any:
    return link.connect(url, link.settings_of(int(busy_timeout_s * 1000), read_only),
                        row_factory=row_factory)


def _has_state_table(conn: Any) -> bool:
    row = conn.execute("SELECT to_regclass(%s)", (STATE_TABLE,)).fetchone()
    return row[0] is not None


def _contents(conn: Any) -> list[str]:
    """What a database holds outside PostgreSQL's own schemas ("3 tables", ...); empty for
    an empty database."""
    system = ("nspname IN ('pg_catalog', 'information_schema') OR nspname LIKE 'pg\\_toast%'"
              " OR nspname LIKE 'pg\\_temp%'")
    counts = conn.execute(f"""
        SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE NOT ({system}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')),
               (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE NOT ({system})),
               (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE NOT ({system}) AND t.typrelid = 0 AND t.typelem = 0),
               (SELECT count(*) FROM pg_namespace WHERE NOT ({system}) AND nspname <> 'public')
        """).fetchone()
    words = ("tables, views or sequences", "functions", "types", "schemas")
    return [f"{n} {w}" for n, w in zip(counts, words, strict=True) if n]


def _may_create(conn: Any) -> bool:
    """Whether this login may create the project's tables in the database's schema."""
    row = conn.execute("SELECT has_schema_privilege(current_schema(), 'CREATE')").fetchone()
    return bool(row and row[0])


def _describe_server_schema(conn: Any) -> dict[str, object]:
    """Tables (columns: name, type, not null), indexes that back no constraint, triggers,
    rules and views of the project's schema, comparable with :func:`_expected`."""
    tables: dict[str, list[tuple[str, str, bool]]] = {}
    for table, column, data_type, not_null in conn.execute(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull "
            "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
            "AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped "
            "ORDER BY c.relname, a.attnum"):
        tables.setdefault(table, []).append((column, data_type, bool(not_null)))
    tables.pop(STATE_TABLE, None)
    indexes = {r[0]: r[1] for r in conn.execute(
        "SELECT i.relname, t.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
        "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
        "WHERE n.nspname = current_schema() AND NOT EXISTS "
        "(SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)")}
    # (the data rules' triggers a server project has beside its schema are its own)
    triggers = [r[0] for r in conn.execute(
        "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE NOT t.tgisinternal AND n.nspname = current_schema()")
        if (r[0], r[1]) not in RULE_TRIGGERS]
    rules = [r[0] for r in conn.execute(
        "SELECT rulename FROM pg_rules WHERE schemaname = current_schema()")]
    views = [r[0] for r in conn.execute(
        "SELECT viewname FROM pg_views WHERE schemaname = current_schema() UNION ALL "
        "SELECT matviewname FROM pg_matviews WHERE schemaname = current_schema()")]
    return {"tables": tables, "indexes": indexes, "triggers": triggers, "rules": rules,
            "views": views}


def _expected(version: int) -> dict[str, object]:
    """The server schema ``MIGRATIONS[:version]`` makes, from the SQLite schema they make."""
    sqlite = expected_schema(MIGRATIONS, version)
    tables = sqlite["tables"]
    assert isinstance(tables, dict)
    return {
        "tables": {name: [(c[0], TYPES[c[1]], bool(c[2]) or bool(c[3])) for c in columns]
                   for name, columns in tables.items()},
        "indexes": sqlite["indexes"], "triggers": [], "rules": [], "views": [],
    }


def _differences(actual: dict[str, object], expected: dict[str, object]) -> list[str]:
    found: list[str] = []
    a_tables, e_tables = actual["tables"], expected["tables"]
    assert isinstance(a_tables, dict) and isinstance(e_tables, dict)
    for name in sorted(e_tables):
        if name not in a_tables:
            found.append(f"table {name} is missing")
        elif a_tables[name] != e_tables[name]:
            found.append(f"the columns of table {name} differ")
    found += [f"unknown table {n}" for n in sorted(set(a_tables) - set(e_tables))]
    a_idx, e_idx = actual["indexes"], expected["indexes"]
    assert isinstance(a_idx, dict) and isinstance(e_idx, dict)
    found += [f"index {n} is missing" for n in sorted(set(e_idx) - set(a_idx))]
    found += [f"unknown index {n}" for n in sorted(set(a_idx) - set(e_idx))]
    for kind in ("triggers", "rules", "views"):
        names = actual[kind]
        assert isinstance(names, list)
        found += [f"unknown {kind[:-1]} {n}" for n in sorted(names)]
    return found


def check_server(conn: Any, url: str) -> int:
    """Check that the database is a healthy slicereview project this version can open;
    returns its schema version. Reads only (see the module docstring)."""
    where = describe(url)
    if not _has_state_table(conn):
        held = _contents(conn)
        if not held:
            raise EmptyDatabaseError(
                f"{where} is an empty database, not a slicereview project yet. Create one "
                f"with `slicereview new {where}` (or copy a project file into it with "
                f"`slicereview copy PROJECT.srproj {where}`).", can_create=_may_create(conn))
        raise NotAProjectError(
            f"{where} is not a slicereview project (it holds {', '.join(held)}). "
            "It was left untouched.")
    rows = conn.execute(f"SELECT application_id, schema_version FROM {STATE_TABLE}").fetchall()
    if len(rows) != 1 or rows[0][0] != APPLICATION_ID:
        raise NotAProjectError(
            f"{where} is not a slicereview project (its {STATE_TABLE} table is not ours). "
            "It was left untouched.")
    version = int(rows[0][1])
    if version > SCHEMA_VERSION:
        raise NewerProjectError(
            f"{where} was written by a newer slicereview (project format {version}; this "
            f"version reads up to {SCHEMA_VERSION}). Update slicereview "
            "(`pip install -U slicereview`) to open it; the database was left untouched.")
    differences = _differences(_describe_server_schema(conn), _expected(version))
    if differences:
        shown = ", ".join(differences[:3]) + (", ..." if len(differences) > 3 else "")
        raise DamagedProjectError(
            f"{where} is not a slicereview project as this version wrote it ({shown}); "
            "restore it from a backup (the database was left untouched).")
    return version


def _migrate(db: PostgresDatabase) -> None:
    with db.transaction():
        version = int(db.conn.execute(
            f"SELECT schema_version FROM {STATE_TABLE}").fetchone()[0])
        for step in range(version, SCHEMA_VERSION):
            for statement in migration_statements(step):
                db.conn.execute(statement)
        # A rebuilt table (format 7: sessions, answers, grades) was filled with its ids, which
        # an identity column does not notice: new rows follow the largest id again.
        db.reset_ids(r[0] for r in db.conn.execute(
            "SELECT table_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND column_name = 'id' AND is_identity = 'YES'").fetchall())
        db.conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = %s", (SCHEMA_VERSION,))
        install_counter(db.conn)  # (before this transaction's own COMMIT counts the change)
        from slicereview.store.postgres_access import blinding_enabled, enable_blinding

        if blinding_enabled(db.conn):  # (new tables get their policies, privileges and the
            enable_blinding(db.conn)  # rules before anyone's use; this version's of them)


def connect_server(url: str, *, read_only: bool = False,
                   busy_timeout_s: float = _BUSY_TIMEOUT_S) -> PostgresDatabase:
    """Open an existing server project after :func:`check_server`, migrating an older one
    (the tables' owner's login only) and renewing what a login may do
    (:func:`.postgres_access.renew_access`). A statement the server cancels on the way (its
    statement timeout) changed nothing: the opening is tried again, up to
    :data:`~.postgres_link.TIMEOUT_TRIES` times, then refused with one sentence.

    ``read_only``: the session refuses every write (``default_transaction_read_only``)."""
    tried = 0
    while True:
        tried += 1
        try:
            return _connect_server(url, read_only, busy_timeout_s)
        except Exception as exc:
            if not link.is_timeout(exc):
                raise
            if tried >= link.TIMEOUT_TRIES:
                raise link.timed_out(exc, tried=tried) from exc


def _owns_tables(conn: Any) -> bool:
    row = conn.execute("SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = "
                       "to_regclass('raters')").fetchone()
    return bool(row and row[0])


def _connect_server(url: str, read_only: bool, busy_timeout_s: float) -> PostgresDatabase:
    conn = _connect(url, busy_timeout_s)
    try:
        version = check_server(conn, url)
        if version < SCHEMA_VERSION:
            if not _owns_tables(conn):  # (a migration is DDL: only the tables' owner's)
                raise ProjectError(
                    f"{describe(url)} uses project format {version}; its owner's login (the "
                    f"one that made it) upgrades it to format {SCHEMA_VERSION} by opening it "
                    "once: ask the project's owner.")
            if read_only:
                raise ProjectError(
                    f"{describe(url)} uses project format {version}; open it once with write "
                    f"access to upgrade it to format {SCHEMA_VERSION}.")
            _migrate(PostgresDatabase(conn, url))
        elif not read_only:
            from slicereview.store.postgres_access import renew_access

            renew_access(conn)
        if read_only:
            conn.execute("SET default_transaction_read_only = on")
        return PostgresDatabase(conn, url, lock_timeout_ms=int(busy_timeout_s * 1000),
                                read_only=read_only)
    except BaseException as exc:
        conn.close()
        if getattr(exc, "sqlstate", None) == "42501":  # insufficient_privilege
            reason = str(exc).strip().splitlines()[0]
            raise ServerError(
                f"{describe(url)}: this login may not read the project ({reason}); ask the "
                "project's owner for access.") from None
        raise


def create_server(url: str, fill: Callable[[PostgresDatabase], None] | None = None) -> None:
    """Make the empty database at ``url`` a project: the schema, then ``fill`` (e.g. the
    project's name, or a whole copied project), in one transaction. A database that holds
    anything is refused and left untouched."""
    conn = _connect(url, _BUSY_TIMEOUT_S)
    try:
        db = PostgresDatabase(conn, url)
        conn.execute("BEGIN")
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        if _has_state_table(conn):
            conn.execute("ROLLBACK")
            raise FileExistsError(
                f"{describe(url)} already holds a slicereview project; open it, or choose "
                "an empty database.")
        held = _contents(conn)
        if held:
            conn.execute("ROLLBACK")
            raise NotAProjectError(
                f"{describe(url)} is not empty (it holds {', '.join(held)}); a project needs an "
                "empty database of its own (`createdb`). It was left untouched.")
        try:
            conn.execute(STATE_DDL)
            conn.execute(STATE_INSERT)
            for step in range(SCHEMA_VERSION):
                for statement in migration_statements(step):
                    conn.execute(statement)
            conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = %s", (SCHEMA_VERSION,))
            install_counter(conn)
            if fill is not None:
                fill(db)
            conn.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction and not conn.closed:
                conn.execute("ROLLBACK")
            if getattr(exc, "sqlstate", None) == "42501":  # insufficient_privilege
                raise ServerError(
                    f"{describe(url)}: this login may not create tables there ({exc}); ask "
                    "the database's owner, or create the project as the owner.") from exc
            raise
    finally:
        conn.close()
