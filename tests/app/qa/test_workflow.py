"""The QA workflow: batches per phase, gold (expert annotation or imported PNG mask), scores
against gold, the pre-filter and the owner's decision, the low-agreement threshold rule,
guideline versions recorded, the upgrade of a version 2 file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.annotating import finish
from slicereview.app.qa.low_agreement import apply_low_agreement, latest_finished, strict_alpha
from slicereview.app.qa.workflow import (
    OVERRIDE_NEEDS_REASON,
    batch_annotators,
    decide,
    define_batch,
    gold_labels,
    import_gold_mask,
    mark_gold,
    may_start,
    prefilter,
    score_pending,
    work_images,
)
from slicereview.engines.agreement import mask_alpha
from slicereview.model import NewImage, Polygon
from slicereview.store import Project
from slicereview.store.schema import _V1, _V2, APPLICATION_ID


def rect(x: float, y: float, w: float, h: float, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float), certainty)


def annotate(project: Project, rater: int, image: int, polygons: list[Polygon],
             phase: str = "formal") -> int:
    ann = project.annotations.for_image(rater, image, phase)
    project.polygons.replace(ann.id, polygons)
    finish(project, ann.id, "submitted")
    return ann.id


@pytest.fixture
def project(location, tmp_path: Path):
    """Real pixels: skimage's camera image saved as PNG; 4 frames of 20 × 20 described on it."""
    from skimage import data

    png = tmp_path / "camera.png"
    PILImage.fromarray(data.camera()).save(png)
    p = Project.create(location("p.srproj"))
    p.images.add_source(png, "0" * 64, "png", [NewImage(20, 20, frame=k) for k in range(4)])
    p.raters.add("owner", "owner")
    p.raters.add("expert", "reviewer")
    for name, group in (("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")):
        p.raters.add(name, "annotator", group)
    yield p
    p.close()


def rid(project: Project, name: str) -> int:
    rater = project.raters.by_name(name)
    assert rater is not None
    return rater.id


def test_batches_groups_repeat_onboarding_and_skip_pilot(project: Project) -> None:
    on_a = define_batch(project, "onboarding A", "onboarding", [1, 2], groups=["A"])
    on_b = define_batch(project, "onboarding B", "onboarding", [1, 2], groups=["B"])
    define_batch(project, "pilot A", "pilot", [3], groups=["A"])
    formal = define_batch(project, "formal", "formal", [3, 4], groups=["A", "B"])
    assert batch_annotators(project, on_a) == [rid(project, "a1"), rid(project, "a2")]
    assert batch_annotators(project, on_b) == [rid(project, "b1"), rid(project, "b2")]
    assert work_images(project, rid(project, "b1"), formal) == [3, 4]
    assert work_images(project, rid(project, "b1"), on_a) == []
    # group B skips the pilot
    assert [b.name for b in project.workflow.batches("pilot")] == ["pilot A"]
    with pytest.raises(ValueError, match="needs images"):
        define_batch(project, "empty", "formal", [])
    with pytest.raises(project.db.IntegrityError):
        define_batch(project, "formal", "formal", [1])
    # nothing half-made by the refused batch
    assert project.image_sets.id_by_name("formal") is not None
    assert len(project.workflow.batches()) == 4


def test_gold_from_expert_and_png_and_scores(project: Project, tmp_path: Path) -> None:
    batch = define_batch(project, "onboarding A", "onboarding", [1, 2], groups=["A"],
                         min_dice=0.6)
    expert, a1, a2 = rid(project, "expert"), rid(project, "a1"), rid(project, "a2")
    gold1 = annotate(project, expert, 1, [rect(2, 2, 10, 10)], "onboarding")
    mark_gold(project, gold1)
    mask = np.zeros((20, 20), np.uint8)
    mask[5:15, 5:15] = 255                                   # a 0/255 mask: certain
    PILImage.fromarray(mask).save(tmp_path / "gold2.png")
    import_gold_mask(project, 2, tmp_path / "gold2.png")
    assert np.array_equal(gold_labels(project, 2), (mask == 255).astype(np.uint8))
    small = np.zeros((5, 5), np.uint8)
    PILImage.fromarray(small).save(tmp_path / "small.png")
    with pytest.raises(ValueError, match="5 × 5 but the image is 20 × 20"):
        import_gold_mask(project, 2, tmp_path / "small.png")

    # a1 good: 10×10 at (3, 2) → overlap 9 × 10 = 90; Dice = 2·90 / 200 = 0.9
    w1 = annotate(project, a1, 1, [rect(3, 2, 10, 10)], "onboarding")
    # a1 on image 2: exactly the gold → 1.0
    w2 = annotate(project, a1, 2, [rect(5, 5, 10, 10)], "onboarding")
    # a2 poor: 4×4 inside the gold → Dice = 2·16 / (100 + 16) ; uncertain → strict Dice 0
    w3 = annotate(project, a2, 1, [rect(2, 2, 4, 4, "uncertain")], "onboarding")
    scores = project.workflow.gold_scores()
    assert set(scores) == {w1, w2, w3}
    assert scores[w1]["dice"] == pytest.approx(0.9)
    assert scores[w2]["dice"] == 1.0 and scores[w2]["strict_alpha"] == 1.0
    assert scores[w3]["dice"] == pytest.approx(32 / 116)
    assert scores[w3]["dice_strict"] == 0.0
    g = gold_labels(project, 1) == 1
    a = np.zeros((20, 20), bool)
    a[2:12, 3:13] = True
    assert scores[w1]["strict_alpha"] == pytest.approx(mask_alpha(np.stack([g, a])))
    box = np.stack([g, a])[:, 2:12, 2:13]                      # the union's bounding box
    assert scores[w1]["strict_box_alpha"] == pytest.approx(mask_alpha(box))
    assert gold1 not in scores                                 # the gold is never scored
    # the pre-filter: a1 mean 0.95 passes, a2 0.276 does not
    rows = {r.rater_id: r for r in prefilter(project, batch)}
    assert rows[a1].passes and rows[a1].mean_dice == pytest.approx(0.95)
    assert rows[a2].passes is False and rows[a2].scored == 1
    # cache is refilled when lost
    project.db.execute("DELETE FROM gold_scores")
    assert score_pending(project) == 3


