"""Bradley–Terry scores of rating sessions in the application layer: an exhaustive session's rows
carry the BT score and SE beside wins − losses, the pooled ranking of several sessions of one
image set, its rules, and the owner's report's rating part."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.app.rating.pooled import choose_sessions, pooled_ranking
from slicereview.app.rating.run import RatingRun
from slicereview.app.rating.sessions import create_session
from slicereview.app.report.owner_report import collect, render
from slicereview.demo.raters import SimulatedRater
from slicereview.demo.ratings import complete_session
from slicereview.engines.ranking.bt import BT_ALPHA
from slicereview.model import NewImage
from slicereview.store import Project


@pytest.fixture
def project(tmp_path):
    p = Project.create(tmp_path / "p.srproj")
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(12)]
    p.image_sets.create("eight", ids[:8])
    p.image_sets.create("four", ids[8:])
    yield p
    p.close()


def _set(project, name):
    return next(i for i, n in project.image_sets.all().items() if n == name)


def _session(project, kind, rater, set_name, noise=0.5, seed=1, finish=True):
    set_id = _set(project, set_name)
    truth = {i: float(k) for k, i in enumerate(project.image_sets.members(set_id))}
    sid = create_session(project, kind, project.raters.ensure(rater), set_id,
                         f"{rater} {kind} {set_name}", seed=seed)
    if finish:
        complete_session(RatingRun(project, sid), SimulatedRater(truth, noise, 0.3, seed=seed))
    return sid


def _choix_pooled(items, answers):
    """The same MAP with choix: decided answers twice, a "same" once each way, α doubled."""
    import choix

    index = {i: k for k, i in enumerate(items)}
    data = []
    for a in answers:
        x, y = index[a.left], index[a.right]
        data += {"left": [(x, y)] * 2, "right": [(y, x)] * 2, "same": [(x, y), (y, x)]}[
            str(a.answer)]
    ref = choix.opt_pairwise(len(items), data, alpha=2 * BT_ALPHA, tol=1e-10)
    return ref - ref.mean()


def test_exhaustive_rows_carry_bt_score_and_se(project):
    sid = _session(project, "exhaustive", "ann", "eight")
    rs = RatingRun(project, sid)
    rows = rs.rows()
    items = project.image_sets.members(_set(project, "eight"))
    ref = dict(zip(items, _choix_pooled(items, project.ratings.answers(sid)), strict=True))
    for row in rows:
        assert row.bt_score == pytest.approx(ref[row.image_id], abs=1e-5)
        assert row.bt_se > 0 and row.comparisons == 7
    wins_losses = [r.score for r in rows]
    bt = [r.bt_score for r in rows]
    assert wins_losses == sorted(wins_losses, reverse=True)
    for i in range(len(rows) - 1):  # a round robin: BT orders exactly as wins − losses
        assert (bt[i] > bt[i + 1] + 1e-9) == (wins_losses[i] > wins_losses[i + 1])
    assert rs.scores()[rows[0].image_id] == rows[0].score  # the kind's own score is unchanged


def test_unfinished_exhaustive_session_marks_images_never_compared(project):
    sid = _session(project, "exhaustive", "ann", "eight", finish=False)
    rs = RatingRun(project, sid)
    now = rs.current()
    rs.answer("left", 500, pair=(now.left, now.right))
    rows = {r.image_id: r for r in rs.rows()}
    assert rows[now.left].bt_score > 0 > rows[now.right].bt_score
    others = [r for i, r in rows.items() if i not in (now.left, now.right)]
    assert all(r.comparisons == 0 and math.isnan(r.bt_se) for r in others)


def test_classify_session_has_no_bt(project):
    sid = _session(project, "classify", "ann", "eight")
    rs = RatingRun(project, sid)
    assert all(r.bt_score is None and r.comparisons is None for r in rs.rows())
    with pytest.raises(ValueError, match="grades, not pairwise answers"):
        rs.bt()


def test_pooled_ranking_is_one_fit_over_every_answer(project):
    a = _session(project, "sort", "ann", "eight", seed=1)
    b = _session(project, "sort", "bob", "eight", seed=2)
    c = _session(project, "exhaustive", "cy", "eight", seed=3)
    d = _session(project, "sort", "dee", "eight", seed=4, finish=False)  # no answers yet
    pooled = pooled_ranking(project, [a, b, c, d])
    answers = [x for s in (a, b, c) for x in project.ratings.answers(s)]
    assert pooled.answers == len(answers)
    items = project.image_sets.members(_set(project, "eight"))
    ref = dict(zip(items, _choix_pooled(items, answers), strict=True))
    for row in pooled.rows:
        assert row.score == pytest.approx(ref[row.image_id], abs=1e-5)
        assert row.ci_low == pytest.approx(row.score - 1.959964 * row.se)
    assert [r.rank for r in pooled.rows] == list(range(1, 9))
    assert [s.finished for s in pooled.sessions] == [True, True, True, False]
    # Pooling more answers narrows the intervals of the pooled sessions.
    alone = pooled_ranking(project, [a])
    se_alone = {r.image_id: r.se for r in alone.rows}
    assert np.mean([r.se for r in pooled.rows]) < np.mean(list(se_alone.values()))
    # Repeated ids count once.
    assert pooled_ranking(project, [a, a]).answers == alone.answers


def test_pooled_ranking_rules(project):
    a = _session(project, "sort", "ann", "eight")
    g = _session(project, "classify", "ann", "eight")
    f = _session(project, "sort", "bob", "four")
    with pytest.raises(ValueError, match="classify session"):
        choose_sessions(project, [a, g])
    with pytest.raises(ValueError, match="different image sets"):
        choose_sessions(project, [a, f])
    with pytest.raises(ValueError, match="rate 2 image sets"):
        choose_sessions(project, None)
    project.ratings.delete_session(f)
    assert [s.id for s in choose_sessions(project, None)] == [a]


def test_pooled_ranking_without_sessions_and_with_no_answers(project):
    with pytest.raises(ValueError, match="no pairwise .sort, exhaustive or confidence. session"):
        pooled_ranking(project)
    sid = _session(project, "sort", "ann", "four", finish=False)
    pooled = pooled_ranking(project, [sid])
    assert pooled.answers == 0
    assert all(r.rank is None and r.comparisons == 0 and math.isnan(r.se)
               for r in pooled.rows)


def test_report_rating_section(project):
    _session(project, "exhaustive", "ann", "eight", seed=1)
    _session(project, "sort", "bob", "eight", seed=2)
    _session(project, "classify", "cy", "four", seed=3)
    data = collect(project)
    assert [r.name for r in data.rating] == ["eight", "four"]
    eight = data.rating[0]
    assert eight.pooled is not None and len(eight.exhaustive) == 1
    page = render(data)
    assert "<h2>Rating: eight (8 images)</h2>" in page
    assert "Exhaustive session ann exhaustive eight: wins − losses and Bradley–Terry" in page
    assert "Pooled ranking:" in page and "observed Fisher information" in page
    first = eight.exhaustive[0][1][0]
    assert f"<td>{first.bt_score:.2f}</td><td>{first.bt_se:.2f}</td>" in page
    assert "<h2>Rating: four (4 images)</h2>" in page
    assert data.rating[1].pooled is None  # one session: nothing to pool


def test_report_without_rating_has_no_rating_section(project):
    assert "Rating:" not in render(collect(project))
