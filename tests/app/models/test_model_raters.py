"""Model raters on both backends: a model is a rater of kind *model* with a name and a version,
its predictions are stored as its finished annotations with the model's provenance, and no
count of people includes it (annotators, the report's α and per-annotator tables, the review
queue, batches, people commands)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app import annotating
from slicereview.app.models.predictions import store_prediction
from slicereview.app.models.raters import find_model, model_rater, models, people
from slicereview.app.people import add_person, person
from slicereview.app.report.agreement import inter_rater, selections
from slicereview.app.report.owner_report import collect
from slicereview.app.review.queue import QueueSpec, selection
from slicereview.model import AnnotationStatus, NewImage, Polygon, RaterKind, Role, Tool
from slicereview.store import Project
from slicereview.store.copying import copy_project

SIZE = 32


def _square(r0: int, c0: int, r1: int, c1: int) -> Polygon:
    return Polygon(np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1]], float))


@pytest.fixture
def project(location, tmp_path: Path):
    project = Project.create(location("p.srproj"))
    ids = []
    for k in range(3):
        path = tmp_path / f"case{k}.png"
        PILImage.fromarray(np.full((SIZE, SIZE), 40 * k, np.uint8)).save(path)
        ids += project.images.add_source(path, f"{k}" * 64, "png", [NewImage(SIZE, SIZE)])
    yield project, ids
    project.close()


def test_a_model_rater_has_kind_version_and_card_and_survives_reopen_and_copy(
        project, location, tmp_path: Path) -> None:
    proj, _ = project
    model = model_rater(proj, "bac-unet", "1.2", card={"licence": "MIT", "extra": 1})
    assert (model.kind, model.version, model.label, model.role) == (
        RaterKind.MODEL, "1.2", "bac-unet@1.2", Role.ANNOTATOR)
    assert model.card == {"licence": "MIT"}  # (only what the project keeps)
    assert model_rater(proj, "bac-unet", "1.2").id == model.id  # get, not a second one
    other = model_rater(proj, "bac-unet", "2.0")  # two versions are two raters
    assert other.id != model.id and other.name == "bac-unet"
    with pytest.raises(LookupError, match="several versions"):
        find_model(proj, "bac-unet")
    assert find_model(proj, "bac-unet@2.0").id == other.id
    add_person(proj, "ann", Role.ANNOTATOR)
    with pytest.raises(ValueError, match="is a person of this project"):
        model_rater(proj, "ann")
    with pytest.raises(ValueError, match="is a model of this project"):
        add_person(proj, "bac-unet@1.2", Role.ANNOTATOR)
    with pytest.raises(ValueError, match="it is a model"):
        person(proj, "bac-unet@1.2")
    assert [r.name for r in people(proj.raters.all())] == ["ann"]
    copy = tmp_path / "copy.srproj"
    copy_project(proj.location, copy)
    with Project.open(copy) as copied:
        assert [(r.label, r.kind, r.card) for r in models(copied)] == [
            ("bac-unet@1.2", RaterKind.MODEL, {"licence": "MIT"}),
            ("bac-unet@2.0", RaterKind.MODEL, {})]
        assert copied.raters.get(model.id) == model


def test_a_prediction_is_the_models_finished_annotation_with_provenance(project) -> None:
    proj, ids = project
    model = model_rater(proj, "blob", "3")
    labels = np.zeros((SIZE, SIZE), np.uint8)
    labels[4:20, 4:20] = 2
    labels[8:16, 8:16] = 1
    ann = store_prediction(proj, model, ids[0], labels)
    assert (ann.status, ann.rater_id, str(ann.phase), ann.round) == (
        AnnotationStatus.SUBMITTED, model.id, "formal", 1)
    stored = proj.polygons.of(ann.id)
    assert [(str(p.certainty), p.tool, p.model, p.edited) for p in stored] == [
        ("uncertain", Tool.MODEL, "blob@3", False), ("certain", Tool.MODEL, "blob@3", False)]
    assert np.array_equal(annotating.label_image(proj, ann.id), labels)  # exact outline
    again = store_prediction(proj, model, ids[0], (labels == 1).astype(np.uint8))
    assert again.id == ann.id and len(proj.polygons.of(ann.id)) == 1  # replaced
    empty = store_prediction(proj, model, ids[1], np.zeros((SIZE, SIZE), np.uint8))
    assert empty.status is AnnotationStatus.NOTHING_TO_ANNOTATE
    with pytest.raises(ValueError, match="the image is 32 × 32"):
        store_prediction(proj, model, ids[0], np.zeros((8, 8), np.uint8))
    ann_id = add_person(proj, "ann", Role.ANNOTATOR)
    with pytest.raises(ValueError, match="is a person"):
        store_prediction(proj, proj.raters.get(ann_id), ids[0], labels)


def test_a_model_is_never_counted_as_a_person(project) -> None:
    proj, ids = project
    people_ids = [annotating.add_annotator(proj, n) for n in ("ann", "bob")]
    for k, rater in enumerate(people_ids):
        for image in ids[:2]:
            ann = annotating.start(proj, rater, image)
            annotating.add_polygon(proj, ann.id, _square(4, 4, 16 + 2 * k, 16))
            annotating.finish(proj, ann.id, "submitted")
    model = model_rater(proj, "blob", "1")
    labels = np.zeros((SIZE, SIZE), np.uint8)
    labels[20:30, 20:30] = 1  # far from the people's: would drag α down if counted
    for image in ids:
        store_prediction(proj, model, image, labels)

    assert [r.name for r in annotating.annotators(proj)] == ["ann", "bob"]
    assert all(len(s) == 2 and model.id not in {a.rater_id for a in s}
               for s in selections(proj))
    agreement = inter_rater(proj)
    assert agreement.images == 2 and all(row.annotators == 2 for row in agreement.per_image)
    assert min(agreement.image_alpha["strict"]) > 0.8  # the people agree; the model is apart
    assert all(model.id not in pair for pair in agreement.pairwise)
    queue = selection(proj, QueueSpec(phase="formal"))
    assert sorted(queue) == ids[:2]  # the model's third image alone is not a people's image
    assert all(model.id not in {a.rater_id for a in anns} for anns in queue.values())
    report = collect(proj)
    assert [row["rater"] for row in report.quality] == ["ann", "bob"]
    assert sum(row.annotations for row in report.acceptance) == 4
    assert annotating.batch_images(proj, people_ids[0], "formal") == ids  # (no batch: all)
    # the model's work is still there, for exports and the model's own views
    assert len(proj.annotations.all(rater_id=model.id, status="submitted")) == 3
