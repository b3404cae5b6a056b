"""``slicereview queue`` and ``slicereview review-eval`` on a project of simulated annotators."""

from __future__ import annotations

import csv

import pytest

from slicereview.app.review.decisions import decide, pin
from slicereview.demo.annotators import (
    random_regions,
    simulate_annotators,
    store_simulated,
)
from slicereview.engines.review.features import ImageFeatures
from slicereview.launcher import main
from slicereview.model import NewImage
from slicereview.store import Project

SHAPE = (64, 64)
N = 10


@pytest.fixture
def project_path(location, tmp_path):
    path = location("p.srproj")
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    with Project.create(path) as p:
        ids = p.images.add_source(f, "0" * 64, "png", [NewImage(*SHAPE, frame=k) for k in range(N)])
        for image_id in ids:
            regions = random_regions(SHAPE, 2, seed=image_id, radius=(4.0, 10.0))
            store_simulated(p, image_id, simulate_annotators(SHAPE, regions, seed=image_id))
        lonely = p.images.add_source(tmp_path / "img.png", "1" * 64, "png", [NewImage(*SHAPE)])[0]
        store_simulated(p, lonely, {"Simulated annotator A (careful)": []})
        boss = p.raters.add("boss", "reviewer")
        anns = p.annotations.all(image_id=ids[0])
        decide(p, boss, anns[0].id, "expert_review")
        pin(p, boss, ids[1], point=(5, 5), text="look here")
    return path


def test_queue_prints_every_image_and_lists_the_lonely_one_apart(project_path, capsys):
    assert main(["queue", str(project_path)]) == 0
    out, err = capsys.readouterr()
    assert f"{N} images ranked by box-score ({N} computed, 0 cached)" in out
    assert "strict_alpha" in out and "C000001" in out
    assert "not enough annotations (fewer than 2): C000011" in err
    assert "features [" in err  # the progress bar
    assert main(["queue", str(project_path), "--method", "image-sort"]) == 0
    assert f"(0 computed, {N} cached)" in capsys.readouterr().out


def test_queue_csv_columns(project_path, tmp_path, capsys):
    out = tmp_path / "q.csv"
    assert main(["queue", str(project_path), "--csv", str(out), "--level", "strict",
                 "--annotators", "Simulated annotator A (careful),Simulated annotator B "
                 "(liberal)"]) == 0
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == N
    columns = list(rows[0])
    assert columns[:6] == ["rank", "image_id", "case_id", "score", "status", "review_first"]
    features = [f for f in ImageFeatures.__dataclass_fields__]
    assert set(features) <= set(columns)
    assert columns[-3:] == ["wbbox_per_pixel", "mean_pairwise_consensus",
                            "mean_pairwise_mask_iou"]
    assert [int(r["rank"]) for r in rows] == list(range(1, N + 1))
    assert {r["level"] for r in rows} == {"strict"}
    assert rows[0]["intra_strict"] == ""  # NaN: no repeats
    assert "written to" in capsys.readouterr().out


def test_queue_errors_are_one_line(location, project_path, capsys):
    assert main(["queue", str(project_path), "--annotators", "nobody,boss"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "slicereview: error: no annotator 'nobody' in this project"
    assert main(["queue", str(project_path), "--group", "none"]) == 2
    assert "no annotators in group 'none'" in capsys.readouterr().err
    assert main(["queue", str(location("missing.srproj"))]) == 2


def test_review_eval_table_and_plot(project_path, tmp_path, capsys):
    plot = tmp_path / "curves.png"
    assert main(["review-eval", str(project_path), "--k", "5", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert f"{N} images" in out and "P@5" in out and "N@5" in out
    for method in ("image-sort", "box-sort", "box-score", "random"):
        assert method in out
    assert plot.stat().st_size > 1000
    assert main(["review-eval", str(project_path), "--k", "50"]) == 0  # k beyond M is fine
    assert main(["review-eval", str(project_path), "--k", "0"]) == 2


def test_review_eval_with_two_models_says_how_to_grade_one(project_path, capsys):
    # found on the new-user walk: the demo has two simulated models, and review-eval left
    # the model-disagreement row out without a word
    from slicereview.app.models.raters import model_rater

    with Project.open(project_path) as p:
        model_rater(p, "net-a", "1")
        model_rater(p, "net-b", "2")
    assert main(["review-eval", str(project_path), "--k", "5"]) == 0
    out = capsys.readouterr().out
    assert ("model-disagreement not graded: this project has 2 models; name one with "
            "--model (e.g. --model net-a@1)") in out
    assert main(["review-eval", str(project_path), "--k", "5", "--model", "net-b@2"]) == 0
    out = capsys.readouterr().out
    assert "not graded" not in out and "model-disagreement" in out
