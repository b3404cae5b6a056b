"""The format that lets pins say who reads them (``_PINS_FOR_EVERYONE``): a project of the
previous format (``MIGRATIONS[:MIGRATIONS.index(_PINS_FOR_EVERYONE)]``), file or server, opens
upgraded with every review row as it was; its pins are image pins for reviewers and owners,
and a new pin may be on an annotation or for everyone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from slicereview.store import Project
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_pins import _PINS_FOR_EVERYONE

_T = "2025-01-01T00:00:00+00:00"
_ROWS = [
    f"INSERT INTO sources (id, path, sha256, format, size_bytes, added_at, info) "
    f"VALUES (1, 'a.png', 'x', 'png', 1, '{_T}', '{{}}')",
    "INSERT INTO images (id, source_id, case_id, frame, rows, cols) VALUES (1, 1, 'c1', 0, 8, 8)",
    "INSERT INTO raters (id, name, role) VALUES (1, 'ann', 'annotator'), (2, 'rev', 'reviewer')",
    "INSERT INTO annotations (id, rater_id, image_id, status, updated_at) "
    f"VALUES (1, 1, 1, 'in_progress', '{_T}')",
    "INSERT INTO reviews (id, image_id, reviewer_id, annotation_id, decision, comment, "
    f"created_at) VALUES (4, 1, 2, 1, 'reject', 'too big', '{_T}')",
    "INSERT INTO reviews (id, image_id, reviewer_id, comment, created_at, pin_kind, pin_at, "
    f"alphas) VALUES (5, 1, 2, 'here', '{_T}', 'point', '[2.0, 3.0]', '{{\"strict_alpha\": 0.5}}')",
]


def _previous_format(location) -> None:
    previous = MIGRATIONS.index(_PINS_FOR_EVERYONE)
    if isinstance(location, Path):
        conn = sqlite3.connect(location)
        conn.execute("PRAGMA foreign_keys = ON")
        for script in MIGRATIONS[:previous]:
            conn.executescript(script)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {previous}")
        for statement in _ROWS:
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
        for step in range(previous):
            for statement in migration_statements(step):
                conn.execute(statement)
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = {previous}")
        for statement in _ROWS:
            conn.execute(statement)


def test_the_previous_formats_pins_become_image_pins_for_reviewers(location):
    from slicereview.app.review.decisions import pin, pins_for_annotator

    where = location("old.srproj")
    _previous_format(where)
    with Project.open(where) as project:
        decision, old = project.reviews.all()
        assert (decision.id, str(decision.decision), decision.comment) == (4, "reject", "too big")
        assert (old.id, old.pin_at, old.annotation_id, old.for_everyone) == (
            5, (2.0, 3.0), None, False)
        assert old.alphas == {"strict_alpha": 0.5}
        assert pins_for_annotator(project, project.annotations.get(1)) == []
        on = pin(project, 2, 1, point=(4, 4), text="yours", annotation_id=1)
        assert [r.id for r in pins_for_annotator(project, project.annotations.get(1))] == [on]
        if not project.is_server:
            assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        else:
            assert project.db.execute("SELECT schema_version FROM slicereview_project"
                                      ).fetchone()[0] == SCHEMA_VERSION
