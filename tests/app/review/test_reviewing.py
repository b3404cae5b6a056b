"""The reviewing job: features cache, queue, decisions, returned annotations, undo, evaluation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.annotating import add_polygon
from slicereview.app.review import queue as review_queue
from slicereview.app.review.commands import AcceptAll, AddPin, Decide
from slicereview.app.review.decisions import (
    REASON_NEEDED,
    accept_all,
    decide,
    pin,
    returned_annotations,
    start_revision,
)
from slicereview.app.review.queue import QueueSpec, compute_features, evaluate, queue, relevance
from slicereview.app.undo import CommandStack
from slicereview.model import Decision, NewImage, Polygon
from slicereview.store import Project


def square(x: float, y: float, size: float = 4.0) -> Polygon:
    return Polygon(np.array([[x, y], [x + size, y], [x + size, y + size], [x, y + size]]))


@pytest.fixture
def project(location, tmp_path: Path):
    """Four 16×16 images; annotators a, b (group G) and c. Image 1..3: a, b and c, with the
    disagreement growing with the image id; image 4: a only."""
    (tmp_path / "x.png").write_bytes(b"png")
    p = Project.create(location("p.srproj"))
    images = p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                                 [NewImage(16, 16, frame=k) for k in range(4)])
    raters = [p.raters.add(n, "annotator", "G" if n != "c" else None) for n in "abc"]
    p.raters.add("boss", "reviewer")
    with p.transaction():
        for k, image in enumerate(images):
            for r, rater in enumerate(raters if k < 3 else raters[:1]):
                ann = p.annotations.for_image(rater, image)
                p.polygons.replace(ann.id, [square(4 + r * k, 4)])
                p.annotations.set_status(ann.id, "submitted")
    yield p
    p.close()


def _boss(project: Project) -> int:
    rater = project.raters.by_name("boss")
    assert rater is not None
    return rater.id


def _ann(project: Project, rater: str, image: int) -> int:
    rater_id = project.raters.by_name(rater).id  # type: ignore[union-attr]
    found = project.annotations.for_image(rater_id, image, create=False)
    assert found is not None
    return found.id


def test_features_cached_and_one_edit_recomputes_one_image(project: Project):
    first = compute_features(project, QueueSpec())
    assert first.computed == (1, 2, 3) and first.not_enough == (4,)
    again = compute_features(project, QueueSpec())
    assert again.computed == () and again.features.keys() == first.features.keys()
    assert again.features[2].to_dict() == first.features[2].to_dict()
    add_polygon(project, _ann(project, "b", 2), square(10, 10, 2))  # reopens it ...
    project.annotations.set_status(_ann(project, "b", 2), "submitted")  # ... submit again
    assert compute_features(project, QueueSpec()).computed == (2,)
    assert compute_features(project, QueueSpec()).computed == ()


def test_computations_are_counted_by_the_engine(project: Project, monkeypatch):
    calls = []
    real = review_queue.features_of_images

    def counting(tasks, **kw):
        tasks = list(tasks)
        calls.extend(j.image_id for j in tasks)
        return real(tasks, **kw)

    monkeypatch.setattr(review_queue, "features_of_images", counting)
    compute_features(project, QueueSpec())
    compute_features(project, QueueSpec(level="strict"))  # another cache entry
    compute_features(project, QueueSpec())
    assert calls == [1, 2, 3, 1, 2, 3]


def test_selection_by_group_and_annotators(project: Project):
    group = compute_features(project, QueueSpec(group="G"))
    assert sorted(group.features) == [1, 2, 3] and all(len(a) == 2
                                                       for a in group.annotations.values())
    ids = tuple(project.raters.by_name(n).id for n in "ac")  # type: ignore[union-attr]
    assert len(compute_features(project, QueueSpec(annotators=ids)).annotations[1]) == 2
    with pytest.raises(ValueError, match="no annotators in group"):
        compute_features(project, QueueSpec(group="nobody"))
    with pytest.raises(ValueError, match="not both"):
        QueueSpec(group="G", annotators=(1, 2))


def test_nothing_to_annotate_counts_as_an_empty_mask(project: Project):
    ann = project.annotations.for_image(project.raters.by_name("b").id, 4)  # type: ignore[union-attr]
    project.annotations.set_status(ann.id, "nothing_to_annotate")
    result = compute_features(project, QueueSpec())
    assert 4 in result.features and result.not_enough == ()
    assert result.features[4].strict_alpha < 1.0


def test_queue_rows_rank_explain_and_status(project: Project):
    rows = queue(project, QueueSpec(method="image-sort"))
    assert [r.rank for r in rows] == [1, 2, 3]
    assert [r.image_id for r in rows] == [3, 2, 1]  # most disagreement first
    assert rows[0].score == rows[0].features.strict_alpha
    assert rows[0].explain.startswith("image 3: rank 1 of 3 by image-sort")
    assert {r.status for r in rows} == {"not reviewed"}
    assert math.isnan(rows[0].features.intra_strict)  # no repeats in the schema
    decide(project, _boss(project), _ann(project, "a", 3), "accept")
    by_image = {r.image_id: r.status for r in queue(project, QueueSpec(method="image-sort"))}
    assert by_image[3] == "partly reviewed"
    accept_all(project, _boss(project), 3)
    by_image = {r.image_id: r.status for r in queue(project, QueueSpec(method="image-sort"))}
    assert by_image[3] == "reviewed"
    row = rows[0].as_dict()
    assert row["case_id"] == "C000003" and "wbbox_per_pixel" in row and "n_boxes" in row


def test_reject_needs_a_reason(project: Project):
    ann = _ann(project, "a", 1)
    for tags, text in (((), ""), ((" ",), "  ")):
        with pytest.raises(ValueError, match=REASON_NEEDED):
            decide(project, _boss(project), ann, "reject", tags, text)
    decide(project, _boss(project), ann, "reject", text="outline cuts the lesion")
    decide(project, _boss(project), _ann(project, "b", 1), "reject", ["missed finding"])
    assert len(project.reviews.current_decisions()) == 2


def test_decision_rules(project: Project):
    in_progress = project.annotations.for_image(project.raters.by_name("c").id, 4)  # type: ignore
    with pytest.raises(ValueError, match="still in progress"):
        decide(project, _boss(project), in_progress.id, "accept")
    a = project.raters.by_name("a").id  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="own annotation"):
        decide(project, a, _ann(project, "a", 1), "accept")
    compute_features(project, QueueSpec())
    rid = decide(project, _boss(project), _ann(project, "a", 1), "expert_review")
    review = project.reviews.get(rid)
    assert review.decision is Decision.EXPERT_REVIEW and set(review.alphas) == {
        "strict_alpha", "relaxed_alpha"}


def test_pins(project: Project):
    rid = pin(project, _boss(project), 1, box=(8, 9, 2, 3), text="here", tags=["calc"])
    assert project.reviews.get(rid).pin_at == (2.0, 3.0, 8.0, 9.0)
    point = project.reviews.get(pin(project, _boss(project), 1, point=(1.5, 2), tags=["calc"]))
    assert (point.pin_kind, point.pin_at, point.decision) == ("point", (1.5, 2.0), None)
    with pytest.raises(ValueError, match="exactly one"):
        pin(project, _boss(project), 1, text="x")
    with pytest.raises(ValueError, match="comment"):
        pin(project, _boss(project), 1, point=(1, 2))


def test_rejected_annotation_returns_and_revision_copies_polygons(project: Project):
    a = project.raters.by_name("a").id  # type: ignore[union-attr]
    ann = _ann(project, "a", 2)
    assert returned_annotations(project, a) == []
    with pytest.raises(ValueError, match="Only a rejected"):
        start_revision(project, ann)
    decide(project, _boss(project), ann, "reject", ["extra region"], "too big")
    [back] = returned_annotations(project, a)
    assert back.annotation.id == ann and back.decision.tags == ("extra region",)
    assert back.revision_id is None
    revision = start_revision(project, ann)
    assert start_revision(project, ann) == revision  # idempotent
    new = project.annotations.get(revision)
    assert (new.round, new.phase, str(new.status)) == (2, project.annotations.get(ann).phase,
                                                       "in_progress")
    old_polys, new_polys = project.polygons.of(ann), project.polygons.of(revision)
    assert [p.id for p in new_polys] != [p.id for p in old_polys]
    assert all(np.array_equal(o.vertices, n.vertices) for o, n in zip(old_polys, new_polys,
                                                                        strict=True))
    assert returned_annotations(project, a)[0].revision_id == revision
    project.annotations.set_status(revision, "submitted")
    assert returned_annotations(project, a) == []
    # the queue now takes round 2 for annotator a (latest finished round), recomputing image 2
    result = compute_features(project, QueueSpec())
    assert revision in result.annotations[2] and ann not in result.annotations[2]


def test_undo_redo_of_review_commands(project: Project):
    stack = CommandStack()
    ann = _ann(project, "a", 1)
    stack.push(Decide(project, _boss(project), ann, "accept"))
    stack.push(Decide(project, _boss(project), ann, "reject", ("missed finding",)))
    assert project.reviews.current_decisions()[ann].decision is Decision.REJECT
    rejected_id = project.reviews.current_decisions()[ann].id
    stack.undo()
    assert project.reviews.current_decisions()[ann].decision is Decision.ACCEPT
    stack.redo()
    assert project.reviews.current_decisions()[ann].id == rejected_id
    assert not stack.push(Decide(project, _boss(project), ann, "reject"))  # no reason
    assert isinstance(stack.error, ValueError)
    assert len(stack.done) == 2  # the refused decision is not on the stack
    stack.push(AddPin(project, _boss(project), 1, note="see", point=(3, 3)))
    stack.push(AcceptAll(project, _boss(project), 2))
    assert len(project.reviews.all()) == 2 + 1 + 3
    stack.undo(), stack.undo()
    assert len(project.reviews.all()) == 2
    assert stack.done[-1].changed == ("review", 1)


def test_relevance_and_evaluate(project: Project):
    boss = _boss(project)
    decide(project, boss, _ann(project, "a", 1), "expert_review")
    pin(project, boss, 2, point=(1, 1), text="check")
    result = compute_features(project, QueueSpec())
    grades = relevance(project, result)
    assert grades[1] == 3 and grades[2] == 2
    assert grades[3] == (1 if result.features[3].strict_alpha <= 0.667 else 0)
    ev = evaluate(project, QueueSpec(), ks=[1, 3])
    assert set(ev.rankings) == {"image-sort", "box-sort", "box-score", "random"}
    assert ev.ks == (1, 3) and all(len(v) == 2 for v in ev.ndcg.values())


@pytest.mark.slow  # 4 s
def test_pool_and_inline_agree(project: Project):
    inline = compute_features(project, QueueSpec(level="strict"), workers=1)
    project.db.execute("DELETE FROM review_features")
    pooled = compute_features(project, QueueSpec(level="strict"), workers=2)
    assert {i: f.to_dict() for i, f in inline.features.items()} == {
        i: f.to_dict() for i, f in pooled.features.items()}


def test_cancel_keeps_finished_work(project: Project):
    seen = []
    result = compute_features(project, QueueSpec(), progress=lambda d, t: seen.append(d),
                              cancelled=lambda: len(seen) >= 1)
    assert result.cancelled and result.computed == (1,)
    assert compute_features(project, QueueSpec()).computed == (2, 3)
