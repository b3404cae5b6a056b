"""Confidence sessions over a real project (a file and a PostgreSQL database): stop rules,
several raters, exact resume (also across a real process restart), undo, and the commands'
undo/redo."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.commands import RecordAnswer, RemoveLastAnswer
from slicereview.app.rating.confidence import (
    DEFAULT_CAP,
    ConfidenceRun,
    StopRule,
    confidence_settings,
)
from slicereview.app.rating.raters import rater_input, session_noise
from slicereview.app.rating.run import Comparison, RatingRun, open_run
from slicereview.app.rating.sessions import (
    NewSessionSpec,
    RatingRuns,
    create_session,
    start_session,
)
from slicereview.app.undo import CommandStack
from slicereview.engines.ranking import Ranking
from slicereview.engines.ranking.active import VERSION, ActiveRanking
from slicereview.model import NewImage, SessionKind
from slicereview.store import Project

ROOT = Path(__file__).resolve().parents[3]


def _project(location, tmp_path: Path, n: int = 10):
    p = Project.create(location("p.srproj"))
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(n)]
    set_id = p.image_sets.create("set", ids)
    return p, ids, set_id


class Rater:
    """A logistic rater over image ids: the truth is the id, noise ``T`` in id units; a fresh
    seeded draw per answer (so a repeated pair may get another answer)."""

    def __init__(self, T: float, seed: int) -> None:
        self.T, self.rng = T, np.random.default_rng(seed)

    def choice(self, left: int, right: int) -> str:
        p = 1.0 / (1.0 + np.exp(-(left - right) / self.T))
        return "left" if self.rng.random() < p else "right"


def _session(p, set_id, raters, seed=5, **stop) -> int:
    return create_session(p, "confidence", raters[0], set_id, "c", seed=seed,
                          settings=confidence_settings(raters, **stop))


def test_create_checks_and_stores_the_engine(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path)
    ann, bob = p.raters.add("ann"), p.raters.add("bob")
    sid = create_session(p, "confidence", bob, set_id, "c",
                         settings={"raters": [ann], "target_tau": 0.9})
    s = p.ratings.session(sid)
    assert s.kind == SessionKind.CONFIDENCE
    assert (s.algorithm, s.algorithm_version) == ("active-ranking", VERSION)
    assert s.settings["raters"] == [bob, ann]  # the session's rater first
    assert StopRule.from_settings(s.settings) == StopRule(target_tau=0.9)
    for bad, message in (({}, "needs a budget"), ({"budget_per_image": 0}, "positive"),
                         ({"target_tau": 1.0}, "between 0 and 1"),
                         ({"target_rank_se": -1}, "positive number of places"),
                         ({"raters": [999], "budget_per_image": 5}, "no rater 999")):
        with pytest.raises((ValueError, KeyError), match=message):
            create_session(p, "confidence", ann, set_id, "x", settings=bad)
    with pytest.raises(ValueError, match="runs 'active-ranking'"):
        create_session(p, "confidence", ann, set_id, "x", algorithm="timsort",
                       settings={"budget_per_image": 5})
    with pytest.raises(ValueError, match="open_run"):
        RatingRun(p, sid)
    assert isinstance(open_run(p, sid), ConfidenceRun)
    assert isinstance(RatingRuns(p).run(sid), ConfidenceRun)
    # The dialog's spec: other raters by name (new names become raters), one stop rule.
    new = start_session(p, NewSessionSpec(SessionKind.CONFIDENCE, "ann", set_id,
                                          shared_with=("cy", " "), stop=StopRule(5)))
    shared = p.ratings.session(new).settings["raters"]
    assert [p.raters.get(r).name for r in shared] == ["ann", "cy"]
    for spec, message in (
            (NewSessionSpec(SessionKind.CONFIDENCE, "ann", set_id), "budget or a target"),
            (NewSessionSpec(SessionKind.CONFIDENCE, "ann", set_id, shared_with=("ann",),
                            stop=StopRule(5)), "named twice"),
            (NewSessionSpec(SessionKind.SORT, "ann", set_id, shared_with=("bob",)),
             "only a confidence session")):
        with pytest.raises(ValueError, match=message):
            start_session(p, spec)
    p.close()


def test_budget_stops_at_answers_per_image_and_ranks_with_se(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path)
    ann = p.raters.add("ann")
    run = ConfidenceRun(p, _session(p, set_id, [ann], budget_per_image=4))
    rater = Rater(1.0, 0)
    while isinstance(now := run.current(), Comparison):
        assert now.estimated_total == 40
        run.answer(rater.choice(now.left, now.right), 700)
    assert run.answer_count == 40 and run.stop_reason() == "budget"
    assert p.ratings.session_finished_at(run.session.id) is not None
    rows = run.rows()
    assert [r.rank for r in rows] == list(range(1, 11))
    assert all(r.bt_se is not None and r.bt_se > 0 for r in rows)
    tau = np.corrcoef([r.bt_score for r in rows], [r.image_id for r in rows])[0, 1]
    assert tau > 0.8  # the ranking follows the truth
    assert {a.rater_id for a in p.ratings.answers(run.session.id)} == {ann}
    assert max(c for c in np.unique([frozenset((a.left, a.right)) for a in run.answers()],
                                    return_counts=True)[1]) > 1  # a pair was asked again
    with pytest.raises(ValueError, match="reached its stop rule"):
        run.answer("left", pair=(ids[0], ids[1]))
    p.close()


def test_targets_stop_after_the_sort(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path)
    ann = p.raters.add("ann")
    for stop, reason in (({"target_tau": 0.8}, "expected τ"),
                         ({"target_rank_se": 0.6}, "rank SE")):
        run = ConfidenceRun(p, _session(p, set_id, [ann], **stop))
        rater = Rater(0.5, 1)
        sorted_at = None
        while isinstance(now := run.current(), Comparison):
            meter = run.meter()
            assert meter.stopped is None
            run.answer(rater.choice(now.left, now.right), 500)
            if sorted_at is None and not run.engine.sorting:
                sorted_at = run.answer_count
        meter = run.meter()
        assert meter.stopped == reason and run.answer_count >= sorted_at
        assert run.answer_count < run.rule.total(len(ids)) == DEFAULT_CAP * len(ids)
        if reason == "expected τ":
            assert meter.expected_tau >= 0.8
        else:
            assert meter.max_rank_se <= 0.6
            assert meter.least_certain[0][2] == meter.max_rank_se
    p.close()


def _answer_some(run: ConfidenceRun, count: int, raters: dict[int, Rater]) -> list:
    shown = []
    for k in range(count):
        rater_id = list(raters)[k % len(raters)]
        run.set_rater(rater_id)
        now = run.current()
        shown.append((now.left, now.right))
        run.answer(raters[rater_id].choice(now.left, now.right), 600)
    return shown


def test_raters_get_different_pairs_and_their_answers_are_theirs(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path, 12)
    ann, bob, cy = (p.raters.add(n) for n in ("ann", "bob", "cy"))
    sid = _session(p, set_id, [ann, bob, cy], budget_per_image=6)
    for count in (3, 6, 42, 45):  # during the sort and after it, all three at work
        live = ConfidenceRun(p, sid)
        while live.answer_count < count:
            live.set_rater([ann, bob, cy][live.answer_count % 3])
            now = live.current()
            live.answer("left" if now.left > now.right else "right", 400)
        pairs = []
        for r in (ann, bob, cy):
            fresh = ConfidenceRun(p, sid, rater_id=r)
            assert fresh.at_work(r) == [ann, bob, cy]
            now = fresh.current()
            pairs.append(frozenset((now.left, now.right)))
        assert len(set(pairs)) == 3, count
    # bob goes on alone: once ann and cy gave none of the last six answers, he gets the best
    # pair (the one ann would get first).
    alone = ConfidenceRun(p, sid, rater_id=bob)
    assert alone.at_work(bob) == [ann, bob, cy]
    for _ in range(6):
        now = alone.current()
        alone.answer("left" if now.left > now.right else "right", 400)
    assert alone.at_work(bob) == [bob]
    best = alone.engine.next_pair()
    now = alone.current()
    assert {now.left, now.right} == set(best)
    assert ConfidenceRun(p, sid, rater_id=ann).at_work(ann) == [ann, bob]
    # bob answers the pair on his screen after ann moved the session on: stored as shown.
    bob_run = ConfidenceRun(p, sid, rater_id=bob)
    shown = bob_run.current()
    ann_run = ConfidenceRun(p, sid, rater_id=ann)
    ann_now = ann_run.current()
    ann_run.answer("left", 500)
    bob_run.answer("right", 500, pair=(shown.left, shown.right))
    last = p.ratings.answers(sid)[-1]
    assert (last.left, last.right, str(last.answer), last.rater_id) == (
        shown.left, shown.right, "right", bob)
    before = p.ratings.answers(sid)[-2]
    assert (before.left, before.right, before.rater_id) == (ann_now.left, ann_now.right, ann)
    with pytest.raises(ValueError, match="does not share"):
        ann_run.set_rater(p.raters.add("dan"))
    lines = rater_input(p, [sid]).compute()
    given = [sum(a.rater_id == r for a in p.ratings.answers(sid)) for r in (ann, bob, cy)]
    assert [(x.name, x.answers) for x in lines] == list(zip(("ann", "bob", "cy"), given,
                                                            strict=True))
    assert all(0.0 <= x.eta <= 1.0 for x in lines)
    p.close()


def test_resume_and_undo_are_exact(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path, 12)
    ann, bob = p.raters.add("ann"), p.raters.add("bob")
    sid = _session(p, set_id, [ann, bob], budget_per_image=8)
    run = ConfidenceRun(p, sid)
    raters = {ann: Rater(0.8, 2), bob: Rater(2.0, 3)}
    before = []
    for _ in range(70):  # through the sort, past an anchor and between anchors
        before.append({r: (run.set_rater(r), run.current())[1] for r in raters})
        _answer_some(run, 1, {ann: raters[ann]} if len(before) % 2 else {bob: raters[bob]})
        for r in raters:
            run.set_rater(r)
            again = ConfidenceRun(p, sid, rater_id=r)
            assert again.current() == run.current()
            assert again.engine.posterior().theta.tolist() == run.engine.posterior().theta.tolist()
    # Undo takes back the last answer whoever gave it and shows what was shown before it.
    for k in range(69, 60, -1):
        removed = run.undo()
        assert removed is not None and run.answer_count == k
        for r in raters:
            run.set_rater(r)
            assert run.current() == before[k][r]
            assert ConfidenceRun(p, sid, rater_id=r).current() == before[k][r]
    p.close()


_CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    from slicereview.app.rating.confidence import ConfidenceRun
    from slicereview.store import Project
    path, sid, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(seed)
    with Project.open(path) as project:
        run = ConfidenceRun(project, sid)
        out = {"start": [run.current().left, run.current().right]}
        for _ in range(count):
            now = run.current()
            p = 1 / (1 + np.exp(-(now.left - now.right)))
            run.answer("left" if rng.random() < p else "right", 500)
        out["next"] = [run.current().left, run.current().right]
        out["answers"] = run.answer_count
        if count == 0:
            run.undo()
            out["after_undo"] = [run.current().left, run.current().right]
    print(json.dumps(out))
""")


