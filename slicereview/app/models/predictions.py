"""One image's prediction stored as the model rater's finished annotation.

A prediction arrives as a label image (``uint8 (rows, cols)``: 0 background, 1 certain,
2 uncertain; the convention of :func:`slicereview.engines.prediction.label_image`). It is
outlined with the project's one mask-to-polygons conversion
(:func:`slicereview.engines.assist.outline.label_outlines`: certain polygons round label 1,
uncertain polygons round labels 1 and 2) and stored as the model rater's annotation of the
image in the formal phase, round 1: *submitted* when it has polygons, *nothing to annotate*
when the model found nothing. Every polygon carries its provenance, tool ``model`` and the
model's label (``model NAME@VERSION``). Storing a prediction again for the same image and model
replaces the one before, in one transaction.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> from slicereview.app.models.raters import model_rater
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image_id] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                        [NewImage(8, 8)])
>>> model = model_rater(project, "blob", "1")
>>> labels = np.zeros((8, 8), np.uint8); labels[2:6, 2:6] = 2; labels[3:5, 3:5] = 1
>>> ann = store_prediction(project, model, image_id, labels)
>>> str(ann.status), [(str(p.certainty), p.model) for p in project.polygons.of(ann.id)]
('submitted', [('uncertain', 'blob@1'), ('certain', 'blob@1')])
>>> str(store_prediction(project, model, image_id, np.zeros((8, 8), np.uint8)).status)
'nothing_to_annotate'
>>> project.close()
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from slicereview.model import Annotation, AnnotationStatus, Phase, Polygon, Rater, Tool
from slicereview.store import Project


def prediction_polygons(rater: Rater, labels: np.ndarray) -> list[Polygon]:
    """The polygons of a label image as a model's (tool ``model``, the rater's label)."""
    from slicereview.engines.assist.outline import label_outlines, model_polygons

    return [replace(p, tool=Tool.MODEL, model=rater.label)
            for p in model_polygons(label_outlines(labels))]


def check_labels(labels: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """``labels`` as ``uint8 (rows, cols)`` holding 0, 1 and 2 only; ``ValueError`` with one
    sentence otherwise."""
    lab = np.asarray(labels)
    if lab.shape != (rows, cols):
        raise ValueError(f"The prediction is {' × '.join(map(str, lab.shape))} pixels but the "
                         f"image is {rows} × {cols}.")
    if lab.size and (not np.issubdtype(lab.dtype, np.integer) or lab.min() < 0
                     or lab.max() > 2):
        raise ValueError("A prediction's label image holds 0 (background), 1 (certain) and "
                         "2 (uncertain) only.")
    return lab.astype(np.uint8, copy=False)


def store_prediction(project: Project, rater: Rater, image_id: int,
                     labels: np.ndarray) -> Annotation:
    """Store ``labels`` (``uint8 (rows, cols)``, 0/1/2) as model ``rater``'s finished
    annotation of image ``image_id`` (formal phase, round 1), replacing an earlier one.

    Returns the annotation as stored. ``ValueError`` for a rater that is not a model or a label
    image of another size than the image's (one sentence each); ``KeyError`` for an unknown
    image.
    """
    if not rater.is_model:
        raise ValueError(f"{rater.name} is a person: predictions are stored for a model "
                         f"rater only.")
    image = project.images.get(image_id)
    polygons = prediction_polygons(rater, check_labels(labels, image.rows, image.cols))
    with project.transaction():
        ann = project.annotations.for_image(rater.id, image_id, Phase.FORMAL, 1)
        assert ann is not None
        if polygons:
            project.polygons.replace(ann.id, polygons)
            project.annotations.set_status(ann.id, AnnotationStatus.SUBMITTED)
        else:
            project.polygons.replace(ann.id, [])
            project.annotations.set_status(ann.id, AnnotationStatus.NOTHING_TO_ANNOTATE)
    return project.annotations.get(ann.id)
