"""``slicereview ranking`` and ``slicereview reliability`` on a project with simulated raters."""

from __future__ import annotations

import csv
import json

import pytest

from slicereview.app.rating.run import RatingRun
from slicereview.app.rating.sessions import create_session
from slicereview.demo.raters import SimulatedRater
from slicereview.demo.ratings import complete_session
from slicereview.launcher import main
from slicereview.model import NewImage
from slicereview.store import Project


@pytest.fixture
def project_path(location, tmp_path):
    path = location("p.srproj")
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    with Project.create(path) as p:
        ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(16)]
        set_id = p.image_sets.create("set", ids)
        truth = {i: float(k % 4) for k, i in enumerate(ids)}
        for name, kind, noise in (("sim-a", "sort", 0.3), ("sim-b", "sort", 0.6),
                                  ("sim-c", "classify", 0.3), ("sim-d", "exhaustive", 0.3)):
            rater = p.raters.add(name, simulated=True)
            sid = create_session(p, kind, rater, set_id, f"{name} {kind}", seed=rater)
            complete_session(RatingRun(p, sid), SimulatedRater(truth, noise, 0.2, seed=rater))
        create_session(p, "sort", p.raters.add("late"), set_id, "unfinished")
    return path


def test_ranking_csv(project_path, tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["ranking", str(project_path), "sim-a sort", "--csv", str(out)]) == 0
    assert "16 images written" in capsys.readouterr().out
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["image_id", "case_id", "file", "rank", "tier", "score", "rater",
                             "session", "answers", "active_time_s", "bt_score", "bt_se",
                             "comparisons"]
    assert all(float(r["bt_se"]) > 0 and int(r["comparisons"]) > 0 for r in rows)
    assert [r["bt_score"] for r in rows] == [r["score"] for r in rows]  # sort: score is BT
    assert len(rows) == 16 and rows[0]["rank"] == "1" and rows[0]["tier"] == "1"
    assert {r["rater"] for r in rows} == {"sim-a"} and rows[0]["session"] == "sim-a sort"
    with Project.open(project_path) as p:
        sid = p.ratings.find_session("sim-a sort").id
        answers = p.ratings.answers(sid)
    assert int(rows[0]["answers"]) == len(answers)
    assert float(rows[0]["active_time_s"]) == pytest.approx(sum(a.active_ms for a in answers)
                                                            / 1000)
    ranks = [int(r["rank"]) for r in rows]
    assert ranks == sorted(ranks) and rows[0]["file"].endswith("img.png")
    # By id, printed as a table.
    assert main(["ranking", str(project_path), str(sid)]) == 0
    assert "finished" in capsys.readouterr().out


def test_ranking_of_unfinished_session_and_errors(project_path, capsys):
    assert main(["ranking", str(project_path), "unfinished"]) == 0
    assert "NOT finished" in capsys.readouterr().out
    assert main(["ranking", str(project_path), "no such session"]) == 2
    assert "no session with id or name" in capsys.readouterr().err


def test_reliability(project_path, tmp_path, capsys):
    js = tmp_path / "rel.json"
    assert main(["reliability", str(project_path), "sim-a sort", "sim-b sort", "sim-c classify",
                 "sim-d exhaustive", "--json", str(js), "--randomisations", "20"]) == 0
    text = capsys.readouterr().out
    assert "ICC(2,k)" in text and "top-N intersection" in text
    report = json.loads(js.read_text())
    assert report["n_images"] == 16 and report["randomisations"] == 20
    assert len(report["pairs"]) == 6
    for pair in report["pairs"]:
        assert 0.3 < pair["spearman"] <= 1 and 0 < pair["kendall_tau_b"] <= 1
    assert main(["reliability", str(project_path), "sim-a sort", "unfinished"]) == 2
    assert "not finished" in capsys.readouterr().err


def test_exhaustive_ranking_shows_bradley_terry_beside_wins_minus_losses(project_path, tmp_path,
                                                                         capsys):
    out = tmp_path / "e.csv"
    assert main(["ranking", str(project_path), "sim-d exhaustive", "--csv", str(out)]) == 0
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert all(int(r["comparisons"]) == 15 for r in rows)  # every pair once among 16 images
    wins_losses = [float(r["score"]) for r in rows]
    bt = [float(r["bt_score"]) for r in rows]
    assert wins_losses == sorted(wins_losses, reverse=True)
    # A complete round robin: Bradley–Terry orders exactly as wins − losses (ties included).
    for i in range(len(rows) - 1):
        assert (bt[i] > bt[i + 1] + 1e-9) == (wins_losses[i] > wins_losses[i + 1])
    assert main(["ranking", str(project_path), "sim-d exhaustive"]) == 0
    text = capsys.readouterr().out
    assert "wins-losses" in text and "BT score" in text and "SE" in text
    assert "Bradley–Terry MAP" in text and "Fisher information" in text


def test_pooled_ranking(project_path, tmp_path, capsys):
    assert main(["ranking", str(project_path), "--pooled"]) == 0
    text = capsys.readouterr().out
    with Project.open(project_path) as p:
        pairwise = [s for s in p.ratings.sessions() if s.kind in ("sort", "exhaustive")]
        total = sum(len(p.ratings.answers(s.id)) for s in pairwise)
    assert f"{total} answers of {len(pairwise)} sessions" in text
    assert "'unfinished' (sort, late): 0 answers, not finished" in text
    assert "95% CI" in text and "score ± 1.96 SE" in text
    out = tmp_path / "pooled.csv"
    assert main(["ranking", str(project_path), "--pooled", "--sessions", "sim-a sort",
                 "sim-b sort", "--csv", str(out)]) == 0
    assert "16 images written" in capsys.readouterr().out
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["image_id", "case_id", "file", "rank", "bt_score", "bt_se",
                             "ci95_low", "ci95_high", "comparisons", "wins", "sessions",
                             "answers"]
    scores = [float(r["bt_score"]) for r in rows]
    assert scores == sorted(scores, reverse=True) and rows[0]["rank"] == "1"
    for r in rows:
        low, high, se = float(r["ci95_low"]), float(r["ci95_high"]), float(r["bt_se"])
        assert low < float(r["bt_score"]) < high
        assert high - low == pytest.approx(2 * 1.96 * se, rel=1e-3)
    assert rows[0]["sessions"] == "sim-a sort; sim-b sort"


@pytest.mark.parametrize(("args", "message"), [
    (["--pooled", "--sessions", "sim-c classify"], "classify session"),
    (["sim-a sort", "--pooled"], "with --pooled, name the sessions with --sessions"),
    (["--sessions", "sim-a sort"], "--sessions goes with --pooled"),
    ([], "name a session"),
])
def test_pooled_ranking_errors(project_path, capsys, args, message):
    assert main(["ranking", str(project_path), *args]) == 2
    assert message in capsys.readouterr().err
