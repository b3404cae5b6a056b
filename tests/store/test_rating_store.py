"""Store methods for rating sessions, answers and grades."""

from __future__ import annotations

import pytest

from slicereview.app.rating.sessions import create_session
from slicereview.model import AnswerChoice, NewImage, Phase, SessionKind
from slicereview.store import Project


@pytest.fixture
def project(location, tmp_path):
    p = Project.create(location("p.srproj"))
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(5)]
    p.test_ids = ids
    p.test_set = p.image_sets.create("set", ids)
    p.test_rater = p.raters.add("ann")
    yield p
    p.close()


def test_create_session_defaults(project):
    sid = create_session(project, "sort", project.test_rater, project.test_set, "s1",
                                 prompt="Which has more motion?", seed=3)
    s = project.ratings.session(sid)
    assert s.kind == SessionKind.SORT and s.seed == 3 and s.phase == Phase.FORMAL
    assert s.algorithm == "tie-aware-merge-insertion" and s.algorithm_version == 1
    assert s.prompt == "Which has more motion?"
    assert s.settings == {"initial_count": 5}
    top = project.ratings.session(create_session(project, "sort", project.test_rater,
                                                 project.test_set, "t", algorithm="top-k"))
    assert top.settings["k"] == 10 and isinstance(top.seed, int)
    c = project.ratings.session(create_session(project, "classify", project.test_rater,
                                               project.test_set, "c", phase="pilot"))
    assert c.settings["labels"] == ["none", "mild", "moderate", "severe"]
    assert c.phase == Phase.PILOT and c.algorithm is None
    with pytest.raises(ValueError, match="only sort sessions"):
        create_session(project, "exhaustive", project.test_rater, project.test_set, "e",
                               algorithm="timsort")
    with pytest.raises(ValueError, match="unknown ranking algorithm"):
        create_session(project, "sort", project.test_rater, project.test_set, "x",
                               algorithm="nope")
    with pytest.raises(ValueError, match="2 to 9 labels"):
        create_session(project, "classify", project.test_rater, project.test_set, "x",
                               settings={"labels": ["only"]})
    with pytest.raises(KeyError):
        create_session(project, "sort", project.test_rater, 999, "x")
    assert [s.name for s in project.ratings.sessions(kind="sort")] == ["s1", "t"]
    mine = project.ratings.sessions(rater_id=project.test_rater)
    assert [s.name for s in mine] == ["s1", "t", "c"]


def test_find_session_by_id_or_name(project):
    a = create_session(project, "sort", project.test_rater, project.test_set, "pass")
    b = create_session(project, "sort", project.test_rater, project.test_set, "twice")
    create_session(project, "sort", project.test_rater, project.test_set, "twice")
    assert project.ratings.find_session(str(a)).id == a
    assert project.ratings.find_session("pass").id == a
    assert project.ratings.find_session(b).id == b
    with pytest.raises(KeyError, match="2 sessions are named"):
        project.ratings.find_session("twice")
    with pytest.raises(KeyError, match="no session"):
        project.ratings.find_session("nothing")


def test_answers_record_undo_and_constraints(project):
    sid = create_session(project, "exhaustive", project.test_rater, project.test_set, "e")
    i = project.test_ids
    first = project.ratings.record_answer(sid, i[0], i[1], "left", 1200)
    project.ratings.record_answer(sid, i[2], i[1], AnswerChoice.SAME, 800)
    assert project.ratings.answer_map(sid) == {(i[0], i[1]): "left", (i[2], i[1]): "same"}
    answers = project.ratings.answers(sid)
    assert [a.id for a in answers][0] == first and answers[1].active_ms == 800
    with pytest.raises(ValueError, match="already compared"):
        project.ratings.record_answer(sid, i[1], i[0], "right")
    with pytest.raises(ValueError, match="not a pair"):
        project.ratings.record_answer(sid, i[0], i[0], "right")
    with pytest.raises(ValueError, match="not a pair"):
        project.ratings.record_answer(sid, i[0], 12345, "right")
    with pytest.raises(ValueError):
        project.ratings.record_answer(sid, i[0], i[3], "maybe")
    undone = project.ratings.delete_last_answer(sid)
    assert (undone.left, undone.right, undone.answer) == (i[2], i[1], AnswerChoice.SAME)
    assert list(project.ratings.answer_map(sid)) == [(i[0], i[1])]
    assert project.ratings.delete_last_answer(sid).id == first
    assert project.ratings.delete_last_answer(sid) is None


def test_grades_and_finish(project):
    sid = create_session(project, "classify", project.test_rater, project.test_set, "c")
    i = project.test_ids
    project.ratings.set_grade(sid, i[0], 2, 900)
    gid = project.ratings.set_grade(sid, i[1], 1)
    assert project.ratings.set_grade(sid, i[1], 3, 50) == gid  # replacing keeps the row
    assert project.ratings.grade(sid, i[1]).grade == 3
    assert [g.image_id for g in project.ratings.grades(sid)] == [i[0], i[1]]
    assert project.ratings.delete_grade(sid, i[0]).grade == 2
    assert project.ratings.delete_grade(sid, i[0]) is None
    assert project.ratings.session_finished_at(sid) is None
    project.ratings.set_session_finished(sid)
    assert project.ratings.session_finished_at(sid).endswith("Z")
    project.ratings.set_session_finished(sid, False)
    assert project.ratings.session_finished_at(sid) is None
    project.ratings.delete_session(sid)
    with pytest.raises(KeyError):
        project.ratings.session(sid)
    assert project.counts()["grades"] == 0