def test_owner_confirms_or_overrides_with_reason(project: Project) -> None:
    batch = define_batch(project, "onboarding A", "onboarding", [1], groups=["A"],
                         min_dice=0.6)
    expert, a1, a2, owner = (rid(project, n) for n in ("expert", "a1", "a2", "owner"))
    mark_gold(project, annotate(project, expert, 1, [rect(2, 2, 10, 10)], "onboarding"))
    annotate(project, a1, 1, [rect(2, 2, 10, 10)], "onboarding")
    annotate(project, a2, 1, [rect(14, 14, 4, 4)], "onboarding")
    assert not may_start(project, a1, "formal")               # onboarded, no decision yet
    assert may_start(project, rid(project, "b1"), "formal")   # never onboarded: not held back
    with pytest.raises(PermissionError):
        decide(project, batch, a1, expert)
    decide(project, batch, a1, owner)                         # confirm: go on
    with pytest.raises(ValueError, match=OVERRIDE_NEEDS_REASON):
        decide(project, batch, a2, owner, go_on=True)
    decide(project, batch, a2, owner, go_on=True, reason="missed only a tiny lesion")
    assert may_start(project, a1, "pilot") and may_start(project, a2, "formal")
    q = project.workflow.qualifications(rater_id=a2)[-1]
    assert (q.go_on, q.prefilter, q.decided_by, q.reason) == (
        True, False, owner, "missed only a tiny lesion")
    assert q.mean_dice == 0.0 and q.created_at.endswith("Z")
    decide(project, batch, a2, owner, go_on=False, reason="")  # back to the pre-filter
    assert not may_start(project, a2, "formal")


def test_low_agreement_assigns_up_to_max_then_review(project: Project) -> None:
    a1, a2, b1, b2 = (rid(project, n) for n in ("a1", "a2", "b1", "b2"))
    batch = define_batch(project, "formal A", "formal", [1, 2], groups=["A"],
                         alpha_threshold=0.667, max_annotators=3)
    annotate(project, a1, 1, [rect(2, 2, 8, 8)])
    annotate(project, a2, 1, [rect(8, 8, 8, 8)])        # low agreement on image 1
    annotate(project, a1, 2, [rect(2, 2, 8, 8)])
    annotate(project, a2, 2, [rect(2, 2, 8, 8)])        # perfect on image 2
    flags = project.workflow.image_flags()
    assert [(f.image_id, f.kind, f.rater_id) for f in flags] == [(1, "assign", b1)]
    alpha = strict_alpha(project, latest_finished(project, 1, "formal"))
    assert f"{alpha:.3f} < threshold 0.667 among 2 annotators" in flags[0].reason
    assert work_images(project, b1, batch) == [1] and work_images(project, b2, batch) == []
    assert apply_low_agreement(project, batch) == []     # b1 has not finished: nothing new
    annotate(project, b1, 1, [rect(12, 2, 6, 6)])        # still low, now 3 = max
    flags = project.workflow.image_flags()
    assert [(f.image_id, f.kind) for f in flags] == [(1, "assign"), (1, "review")]
    assert "maximum of 3 annotators" in flags[1].reason
    assert apply_low_agreement(project, batch) == []     # idempotent


def test_low_agreement_review_action(project: Project) -> None:
    a1, a2 = rid(project, "a1"), rid(project, "a2")
    define_batch(project, "formal A", "formal", [1], groups=["A"], alpha_threshold=0.9,
                 low_action="review")
    annotate(project, a1, 1, [rect(2, 2, 8, 8)])
    annotate(project, a2, 1, [rect(3, 2, 8, 8)])
    [flag] = project.workflow.image_flags()
    assert flag.kind == "review" and "sends low agreement to review" in flag.reason


def test_guideline_version_recorded(project: Project) -> None:
    a1 = rid(project, "a1")
    first = project.annotations.for_image(a1, 1)
    project.guidelines.add("v1")
    second = project.annotations.for_image(a1, 2)
    assert project.guidelines.version_of(annotation_id=first.id) is None
    assert project.guidelines.version_of(annotation_id=second.id) == 1
    review = project.reviews.add(2, rid(project, "expert"), comment="ok")
    assert project.guidelines.version_of(review_id=review) == 1


@pytest.mark.file_only("a format-2 file made with raw SQLite; test_server.py migrates a server")
def test_version_2_file_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "old.srproj"
    conn = sqlite3.connect(path)
    conn.executescript(_V1)
    conn.executescript(_V2)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 2")
    conn.execute("INSERT INTO raters (name, role) VALUES ('ann', 'annotator')")
    conn.commit()
    conn.close()
    with Project.open(path) as p:
        assert p.raters.by_name("ann") is not None
        assert len(p.meta("project_uuid") or "") == 32
        assert p.workflow.batches() == [] and p.workflow.gold_images() == []
