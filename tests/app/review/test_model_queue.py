"""The model in the review queue and on a review image (slicereview.app.review.model_view):
model-disagreement ranks by 1 − Dice(model, majority), an image the model did not predict
last; the method needs a model; evaluate grades it only with one; the model against majority,
STAPLE and gold with the boxes only it or only the people found; the CLI."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.models.raters import model_rater
from slicereview.app.qa.workflow import mark_gold
from slicereview.app.review.decisions import decide
from slicereview.app.review.model_view import model_disagreements, model_on_image
from slicereview.app.review.queue import QueueSpec, evaluate, queue
from slicereview.cli import main
from slicereview.engines.agreement.overlap import dice
from slicereview.engines.masks import rasterize
from slicereview.model import NewImage, Polygon
from slicereview.store import Project


def square(x: float, y: float, size: float = 8.0) -> Polygon:
    return Polygon(np.array([[x, y], [x + size, y], [x + size, y + size], [x, y + size]]))


def _submit(project, rater, image, polygons):
    ann = project.annotations.for_image(rater, image)
    project.polygons.replace(ann.id, polygons)
    project.annotations.set_status(ann.id, "submitted" if polygons else "nothing_to_annotate")
    return ann.id


@pytest.fixture
def project(location, tmp_path: Path):
    """Five 32×32 images; annotators a, b, c agree (a square at 4, 4); the model drifts
    further from them image by image (0, 2, 4, 6 px), predicts nothing on image 5, and on
    image 4 also marks a spot nobody marked; c marks a spot on image 2 the model missed."""
    (tmp_path / "x.png").write_bytes(b"png")
    p = Project.create(location())
    images = p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                                 [NewImage(32, 32, frame=k) for k in range(5)])
    people = [p.raters.add(n) for n in "abc"]
    model = model_rater(p, "net", "1").id
    with p.transaction():
        for k, image in enumerate(images):
            for r in people:
                extra = [square(24, 24, 4)] if (k == 1 and r == people[2]) else []
                _submit(p, r, image, [square(4, 4), *extra])
            if k < 4:
                extra = [square(22, 2, 4)] if k == 3 else []
                _submit(p, model, image, [square(4 + 2 * k, 4), *extra])
    yield p, images, people, model
    p.close()


def test_model_disagreement_ranks_by_the_distance_from_the_majority(project):
    p, images, people, model = project
    spec = QueueSpec(method="model-disagreement", model=model, annotators=tuple(people))
    rows = queue(p, spec)
    assert [r.image_id for r in rows] == [images[3], images[2], images[1], images[0],
                                          images[4]]
    majority = rasterize([square(4, 4)], (32, 32)) > 0
    predicted = rasterize([square(10, 4), square(22, 2, 4)], (32, 32)) > 0
    assert rows[0].score == pytest.approx(1 - dice(predicted, majority))
    assert rows[3].score == pytest.approx(0.0) and math.isnan(rows[4].score)
    assert "1 − Dice(model, majority)" in rows[0].explain
    with pytest.raises(ValueError, match="needs a model"):
        QueueSpec(method="model-disagreement")
    # the model is never one of the annotators compared
    assert all(len(r.annotation_ids) == 3 for r in rows)
    far = model_disagreements(p, {images[4]: rows[4].annotation_ids}, model)
    assert math.isnan(far[images[4]])


def test_evaluate_grades_the_fifth_method_only_with_a_model(project):
    p, images, people, model = project
    boss = p.raters.add("boss", "reviewer")
    for image in images[2:4]:  # the reviewer sent the images the model disagrees with
        ann = p.annotations.all(image_id=image, rater_id=people[0])[0]
        decide(p, boss, ann.id, "expert_review", (), "look again")
    plain = evaluate(p, QueueSpec(annotators=tuple(people)), ks=[1, 2])
    assert "model-disagreement" not in plain.precision
    ev = evaluate(p, QueueSpec(annotators=tuple(people), model=model), ks=[1, 2])
    assert list(ev.precision["model-disagreement"]) == [1.0, 1.0]
    assert list(ev.recall["model-disagreement"]) == [0.5, 1.0]


def test_the_model_on_one_image_against_majority_staple_gold_and_per_box(project):
    p, images, people, model = project
    anns = [a.id for a in p.annotations.all(image_id=images[1]) if a.rater_id in people]
    gold = _submit(p, p.raters.add("expert", "reviewer"), images[1], [square(6, 4)])
    mark_gold(p, gold)
    view = model_on_image(p, images[1], anns, model)
    assert view.label == "net@1" and len(view.polygons) == 1
    assert view.majority.dice == pytest.approx(2 * 6 * 8 / 128)  # (c's spot: not a majority)
    assert view.gold is not None and view.gold.dice == 1.0 and view.gold.hd95 == 0.0
    assert view.majority.sensitivity == pytest.approx(6 / 8)
    assert view.people_only == [(24, 24, 28, 28)] and view.model_only == []
    spot = model_on_image(p, images[3], anns, model)
    assert spot.model_only == [(2, 22, 6, 26)]
    assert model_on_image(p, images[4], anns, model) is None  # no prediction


def test_the_cli_queue_and_review_eval(project, capsys):
    p, images, people, model = project
    where = str(p.location)
    assert main(["queue", where, "--method", "model-disagreement", "--model", "net@1",
                 "--annotators", "a,b,c"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("5 images ranked by model-disagreement")
    assert "model_disagreement" in out[1]
    assert out[2].split()[1] == p.images.get(images[3]).case_id
    assert main(["queue", where, "--method", "model-disagreement", "--annotators",
                 "a,b,c"]) == 0  # (the project's only model)
    assert "model_disagreement" in capsys.readouterr().out
    model_rater(p, "net", "2")
    assert main(["queue", where, "--method", "model-disagreement", "--annotators",
                 "a,b,c"]) != 0  # (two models: name one)
    assert "needs a model: name it with --model" in capsys.readouterr().err
