"""Project format 7: a confidence session may answer a pair again and name the rater of each
answer; sort and exhaustive sessions still take one answer per pair; a format 6 file with
sessions, answers and grades is migrated without losing or changing a row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from slicereview.app.rating.sessions import create_session
from slicereview.model import NewImage
from slicereview.store import Project
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION


@pytest.fixture
def project(tmp_path):
    p = Project.create(tmp_path / "p.srproj")
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    ids = [p.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(4)]
    p.test_ids = ids
    p.test_set = p.create_image_set("set", ids)
    yield p
    p.close()


def test_confidence_session_answers_a_pair_again_with_its_rater(project):
    ann, bob = project.add_rater("ann"), project.add_rater("bob")
    sid = create_session(project, "confidence", ann, project.test_set, "c",
                         settings={"raters": [ann, bob], "budget_per_image": 3})
    a, b, _, _ = project.test_ids
    project.record_answer(sid, a, b, "left", 900, rater_id=ann)
    project.record_answer(sid, b, a, "left", 800, rater_id=bob)  # the other way round
    project.record_answer(sid, a, b, "same", 700, rater_id=ann)
    got = project.answers(sid)
    assert [(x.left, x.right, str(x.answer), x.rater_id) for x in got] == [
        (a, b, "left", ann), (b, a, "left", bob), (a, b, "same", ann)]
    repeats = project.conn.execute(
        "SELECT pair_repeat FROM answers WHERE session_id = ? ORDER BY id", (sid,)).fetchall()
    assert [r[0] for r in repeats] == [0, 1, 2]
    assert project.delete_last_answer(sid).answer == "same"  # undo, then answer again
    project.record_answer(sid, a, b, "right", 600, rater_id=bob)
    assert project.answers(sid)[-1].rater_id == bob
    with pytest.raises(ValueError, match="no rater 999"):
        project.record_answer(sid, a, b, "left", rater_id=999)


@pytest.mark.parametrize("kind", ["sort", "exhaustive"])
def test_sort_and_exhaustive_keep_one_answer_per_pair(project, kind):
    sid = create_session(project, kind, project.add_rater("ann"), project.test_set, "s")
    a, b, _, _ = project.test_ids
    project.record_answer(sid, a, b, "left")
    for left, right in ((a, b), (b, a)):
        with pytest.raises(ValueError, match="already compared"):
            project.record_answer(sid, left, right, "right")
    assert len(project.answers(sid)) == 1
    assert project.answers(sid)[0].rater_id is None  # the session's rater


def _format_6_file(path: Path) -> None:
    """A project as format 6 wrote it, with two raters, a sort and a classify session, their
    answers and grades, and a second image set."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    for script in MIGRATIONS[:6]:
        conn.executescript(script)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 6")
    t = "2025-01-01T00:00:00+00:00"
    conn.execute("INSERT INTO sources VALUES (1, 'a.png', 'x', 'png', 1, ?, '{}')", (t,))
    for i in range(1, 5):
        conn.execute("INSERT INTO images (id, source_id, case_id, frame, rows, cols) "
                     "VALUES (?, 1, ?, ?, 4, 4)", (i, f"c{i}", i))
    conn.execute("INSERT INTO raters (id, name, role) VALUES (1, 'ann', 'annotator'), "
                 "(2, 'bob', 'annotator')")
    conn.execute("INSERT INTO image_sets VALUES (1, 'set', ?)", (t,))
    conn.executemany("INSERT INTO image_set_members VALUES (1, ?, ?)",
                     [(i, i) for i in range(1, 5)])
    conn.execute("INSERT INTO sessions (id, kind, rater_id, image_set_id, name, question, "
                 "settings, seed, algorithm, algorithm_version, created_at, finished_at) "
                 "VALUES (3, 'sort', 1, 1, 'pass', 'Which?', '{\"initial_count\": 4}', 7, "
                 "'tie-aware-merge-insertion', 1, ?, ?)", (t, t))
    conn.execute("INSERT INTO sessions (id, kind, rater_id, image_set_id, name, seed, "
                 "created_at) VALUES (5, 'classify', 2, 1, 'grades', 1, ?)", (t,))
    conn.executemany("INSERT INTO answers (id, session_id, left_id, right_id, answer, "
                     "active_ms, answered_at) VALUES (?, 3, ?, ?, ?, ?, ?)",
                     [(10, 1, 2, "left", 900, t), (11, 3, 2, "same", 400, t),
                      (14, 4, 1, "right", 1200, t)])
    conn.executemany("INSERT INTO grades (id, session_id, image_id, grade, active_ms, graded_at)"
                     " VALUES (?, 5, ?, ?, 500, ?)", [(20, 1, 0, t), (21, 2, 3, t)])
    conn.commit()
    conn.close()


def _rows(conn, table: str) -> list[tuple]:
    return [tuple(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY id")]


def test_format_6_file_is_migrated_row_for_row(tmp_path: Path):
    path = tmp_path / "old.srproj"
    _format_6_file(path)
    conn = sqlite3.connect(path)
    before = {t: _rows(conn, t) for t in ("sessions", "answers", "grades")}
    conn.close()
    with Project.open(path) as project:
        conn = project.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        assert _rows(conn, "sessions") == before["sessions"]
        # The answers keep every column, gain rater_id NULL and pair_repeat 0.
        old_answers = [r[:7] + (None, 0) + r[7:] for r in before["answers"]]
        assert _rows(conn, "answers") == old_answers
        assert _rows(conn, "grades") == before["grades"]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        tables = {r[0]: r[1] for r in conn.execute("SELECT name, sql FROM sqlite_master "
                                                   "WHERE type = 'table'")}
        assert not any(name.endswith("_v7") for name in tables)
        assert "_v7" not in tables["answers"] + tables["grades"]  # references follow renames
        # The old rule still holds for the sort session; the old session opens as before.
        with pytest.raises(ValueError, match="already compared"):
            project.record_answer(3, 2, 1, "right")
        assert project.session(3).algorithm == "tie-aware-merge-insertion"
        assert [a.id for a in project.answers(3)] == [10, 11, 14]
        new = project.record_answer(3, 3, 4, "left", 100)
        assert new > 14  # ids continue after the kept ones
        # Deleting a session still cascades into its answers and grades.
        project.delete_session(5)
        assert project.grades(5) == []
        project.delete_session(3)
        assert conn.execute("SELECT count(*) FROM answers").fetchone()[0] == 0
        # The new kind is accepted after the migration.
        sid = create_session(project, "confidence", 1, 1, "c",
                             settings={"raters": [1, 2], "budget_per_image": 2})
        project.record_answer(sid, 1, 2, "left", rater_id=2)
        project.record_answer(sid, 1, 2, "left", rater_id=1)
        assert len(project.answers(sid)) == 2
