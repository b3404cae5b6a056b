"""The rating engine over a real project file: sort, exhaustive and classify sessions."""

from __future__ import annotations

import pytest

from slicereview.app.rating.run import Comparison, GradeRequest, RatingRun
from slicereview.app.rating.sessions import create_session
from slicereview.demo.raters import SimulatedRater
from slicereview.engines.ranking import Ranking
from slicereview.model import AnswerChoice, NewImage
from slicereview.store import Project


def _project(location, tmp_path, n=12):
    p = Project.create(location("p.srproj"))
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(n + 3)]
    set_id = p.image_sets.create("set", ids[:n])
    return p, ids, set_id, p.raters.add("ann")


def _finish(rs, rater):
    while isinstance(now := rs.current(), Comparison):
        rs.answer(rater.answer(now.left, now.right), rater.active_ms(now.left, now.right),
                  pair=(now.left, now.right))
    return now


def test_sort_session_resumes_exactly_and_finishes(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path)
    truth = {i: float(i % 4) for i in ids}
    rater = SimulatedRater(truth)
    sid = create_session(p, "sort", rater_id, set_id, "s", seed=11)
    rs = RatingRun(p, sid)
    for _ in range(6):
        now = rs.current()
        rs.answer(rater.answer(now.left, now.right), 1000)
    pending = rs.current()
    path = p.location
    p.close()
    p = Project.open(path)
    rs = RatingRun(p, sid)
    assert rs.current() == pending
    assert rs.answer_count == 6 and rs.active_ms == 6000
    out = _finish(rs, rater)
    assert isinstance(out, Ranking) and rs.done
    assert [{truth[i] for i in tier} for tier in out.tiers] == [{3.0}, {2.0}, {1.0}, {0.0}]
    assert p.ratings.session_finished_at(sid) is not None
    # Undo reopens the session and asks the undone pair again, as shown before.
    last = p.ratings.answers(sid)[-1]
    removed = rs.undo()
    assert removed.id == last.id
    assert rs.current() == Comparison(last.left, last.right, rs.answer_count,
                                      rs.current().estimated_total)
    assert p.ratings.session_finished_at(sid) is None
    rs.answer(last.answer, 10)
    assert rs.current() == out
    p.close()


def test_left_right_placement_is_random_and_stored_as_shown(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path, n=30)
    truth = {i: float(i) for i in ids}
    sid = create_session(p, "sort", rater_id, set_id, "s", seed=2, algorithm="merge-insertion")
    rs = RatingRun(p, sid)
    _finish(rs, SimulatedRater(truth))
    answers = p.ratings.answers(sid)
    lefts = sum(a.answer == AnswerChoice.LEFT for a in answers)
    # The inserted (or winning) image is not always on one side.
    assert 0.3 < lefts / len(answers) < 0.7
    for a in answers:
        assert (a.answer == AnswerChoice.LEFT) == (truth[a.left] > truth[a.right])
    p.close()


def test_stale_pair_and_wrong_kind_are_refused(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path, n=4)
    rs = RatingRun(p, create_session(p, "sort", rater_id, set_id, "s"))
    now = rs.current()
    with pytest.raises(ValueError, match="pair shown"):
        rs.answer("left", pair=(now.right, now.left))
    with pytest.raises(ValueError, match="only classify"):
        rs.grade(1)
    assert rs.undo() is None and p.ratings.answers(rs.session.id) == []
    with pytest.raises(ValueError, match="not a rating session"):
        RatingRun(p, create_session(p, "annotate", rater_id, set_id, "a"))
    p.close()


def test_exhaustive_session_asks_every_pair_once(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path, n=8)
    truth = {i: float(k // 2) for k, i in enumerate(ids)}
    sid = create_session(p, "exhaustive", rater_id, set_id, "e", seed=4)
    rs = RatingRun(p, sid)
    assert rs.current().estimated_total == 28
    rs.answer(SimulatedRater(truth).answer(rs.current().left, rs.current().right))
    removed = rs.undo()
    assert rs.current() == Comparison(removed.left, removed.right, 0, 28)
    out = _finish(rs, SimulatedRater(truth))
    assert rs.answer_count == 28
    assert len({frozenset((a.left, a.right)) for a in p.ratings.answers(sid)}) == 28
    assert [{truth[i] for i in tier} for tier in out.tiers] == [{3.0}, {2.0}, {1.0}, {0.0}]
    scores = rs.scores()
    assert scores[ids[7]] == 6 - 0 and scores[ids[0]] == -6
    p.close()


def test_classify_session_grades_undo_and_tiers(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path, n=5)
    sid = create_session(p, "classify", rater_id, set_id, "c", seed=1)
    rs = RatingRun(p, sid)
    first = rs.current()
    assert isinstance(first, GradeRequest) and first.labels[0] == "none" and first.total == 5
    with pytest.raises(ValueError, match="grade must be"):
        rs.grade(4)
    rs.grade(3, 700)
    assert rs.undo().image_id == first.image_id
    assert rs.current() == first
    while isinstance(now := rs.current(), GradeRequest):
        rs.grade(ids.index(now.image_id) % 4, 500)
    assert isinstance(now, Ranking) and rs.done
    assert [len(t) for t in now.tiers] == [1, 1, 1, 2]  # grades 3, 2, 1, 0 + 0
    rs.grade(0, image_id=ids[3])  # change a grade after finishing
    assert rs.scores()[ids[3]] == 0.0
    p.close()


@pytest.mark.slow  # 3 s
def test_adding_images_replays_and_keeps_the_first_order(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path, n=10)
    truth = {i: float(i) for i in ids}
    rater = SimulatedRater(truth)
    sid = create_session(p, "sort", rater_id, set_id, "s", seed=8)
    rs = RatingRun(p, sid)
    _finish(rs, rater)
    before = list(rs.items)
    rs.add_images(ids[10:13])
    assert rs.items[:10] == before and sorted(rs.items[10:]) == ids[10:13]
    assert not rs.done and p.ratings.session_finished_at(sid) is None
    out = _finish(rs, rater)
    assert out.order == sorted(ids[:13], key=lambda i: -truth[i])
    rows = rs.rows()
    assert [r.rank for r in rows] == list(range(1, 14))
    assert rows[0].image_id == ids[12] and rows[0].rater == "ann" and rows[0].session == "s"
    assert rows[0].session_answers == rs.answer_count
    assert rows[0].score > rows[-1].score
    p.close()


def test_top_k_session_rows_and_version_mismatch(location, tmp_path):
    p, ids, set_id, rater_id = _project(location, tmp_path, n=9)
    truth = {i: float(i) for i in ids}
    sid = create_session(p, "sort", rater_id, set_id, "top", algorithm="top-k",
                           settings={"k": 3})
    rs = RatingRun(p, sid)
    assert not rs.version_mismatch
    out = _finish(rs, SimulatedRater(truth))
    assert out.order == [ids[8], ids[7], ids[6]] and len(out.unranked) == 6
    rows = rs.rows()
    assert [r.rank for r in rows] == [1, 2, 3] + [None] * 6
    assert rs.session_scores().scores[ids[0]] == -3.0
    p.db.execute("UPDATE sessions SET algorithm_version = 99 WHERE id = ?", (sid,))
    assert RatingRun(p, sid).version_mismatch
    p.close()