def _child(path: Path | str, sid: int, count: int, seed: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(sid), str(count),
                          str(seed)], capture_output=True, text=True, cwd=ROOT, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


def test_resume_after_a_real_process_restart(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path, 12)
    sid = _session(p, set_id, [p.raters.add("ann")], budget_per_image=10, seed=9)
    path = p.location
    p.close()
    first = _child(path, sid, 45, seed=1)  # the sort ends near 30 answers: past it
    second = _child(path, sid, 23, seed=2)  # a new process goes on where the first stopped
    assert second["start"] == first["next"] and second["answers"] == 68
    third = _child(path, sid, 0, seed=3)
    assert third["start"] == second["next"]
    # The last answer undone in that third process: a fourth process proposes what the
    # engine proposed before that answer, as this process computes from the stored answers.
    fourth = _child(path, sid, 0, seed=4)
    assert fourth["start"] == third["after_undo"]
    with Project.open(path) as project:
        answers = project.ratings.answers(sid)
        assert len(answers) == 66
        run = ConfidenceRun(project, sid)
        engine = ActiveRanking.rebuild(run.items, map(run._engine_answer, answers), seed=9)
        a, b = engine.next_pair()
        assert {a, b} == set(fourth["after_undo"])


def test_commands_keep_the_rater_through_undo_and_redo(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path)
    ann, bob = p.raters.add("ann"), p.raters.add("bob")
    sid = _session(p, set_id, [ann, bob], budget_per_image=5)
    run = ConfidenceRun(p, sid, rater_id=bob)
    stack = CommandStack()
    now = run.current()
    stack.push(RecordAnswer(run, "left", 800, (now.left, now.right)))
    run.set_rater(ann)
    stack.undo()
    assert p.ratings.answers(sid) == []
    stack.redo()  # stored again for bob, who gave it
    assert [(a.left, a.right, a.rater_id) for a in p.ratings.answers(sid)] == [
        (now.left, now.right, bob)]
    remove = RemoveLastAnswer(run)
    stack.push(remove)
    assert p.ratings.answers(sid) == [] and remove.removed.rater_id == bob
    stack.undo()
    (again,) = p.ratings.answers(sid)
    assert again.rater_id == bob and again.active_ms == 800
    p.close()


