"""An ONNX model run on a project's images (both backends): every image's prediction is stored
as the card's model rater's annotation with the card's licence; Cancel keeps the images done;
a hostile model file stops the run before the first image in one sentence; an image the model
fails on is reported and the run goes on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.models.raters import model_counts
from slicereview.app.models.running import run_model
from slicereview.engines.inference import ModelError
from slicereview.engines.masks import rasterize
from slicereview.model import AnnotationStatus
from slicereview.store import Project
from tests import onnx_models


def _spots(rows: int, cols: int, spots: list[tuple[int, int]]) -> np.ndarray:
    img = np.full((rows, cols), 400, np.uint16)
    for r, c in spots:
        img[r - 6:r + 6, c - 6:c + 6] = 3600
    return img


@pytest.fixture
def project(location, tmp_path: Path):
    files = []
    for k, spots in enumerate([[(30, 40), (90, 120)], [(60, 60)], []]):
        path = tmp_path / f"m{k}.png"
        PILImage.fromarray(_spots(128, 160, spots)).save(path)
        files.append(path)
    project = Project.create(location("p.srproj"))
    import_paths(project, files)
    yield project
    project.close()


def test_the_models_predictions_are_stored_per_image(project) -> None:
    model = onnx_models.bright(level=0.5)
    card = onnx_models.card(name="spots", version="2", licence="MIT")
    seen: list[tuple[int, int]] = []
    report = run_model(project, model, card, progress=lambda d, t, _: seen.append((d, t)))
    assert (report.model, report.failed, report.cancelled) == ("spots@2", [], False)
    assert report.done == [im.case_id for im in project.images.all()]
    assert seen[-1][0] == seen[-1][1] and all(a <= b for (a, _), (b, _) in zip(
        seen, seen[1:], strict=False))  # progress only grows
    [row] = model_counts(project)
    assert (row.label, row.licence, row.images, row.submitted, row.empty) == (
        "spots@2", "MIT", 3, 2, 1)
    first = project.images.all()[0]
    ann = project.annotations.for_image(row.rater_id, first.id, create=False)
    labels = rasterize(project.polygons.of(ann.id), (first.rows, first.cols))
    truth = _spots(128, 160, [(30, 40), (90, 120)]) > 1000
    dice = 2 * np.sum((labels == 1) & truth) / ((labels == 1).sum() + truth.sum())
    assert dice > 0.9
    assert {p.model for p in project.polygons.of(ann.id)} == {"spots@2"}


def test_cancel_keeps_the_images_done(project) -> None:
    asked: list[int] = []

    def cancelled() -> bool:
        return len(asked) > 0

    second = project.images.all()[1].case_id

    def progress(done: int, total: int, what: str) -> None:
        if what == second:  # (the first image is stored, the second begins: stop now)
            asked.append(done)

    report = run_model(project, onnx_models.bright(), onnx_models.card(),
                       progress=progress, cancelled=cancelled)
    assert report.cancelled and report.done == [project.images.all()[0].case_id]
    [row] = model_counts(project)
    assert row.images == 1


def test_a_hostile_model_stops_before_the_first_image(project, tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00not onnx at all" * 100)
    with pytest.raises(ModelError, match="not an ONNX model"):
        run_model(project, bad, onnx_models.card())
    with pytest.raises(ModelError, match="rank"):
        run_model(project, onnx_models.rank3_input(), onnx_models.card())
    report = run_model(project, onnx_models.nan_output(), onnx_models.card(name="nan"))
    assert report.done == [] and len(report.failed) == 3
    assert all("NaN" in why for _, why in report.failed)
    assert all(a.status is not AnnotationStatus.SUBMITTED for a in project.annotations.all())
