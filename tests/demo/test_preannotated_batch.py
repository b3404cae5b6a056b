"""The demo's pre-annotated batch (demo/preannotated_batch.py): the report's *What
pre-annotation did* on the demo has both arms, and recovers the simulated annotators' stated
tendency to follow the model."""

from __future__ import annotations

import math
from pathlib import Path

from slicereview.app.qa.preannotation import model_annotation
from slicereview.app.report.preannotation import collect
from slicereview.demo.preannotated_batch import BATCH, FOLLOW, FOLLOW_S, IMAGE_SET, OWN_S
from slicereview.launcher import main
from slicereview.store import Project


def test_the_demo_report_shows_what_preannotation_did(demo_location, tmp_path: Path) -> None:
    with Project.open(demo_location, read_only=True) as p:
        [effect] = collect(p)
        assert effect.batch == BATCH and effect.model == "simulated-review-model@1"
        ids = p.image_sets.members(p.image_sets.id_by_name(IMAGE_SET))
        assert effect.share == "half" and effect.images == len(ids) == 8
        # both arms, every design row finished: five annotators on each image
        assert effect.pending == 0 and effect.finished == 5 * 8
        assert effect.time.n_shown > 0 and effect.time.n_not_shown > 0
        # the expectation from the stated tendency: a shown annotator keeps the model's
        # outline with probability FOLLOW (only where the model predicted something)
        setting = p.preannotation.settings()[0]
        kept = []
        for _, image_id, rater, shown in p.preannotation.design(effect_batch(p)):
            if shown:
                prediction = model_annotation(p, setting.model_id, image_id)
                has = prediction is not None and bool(p.polygons.of(prediction))
                kept.append(FOLLOW[p.raters.get(rater).name] * has)
        follow = sum(kept) / len(kept)
        assert 0.3 < follow < 0.7
        gap = effect.gap
        assert gap.difference > 0 and gap.low <= follow <= gap.high
        assert effect.model_dice.difference > 0          # the shown arm is closer to the model
        # following is faster: the expected saving, lognormal(0, 0.3) times
        saved = follow * (OWN_S - FOLLOW_S) * math.exp(0.3 ** 2 / 2)
        assert effect.time.difference < 0 and effect.time.low <= -saved <= effect.time.high
        # the same predictions are material for The model in QA: five people on each image
        from slicereview.app.report.model_qa import collect as model_parts

        [part] = [m for m in model_parts(p) if m.label == effect.model]
        in_batch = [r for r in part.images if r.image_id in ids]
        assert len(in_batch) == 8 and {r.people for r in in_batch} == {5}
    # and for the queue's model-disagreement method
    assert main(["queue", str(demo_location), "--phase", "formal", "--method",
                 "model-disagreement", "--model", effect.model, "--csv",
                 str(tmp_path / "q.csv")]) == 0
    import csv

    with (tmp_path / "q.csv").open(newline="", encoding="utf-8") as fh:
        scores = {int(r["image_id"]): r["model_disagreement"] for r in csv.DictReader(fh)}
    assert all(0 <= float(scores[i]) <= 1 for i in ids)
    out = tmp_path / "report.html"
    assert main(["report", str(demo_location), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    section = html.split("<h2>What pre-annotation did</h2>", 1)[1].split("<h2>", 1)[0]
    assert BATCH in section and "shown on half of the images" in section
    assert "No comparison yet" not in section and "share of the gap to the model closed" in section


def effect_batch(project: Project) -> int:
    [batch] = [b.id for b in project.workflow.batches() if b.name == BATCH]
    return batch
