"""The demo's simulated model on the review set: material for the model in QA (the report's
*The model in QA*, the queue's ``model-disagreement`` method and its evaluation, the Review
tab's model layer) and for pre-annotation.

Clearly simulated: the model rater :data:`MODEL_NAME` ``@`` :data:`MODEL_VERSION` is stored
with ``simulated = 1`` and its card says so. It is not a trained network: it "predicts" the
review set's true spots (the same brightest blob-like spots the simulated annotators were
given, :func:`slicereview.demo.review.annotate_batch`) as a somewhat biased detector would —
outlines 10 % too large with a wobble, one spot in six missed, a false spot now and then
inside the tissue — so it disagrees with the annotators where they disagree with the truth
and where it errs itself. It also predicts the QA workflow's pre-annotated batch
(:mod:`slicereview.demo.preannotated_batch`). Each prediction is stored with
:func:`slicereview.app.models.predictions.store_prediction`, the path every prediction takes.

Example
-------
>>> MODEL_PROFILE.miss, f"{MODEL_NAME}@{MODEL_VERSION}"
(0.16, 'simulated-review-model@1')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.demo.annotators import (
    Profile,
    find_bright_regions,
    simulate_annotators,
    tissue_mask,
)
from slicereview.demo.review import REGIONS_PER_CROP
from slicereview.engines.masks import rasterize
from slicereview.store import Project

MODEL_NAME = "simulated-review-model"
MODEL_VERSION = "1"
#: How the simulated model draws (a detector's bias: large outlines, few uncertain pixels).
MODEL_PROFILE = Profile("model", miss=0.16, extra=0.25, uncertain=0.05, margin=0.10,
                        scale=1.10, scale_sd=0.05, wobble=0.06, tremor=0.2)
CARD = {"licence": "CC0-1.0 (simulated, no weights)",
        "description": "A simulated model of the demo's review set and of the reduced crops of "
                       "its pre-annotated batch: not a trained network."}


def review_truth(pixels: np.ndarray, image_id: int, seed: int = 21) -> list[np.ndarray]:
    """The true spots of a review crop (``pixels`` float32 ``(H, W)``), as
    :func:`~slicereview.demo.review.annotate_batch` drew them with ``seed``."""
    rng = np.random.default_rng([seed, image_id])
    wanted = int(rng.choice(REGIONS_PER_CROP))  # (the draw annotate_batch made)
    return (find_bright_regions(pixels, max_regions=wanted, sigma=4.0, min_area=40.0)
            if wanted else [])


def add_review_model(project: Project, image_ids: Sequence[int], seed: int = 21) -> int:
    """Store the simulated model's predictions of ``image_ids`` (the review set; ``seed``
    the one :func:`~slicereview.demo.review.annotate_batch` was given, so the truth is the
    same); returns the model rater's id."""
    from skimage import io

    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater

    model = model_rater(project, MODEL_NAME, MODEL_VERSION, card=CARD, simulated=True)
    with project.transaction():
        for image in project.images.all(image_ids):
            pixels = np.asarray(io.imread(project.images.resolve(image.path)), dtype=np.float32)
            truth = review_truth(pixels, image.id, seed)
            drawn = simulate_annotators(pixels.shape, truth, seed=seed * 7 + image.id,
                                        profiles=[MODEL_PROFILE],
                                        where=tissue_mask(pixels, 4))["model"]
            store_prediction(project, model, image.id, rasterize(drawn, pixels.shape))
    return model.id
