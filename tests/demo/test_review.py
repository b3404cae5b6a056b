"""The demo's review set: crops of the real mammograms, three simulated annotators, repeats,
a simulated reviewer; `slicereview queue` and `review-eval` on it."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.demo.preannotated_batch import IMAGE_SET as PRE_SET
from slicereview.demo.review import PROFILES, REVIEW_GROUP, REVIEW_SET, REVIEWER
from slicereview.launcher import main
from slicereview.model import Decision
from slicereview.store import Project


def test_review_batch_contents(demo_project: Path, demo_location) -> None:
    with Project.open(demo_location, read_only=True) as project:
        ids = project.image_sets.members(project.image_sets.id_by_name(REVIEW_SET))
        assert len(ids) >= 40
        images = project.images.all(ids)
        origin = json.loads(project.meta("demo_review"))
        mammo_cases = {im.case_id for im in project.images.all(
            project.image_sets.members(project.image_sets.id_by_name("Mammograms")))}
        for image in images:
            assert (image.rows, image.cols) == (512, 512)
            path = project.images.resolve(image.path)
            assert path.parent.name == "review" and path.is_file()
            assert origin[path.name]["case_id"] in mammo_cases
            assert path.is_relative_to(demo_project.parent)
        # breast tissue, not background: a crop is far from flat
        pixels = np.asarray(PILImage.open(project.images.resolve(images[0].path)))
        assert pixels.dtype == np.uint16 and np.percentile(pixels, 5) > 0
        # three simulated annotators of the group, named as simulated
        annotators = [r for r in project.raters.all() if r.group == REVIEW_GROUP]
        assert sorted(r.name for r in annotators) == sorted(p.name for p in PROFILES)
        assert all(r.simulated and r.name.startswith("Simulated annotator —")
                   for r in annotators)
        people = {r.id for r in project.raters.all() if not r.is_model}
        per_image = {i: sum(a.rater_id in people for a, _ in project.annotations.with_polygons(i))
                     for i in ids}
        assert set(per_image.values()) == {3}
        # the simulated model predicts the set (clearly marked as simulated)
        # (the demo's other simulated model, simulated-model@1, predicts the whole mammograms)
        models = {r.label: r for r in project.raters.all() if r.is_model}
        assert set(models) == {"simulated-review-model@1", "simulated-model@1"}
        model = models["simulated-review-model@1"]
        assert model.simulated
        predicted = {a.image_id for a in project.annotations.all(rater_id=model.id)}
        pre = project.image_sets.members(project.image_sets.id_by_name(PRE_SET))
        assert predicted == set(ids) | set(pre)  # and the pre-annotated batch's crops
        # repeats: about 10 % of the annotations, all finished, by the group's annotators
        pairs = project.repeats.pairs(status=["submitted", "nothing_to_annotate"])
        group_ids = {r.id for r in annotators}
        assert 0.07 * 3 * len(ids) <= len(pairs) <= 0.13 * 3 * len(ids)
        assert all(a.rater_id in group_ids and b.round == -a.round for a, b in pairs)
        # the reviewer: accepts, rejections with reasons, expert reviews, comments, pins
        reviewer = project.raters.by_name(REVIEWER)
        assert reviewer is not None and reviewer.simulated
        decided = list(project.reviews.current_decisions().values())
        kinds = {d.decision for d in decided}
        assert kinds == {Decision.ACCEPT, Decision.REJECT, Decision.EXPERT_REVIEW}
        assert all(d.tags for d in decided if d.decision is Decision.REJECT)
        assert 2 <= sum(d.decision is Decision.EXPERT_REVIEW for d in decided) <= 6
        assert any(d.comment for d in decided if d.decision is Decision.REJECT)
        reviewed_images = {d.image_id for d in decided} & set(ids)  # not the workflow's
        assert 0.4 * len(ids) <= len(reviewed_images) < len(ids)  # part of the queue
        assert any(r.is_pin for i in ids for r in project.reviews.all(image_id=i))


def test_queue_and_review_eval_on_the_demo(demo_location, capsys, tmp_path) -> None:
    copy = demo_location
    assert main(["queue", str(copy), "--group", REVIEW_GROUP, "--method",
                 "image-sort"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert re.match(r"\d+ images ranked by image-sort", lines[0])
    ranks = [int(line.split()[0]) for line in lines[2:] if line.strip()]
    assert ranks == list(range(1, len(ranks) + 1)) and len(ranks) >= 40
    assert main(["queue", str(copy)]) == 0  # the default queue was cached by the build
    assert "0 computed" in capsys.readouterr().out
    assert main(["review-eval", str(copy), "--group", REVIEW_GROUP, "--k", "10",
                 "--model", "simulated-review-model@1"]) == 0
    table = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: [float(v) for v in line.split()[1:]]
            for line in table[2:] if line.strip()}
    assert set(rows) == {"image-sort", "box-sort", "box-score", "random", "model-disagreement"}
    assert all(not math.isnan(v) for values in rows.values() for v in values)
    # the reviewer followed the true disagreement: α-based ranking beats random, and so does
    # the simulated model's distance from the annotators' majority (docs/review.md)
    assert rows["image-sort"][2] > rows["random"][2]
    assert rows["model-disagreement"][2] > rows["random"][2]
    table_csv = tmp_path / "queue.csv"
    assert main(["queue", str(copy), "--group", REVIEW_GROUP, "--method",
                 "model-disagreement", "--model", "simulated-review-model@1",
                 "--csv", str(table_csv)]) == 0
    assert capsys.readouterr().out.startswith("46 images ranked by model-disagreement")
    # the method's order: the rows neither the low-agreement rule put first nor shown in
    # one of the demo's random audit slots (the audit slots of docs/review.md)
    from slicereview.app.review.audit import audit_settings
    from slicereview.engines.review.audit import members

    with table_csv.open(newline="", encoding="utf-8") as fh:
        queued = list(csv.DictReader(fh))
    with Project.open(copy) as project:
        audit = audit_settings(project)
    assert audit is not None
    audited = set(members([int(r["image_id"]) for r in queued], audit.share, audit.seed))
    scores = [float(r["score"]) for r in queued
              if not r["review_first"] and int(r["image_id"]) not in audited]
    assert len(scores) >= 30 and scores == sorted(scores, reverse=True)
    assert 0 < scores[0] <= 1


def test_the_demos_queue_has_audit_slots_and_a_live_estimate(demo_location, capsys) -> None:
    """One review slot in ten shows a random image; the simulated reviewer reviewed a seeded
    two thirds of the set, so the estimate has reviewed audit members."""
    from slicereview.app.review.audit import audit_settings
    from slicereview.demo.project import DEMO_AUDIT_SHARE

    with Project.open(demo_location) as project:
        assert audit_settings(project).share == DEMO_AUDIT_SHARE
    assert main(["audit", "show", str(demo_location), "--group", REVIEW_GROUP]) == 0
    out = capsys.readouterr().out
    assert "audit members" in out and "reviewed members" in out
    assert re.search(r"base rate \(audit, a random queue's P@k\): \d", out)
