"""The demo's simulated rating sessions: finished, clearly simulated, close to the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slicereview.app.rating.run import RatingRun, open_run
from slicereview.demo.ratings import CAREFUL, NOISY, add_demo_ratings
from slicereview.model import NewImage
from slicereview.store import Project


@pytest.fixture
def project(tmp_path: Path):
    files = [tmp_path / f"brain_{i:02d}.png" for i in range(16)]
    for f in files:
        f.write_bytes(b"")
    project = Project.create(tmp_path / "p.srproj")
    ids = [project.images.add_source(f, f"{i:064x}", "png", [NewImage(8, 8)])[0]
           for i, f in enumerate(files)]
    project.image_sets.create("motion", ids)
    # four levels as in the demo, strengths jittered within a level
    truth = {f.name: {"severity": i % 4, "strength": [0.0, 0.3, 0.6, 1.0][i % 4]
                      + (0.0 if i % 4 == 0 else 0.01 * (i // 4))}
             for i, f in enumerate(files)}
    project.set_meta("demo_truth", json.dumps(truth))
    yield project
    project.close()


def test_demo_sessions_are_finished_and_simulated(project: Project) -> None:
    sids = add_demo_ratings(project, "motion")
    assert len(sids) == 4
    kinds = [str(project.ratings.session(s).kind) for s in sids]
    assert kinds == ["sort", "sort", "classify", "confidence"]
    names = {project.raters.get(project.ratings.session(s).rater_id).name for s in sids}
    assert names == {CAREFUL, NOISY}
    for s in sids:
        rater = project.raters.get(project.ratings.session(s).rater_id)
        assert rater.simulated and "Simulated" in rater.name
        assert project.ratings.session_finished_at(s) is not None
        rs = open_run(project, s)
        assert rs.done and rs.answer_count > 0
        assert all(a.active_ms > 0 for a in rs.answers())
        assert project.ratings.session(s).prompt


def test_the_two_raters_share_the_confidence_session(project: Project) -> None:
    from scipy.stats import kendalltau

    sid = add_demo_ratings(project, "motion")[3]
    answers = project.ratings.answers(sid)
    careful, noisy = (project.raters.by_name(n).id for n in (CAREFUL, NOISY))
    assert len(answers) == 6 * 16
    assert {a.rater_id for a in answers[::2]} == {careful}
    assert {a.rater_id for a in answers[1::2]} == {noisy}
    pairs = [frozenset((a.left, a.right)) for a in answers]
    assert len(set(pairs)) < len(pairs)  # pairs asked again
    run = open_run(project, sid)
    truth = json.loads(project.meta("demo_truth"))
    scores = run.scores()
    ids = sorted(scores)
    strengths = [truth[Path(project.images.get(i).path).name]["strength"] for i in ids]
    assert kendalltau(strengths, [scores[i] for i in ids])[0] > 0.7


def test_careful_rater_agrees_with_truth_better_than_noisy(project: Project) -> None:
    from scipy.stats import kendalltau

    sids = add_demo_ratings(project, "motion")
    truth = json.loads(project.meta("demo_truth"))
    taus = []
    for s in sids[:2]:
        scores = RatingRun(project, s).session_scores().scores
        ids = sorted(scores)
        strengths = [truth[Path(project.images.get(i).path).name]["strength"] for i in ids]
        taus.append(kendalltau(strengths, [scores[i] for i in ids])[0])
    assert taus[0] > 0.7
    assert taus[0] >= taus[1] > 0.3


def test_errors(project: Project) -> None:
    with pytest.raises(KeyError):
        add_demo_ratings(project, "no such set")
    project.set_meta("demo_truth", "{}")
    with pytest.raises(ValueError):
        add_demo_ratings(project, "motion")
