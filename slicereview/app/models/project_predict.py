"""A version of the project model predicts images: what it found, how unsure it is, stored.

:func:`predict_images` reads each image (:mod:`.pixels`), predicts it tiled and restricted to
the tissue (:func:`slicereview.engines.learning.predict`), and stores the label image as a
finished annotation of the version's model rater ``project@vN`` (certain polygons where
``p ≥ certain``, uncertain ones where ``uncertain ≤ p < certain``), so that the review
queue, the report, pre-annotation and exports see it as they see any model. One image at a
time is held.

What it says of each image (:class:`ImagePrediction`), computed from the probability map
over the tissue (every pixel without a tissue mask):

* ``region_px`` — pixels with ``p ≥ certain``;
* ``uncertain_fraction`` — the share of the tissue in the uncertain band
  ``uncertain ≤ p < certain``;
* ``entropy`` — the mean binary entropy ``-(p log2 p + (1-p) log2 (1-p))`` in bits (0:
  sure everywhere; 1: p = 0.5 everywhere).

These are the *model uncertainty* of an image, which active selection orders by. They are
computed before the smallest regions are left out of what is stored (the owner's rule,
:func:`~.project_model.set_min_region`: regions under N pixels are not pre-annotated).

Which images by default (:func:`default_images`): every image that is not in the version's
training set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.app.models.pixels import pixel_reader
from slicereview.app.models.project_model import (
    CancelCheck,
    Progress,
    ProjectModelError,
    load_model,
    min_region,
)
from slicereview.app.models.raters import model_rater
from slicereview.model import Rater
from slicereview.store import Project

#: The project model's rater name; version N is the rater ``project@vN``.
MODEL_NAME = "project"
DESCRIPTION = ("The project model: pixel features and a random forest trained on this "
               "project's accepted annotations (docs/models.md).")


@dataclass(frozen=True)
class ImagePrediction:
    """What a version found on one image (see the module text); ``annotation_id``: the model
    rater's stored annotation (``None`` when not stored)."""

    image_id: int
    case_id: str
    region_px: int
    uncertain_fraction: float
    entropy: float
    annotation_id: int | None = None


def uncertainty(probability: np.ndarray, tissue: np.ndarray | None, certain: float,
                uncertain: float) -> tuple[int, float, float]:
    """``(region_px, uncertain_fraction, entropy)`` of a probability map (module text).

    >>> p = np.array([[0.0, 0.5], [1.0, 0.9]], np.float32)
    >>> uncertainty(p, None, 0.6, 0.4)
    (2, 0.25, 0.367...)
    """
    p = np.asarray(probability, np.float64)
    inside = p if tissue is None else p[np.asarray(tissue, bool)]
    if inside.size == 0:
        return 0, 0.0, 0.0
    region = int(np.count_nonzero(inside >= certain))
    band = float(np.count_nonzero((inside >= uncertain) & (inside < certain)) / inside.size)
    q = np.clip(inside, 1e-12, 1 - 1e-12)
    entropy = float(np.mean(-(q * np.log2(q) + (1 - q) * np.log2(1 - q))))
    return region, band, round(entropy, 12) if entropy > 1e-9 else 0.0


def drop_small(labels: np.ndarray, pixels: int) -> np.ndarray:
    """The label image without the regions (8-connected, certain and uncertain together)
    smaller than ``pixels``; ``pixels`` 0 or 1 keeps every region.

    >>> lab = np.zeros((6, 6), np.uint8); lab[0, 0] = 1; lab[2:5, 2:5] = 2; lab[3, 3] = 1
    >>> drop_small(lab, 2)[0, 0], int(drop_small(lab, 2).sum())
    (np.uint8(0), 17)
    """
    if pixels <= 1 or not labels.any():
        return labels
    from scipy import ndimage

    regions, n = ndimage.label(labels > 0, structure=np.ones((3, 3), bool))
    sizes = np.bincount(regions.ravel(), minlength=n + 1)
    small = sizes < pixels
    small[0] = False
    out = labels.copy()
    out[small[regions]] = 0
    return out


def default_images(project: Project, version: int | None = None) -> list[int]:
    """The images a version predicts by default: all but its training images."""
    found, _ = load_model(project, version)
    trained = set(found.images)
    return [i.id for i in project.images.all() if i.id not in trained]


def predict_images(project: Project, image_ids: Sequence[int] | None = None, *,
                   version: int | None = None, store: bool = True,
                   progress: Progress | None = None, cancelled: CancelCheck | None = None,
                   workers: int | None = None,
                   each: Callable[[int, np.ndarray], None] | None = None,
                   into: list[ImagePrediction] | None = None) -> list[ImagePrediction]:
    """Predict images with a version (the newest by default) and store each as the model
    rater's annotation (``store``); ``each(image_id, probability)`` sees every probability
    map before it is dropped; ``into``: the list the results are appended to as they come
    (what a caller keeps when Cancel stops it). Progress counts images."""
    from slicereview.app.images.limits import ImportedFiles
    from slicereview.app.images.pacs import Locator
    from slicereview.engines.learning import predict
    from slicereview.engines.learning.classifier import tissue_for
    from slicereview.engines.prediction import check

    found, model = load_model(project, version)
    ids = default_images(project, found.version) if image_ids is None else list(image_ids)
    locator, files = Locator(project), ImportedFiles(project)
    settings = model.settings
    smallest = min_region(project)
    results = [] if into is None else into
    for k, image_id in enumerate(ids):
        check(cancelled)
        image = project.images.get(image_id)
        if image is None:
            raise ProjectModelError(f"The project has no image {image_id}.")
        if progress is not None:
            progress(k, len(ids), f"predicting {image.case_id}")
        pixels = pixel_reader(project, image, locator=locator, files=files)()
        tissue = tissue_for(pixels, None, settings)
        tiles = (None if progress is None else
                 lambda d, t, k=k, c=image.case_id: progress(k, len(ids),
                                                             f"predicting {c}, tile {d}/{t}"))
        prediction = predict(model, pixels, tissue, progress=tiles, cancelled=cancelled,
                             workers=workers)
        if each is not None:
            each(image_id, prediction.probability)
        region, band, entropy = uncertainty(prediction.probability, tissue, settings.certain,
                                            settings.uncertain)
        labels = drop_small(prediction.labels, smallest)
        stored = _store(project, found.version, image_id, labels) if store else None
        results.append(ImagePrediction(image_id, image.case_id, region, band, entropy, stored))
    if progress is not None:
        progress(len(ids), len(ids), "predicted")
    return results


def _store(project: Project, version: int, image_id: int, labels: np.ndarray) -> int:
    """Store a label image as the version's model rater's finished annotation."""
    from slicereview.app.models.predictions import store_prediction

    return store_prediction(project, version_rater(project, version), image_id, labels).id


def version_rater(project: Project, version: int) -> Rater:
    """The model rater of a version: ``project@vN`` (made when first needed), marked with the
    project model's description."""
    return model_rater(project, MODEL_NAME, f"v{version}",
                       card={"description": DESCRIPTION, "licence": "the project's own"})
