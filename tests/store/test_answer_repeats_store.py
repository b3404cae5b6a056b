"""Project format 7: a confidence session may answer a pair again and name the rater of each
answer; sort and exhaustive sessions still take one answer per pair; a format 6 project with
sessions, answers and grades is migrated without losing or changing a row, on a project file
and on a server (one migration, translated)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from slicereview.app.rating.sessions import create_session
from slicereview.model import NewImage
from slicereview.store import Project
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION


@pytest.fixture
def project(location, tmp_path):
    p = Project.create(location("p.srproj"))
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(4)]
    p.test_ids = ids
    p.test_set = p.image_sets.create("set", ids)
    yield p
    p.close()


def test_confidence_session_answers_a_pair_again_with_its_rater(project):
    ann, bob = project.raters.add("ann"), project.raters.add("bob")
    sid = create_session(project, "confidence", ann, project.test_set, "c",
                         settings={"raters": [ann, bob], "budget_per_image": 3})
    a, b, _, _ = project.test_ids
    ratings = project.ratings
    ratings.record_answer(sid, a, b, "left", 900, rater_id=ann)
    ratings.record_answer(sid, b, a, "left", 800, rater_id=bob)  # the other way round
    ratings.record_answer(sid, a, b, "same", 700, rater_id=ann)
    got = ratings.answers(sid)
    assert [(x.left, x.right, str(x.answer), x.rater_id) for x in got] == [
        (a, b, "left", ann), (b, a, "left", bob), (a, b, "same", ann)]
    repeats = project.db.execute(
        "SELECT pair_repeat FROM answers WHERE session_id = ? ORDER BY id", (sid,)).fetchall()
    assert [r[0] for r in repeats] == [0, 1, 2]
    assert ratings.delete_last_answer(sid).answer == "same"  # undo, then answer again
    ratings.record_answer(sid, a, b, "right", 600, rater_id=bob)
    assert ratings.answers(sid)[-1].rater_id == bob
    with pytest.raises(ValueError, match="no rater 999"):
        ratings.record_answer(sid, a, b, "left", rater_id=999)
    assert len(ratings.answers(sid)) == 3  # the refused answer left nothing


@pytest.mark.parametrize("kind", ["sort", "exhaustive"])
def test_sort_and_exhaustive_keep_one_answer_per_pair(project, kind):
    sid = create_session(project, kind, project.raters.add("ann"), project.test_set, "s")
    a, b, _, _ = project.test_ids
    project.ratings.record_answer(sid, a, b, "left")
    for left, right in ((a, b), (b, a)):
        with pytest.raises(ValueError, match="already compared"):
            project.ratings.record_answer(sid, left, right, "right")
    assert len(project.ratings.answers(sid)) == 1
    assert project.ratings.answers(sid)[0].rater_id is None  # the session's rater


_T = "2025-01-01T00:00:00+00:00"
#: A format 6 project's rows: two raters, a sort and a classify session, their answers and
#: grades (written as literals, so the same statements fill a file and a server).
_ROWS = [
    f"INSERT INTO sources (id, path, sha256, format, size_bytes, added_at, info) "
    f"VALUES (1, 'a.png', 'x', 'png', 1, '{_T}', '{{}}')",
    *(f"INSERT INTO images (id, source_id, case_id, frame, rows, cols) "
      f"VALUES ({i}, 1, 'c{i}', {i}, 4, 4)" for i in range(1, 5)),
    "INSERT INTO raters (id, name, role) VALUES (1, 'ann', 'annotator'), (2, 'bob', 'annotator')",
    f"INSERT INTO image_sets (id, name, created_at) VALUES (1, 'set', '{_T}')",
    *(f"INSERT INTO image_set_members (image_set_id, image_id, position) VALUES (1, {i}, {i})"
      for i in range(1, 5)),
    "INSERT INTO sessions (id, kind, rater_id, image_set_id, name, question, settings, seed, "
    "algorithm, algorithm_version, created_at, finished_at) VALUES (3, 'sort', 1, 1, 'pass', "
    f"'Which?', '{{\"initial_count\": 4}}', 7, 'tie-aware-merge-insertion', 1, '{_T}', '{_T}')",
    "INSERT INTO sessions (id, kind, rater_id, image_set_id, name, seed, created_at) "
    f"VALUES (5, 'classify', 2, 1, 'grades', 1, '{_T}')",
    *(f"INSERT INTO answers (id, session_id, left_id, right_id, answer, active_ms, answered_at) "
      f"VALUES ({i}, 3, {left}, {right}, '{answer}', {ms}, '{_T}')"
      for i, left, right, answer, ms in ((10, 1, 2, "left", 900), (11, 3, 2, "same", 400),
                                         (14, 4, 1, "right", 1200))),
    *(f"INSERT INTO grades (id, session_id, image_id, grade, active_ms, graded_at) "
      f"VALUES ({i}, 5, {image}, {grade}, 500, '{_T}')" for i, image, grade in ((20, 1, 0),
                                                                             (21, 2, 3))),
]


def _format_6(location) -> None:
    """Make ``location`` a format 6 project holding :data:`_ROWS`."""
    if isinstance(location, Path):
        conn = sqlite3.connect(location)
        conn.execute("PRAGMA foreign_keys = ON")
        for script in MIGRATIONS[:6]:
            conn.executescript(script)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("PRAGMA user_version = 6")
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
        for step in range(6):
            for statement in migration_statements(step):
                conn.execute(statement)
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = 6")
        for statement in _ROWS:
            conn.execute(statement)


def _rows(project: Project, table: str) -> list[tuple]:
    return [tuple(r) for r in project.db.execute(f"SELECT * FROM {table} ORDER BY id")]


def test_format_6_project_is_migrated_row_for_row(location):
    where = location("old.srproj")
    _format_6(where)
    with Project.open(where) as project:  # migrated on opening
        sessions, answers = _rows(project, "sessions"), _rows(project, "answers")
        assert [r[0] for r in sessions] == [3, 5] and sessions[0][1] == "sort"
        # The answers keep every column, gain rater_id NULL and pair_repeat 0.
        assert [r[:9] for r in answers] == [
            (10, 3, 1, 2, "left", 900, _T, None, 0), (11, 3, 3, 2, "same", 400, _T, None, 0),
            (14, 3, 4, 1, "right", 1200, _T, None, 0)]
        assert [r[9:] for r in answers] == [(1, 2), (2, 3), (1, 4)]  # pair_lo, pair_hi
        assert _rows(project, "grades") == [(20, 5, 1, 0, 500, _T), (21, 5, 2, 3, 500, _T)]
        if not project.is_server:
            assert project.db.execute("PRAGMA foreign_key_check").fetchall() == []
            assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            tables = {r[0]: r[1] for r in project.db.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'")}
            assert "_v7" not in tables["answers"] + tables["grades"]  # references follow
        tables = [r[0] for r in project.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'" if not project.is_server
            else "SELECT table_name FROM information_schema.tables "
                 "WHERE table_schema = current_schema()")]
        assert not any(name.endswith("_v7") for name in tables)
        ratings = project.ratings
        # The old rule still holds for the sort session; the old session opens as before.
        with pytest.raises(ValueError, match="already compared"):
            ratings.record_answer(3, 2, 1, "right")
        assert ratings.session(3).algorithm == "tie-aware-merge-insertion"
        assert [a.id for a in ratings.answers(3)] == [10, 11, 14]
        # New rows get ids after the kept ones (a server's identity columns were moved on).
        assert ratings.record_answer(3, 3, 4, "left", 100) > 14
        assert ratings.set_grade(5, 3, 1) > 21
        assert project.raters.add("cy") == 3  # a table kept as it was: ids go on too
        # Deleting a session still cascades into its answers and grades.
        ratings.delete_session(5)
        assert ratings.grades(5) == []
        ratings.delete_session(3)
        assert project.db.execute("SELECT count(*) FROM answers").fetchone()[0] == 0
        # The new kind is accepted after the migration, with repeats and raters.
        sid = create_session(project, "confidence", 1, 1, "c",
                             settings={"raters": [1, 2], "budget_per_image": 2})
        ratings.record_answer(sid, 1, 2, "left", rater_id=2)
        ratings.record_answer(sid, 1, 2, "left", rater_id=1)
        assert [a.rater_id for a in ratings.answers(sid)] == [2, 1]
