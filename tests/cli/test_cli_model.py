"""`slicereview model train|predict|status`: a version trained on the accepted images and
scored, listed with its interval, the retraining rule, predictions most uncertain first, and
plain sentences for what cannot be done (both backends)."""

from __future__ import annotations

import csv

from slicereview.launcher import main
from tests.app.model_project import build

FAST = ["--trees", "8", "--tissue", "none"]


def test_train_status_predict(location, tmp_path, capsys):
    where = location()
    project, _ = build(where, tmp_path / "images", n=6, accepted=4, rejected=0)
    project.close()
    url = str(where)
    assert main(["model", "status", url]) == 0
    assert "not trained yet" in capsys.readouterr().out
    assert main(["model", "train", url, *FAST, "--by", "boss"]) == 0
    out = capsys.readouterr().out
    assert "trained project@v1 on 4 accepted image(s)" in out
    assert "held-out (4-fold cross-validation by image, 95 % t intervals over images): Dice" in out
    assert main(["model", "status", url, "--retrain-every", "1", "--min-region", "12"]) == 0
    out = capsys.readouterr().out
    assert "stored predictions keep regions of 12 pixels and more" in out
    assert "4 accepted image(s); 0 not in the newest version; retraining after every 1 " in out
    assert "project@v1" in out and ": due" not in out
    assert main(["model", "train", url, "--if-due"]) == 0
    assert "not due: 0 newly accepted image(s)" in capsys.readouterr().out
    table = tmp_path / "predicted.csv"
    assert main(["model", "predict", url, "--csv", str(table)]) == 0
    out = capsys.readouterr().out
    assert "project@v1 predicted 2 image(s), 2 stored as its annotations" in out
    assert "most uncertain first" in out
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 2 and [float(r["entropy"]) for r in rows] == sorted(
        (float(r["entropy"]) for r in rows), reverse=True)


def test_what_cannot_be_done_is_one_sentence(location, tmp_path, capsys):
    where = location()
    project, _ = build(where, tmp_path / "images", n=2, accepted=0, rejected=0)
    project.close()
    assert main(["model", "train", str(where), *FAST]) == 2
    assert "error: No image is accepted yet" in capsys.readouterr().err
    assert main(["model", "predict", str(where)]) == 2
    assert "has not been trained yet" in capsys.readouterr().err
    assert main(["model", "train", str(where), "--trees", "0"]) == 2
    assert "`trees` must be a whole number from 1 to 500, not 0" in capsys.readouterr().err
    assert main(["model", "status", str(where), "--retrain-every", "-2"]) == 2
    assert "needs N from 1 to 10000" in capsys.readouterr().err
