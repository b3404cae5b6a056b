"""A project written at an earlier format, on a file or a server, for the migration tests:
the migrations before ``version`` run, the version is recorded, then ``rows`` (SQL) go in."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from slicereview.store.schema import APPLICATION_ID, MIGRATIONS


def write_format(location: Path | str, version: int, rows: Sequence[str] = ()) -> None:
    """Make ``location`` (a file path or a server URL) a project of format ``version``."""
    if isinstance(location, Path):
        conn = sqlite3.connect(location)
        for script in MIGRATIONS[:version]:
            conn.executescript(script)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {version}")
        for statement in rows:
            conn.execute(statement)
        conn.commit()
        conn.close()
        return
    import psycopg

    from slicereview.store.postgres_schema import (
        STATE_DDL,
        STATE_INSERT,
        STATE_TABLE,
        migration_statements,
    )

    with psycopg.connect(location, autocommit=True) as conn:
        conn.execute(STATE_DDL)
        conn.execute(STATE_INSERT)
        for step in range(version):
            for statement in migration_statements(step):
                conn.execute(statement)
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = {version}")
        for statement in rows:
            conn.execute(statement)