def test_noise_of_a_session_from_repeats_and_triads(location, tmp_path):
    p, ids, set_id = _project(location, tmp_path, 12)
    ann = p.raters.add("ann")
    estimates = []
    for T in (0.4, 3.0):  # in id units: a careful and a careless rater of the same images
        sid = _session(p, set_id, [ann], budget_per_image=12)
        run = ConfidenceRun(p, sid)
        rater = Rater(T, 4)
        while isinstance(now := run.current(), Comparison):
            run.answer(rater.choice(now.left, now.right), 300)
        noise = session_noise(p, sid)
        assert noise.repeat_pairs > 0 and noise.T is not None and not noise.bound
        estimates.append(noise.T)
    assert estimates[0] < estimates[1] / 2  # the engine's tests check the scale itself
    sort = create_session(p, "sort", ann, set_id, "s", seed=1)
    rs = RatingRun(p, sort)
    while isinstance(now := rs.current(), Comparison):
        rs.answer("left" if now.left > now.right else "right")
    assert isinstance(rs.current(), Ranking)
    consistent = session_noise(p, sort)  # a consistent sort: nothing contradicts anything
    assert consistent.bound and consistent.repeat_pairs == consistent.intransitive == 0
    p.close()


def test_report_names_method_budget_expected_tau_and_raters(location, tmp_path):
    from slicereview.app.report.owner_report import collect, render

    p, ids, set_id = _project(location, tmp_path, 12)
    ann, bob = p.raters.add("ann"), p.raters.add("bob")
    sid = _session(p, set_id, [ann, bob], budget_per_image=4)
    run = ConfidenceRun(p, sid)
    raters = {ann: Rater(1.0, 5), bob: Rater(1.0, 6)}
    while isinstance(run.current(), Comparison):
        _answer_some(run, 1, raters if run.answer_count % 2 else {ann: raters[ann]})
    sort = create_session(p, "sort", bob, set_id, "bob sort", seed=2)
    rs = RatingRun(p, sort)
    while isinstance(now := rs.current(), Comparison):
        rs.answer("left" if now.left > now.right else "right")
    data = collect(p)
    (entry,) = data.rating
    lines = {line.name: line for line in entry.sessions}
    c = lines["c"]
    assert c.method.startswith("to a confidence (active ranking v1; stops at 4 comparisons")
    assert c.rater == "ann, bob" and c.per_image == 4.0
    assert c.expected_tau == pytest.approx(run.meter().expected_tau)
    s = lines["bob sort"]
    assert s.method == "sort (tie-aware-merge-insertion v1)" and 0.5 < s.expected_tau < 1.0
    assert [(r.name, r.answers) for r in entry.raters] == [
        ("ann", sum(a.rater_id == ann for a in run.answers())),
        ("bob", sum(a.rater_id == bob for a in run.answers()) + rs.answer_count)]
    page = render(data)
    assert "<h3>Raters' reliability (Crowd-BT)</h3>" in page
    assert f"<td>{entry.raters[0].eta:.3f}</td>" in page
    assert f"<td>{c.expected_tau:.3f}</td>" in page and "about 0.02 optimistic" in page
    p.close()
