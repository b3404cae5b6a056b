"""The project model's predictions for the QA process: predict with a version, store each as its
model rater's annotation, and keep each image's mean entropy as that rater's uncertainty, so
the *uncertainty* order of *Next image to annotate* (:mod:`.selection`) ranks by how unsure
the model is (the mean binary entropy of its probability map over the tissue), not only by
the uncertain polygons it stored. ``model predict`` and Owner ▸ Project model… call this.

(It lives in the QA package because it joins the two: :mod:`slicereview.app.models` predicts,
:mod:`.selection` keeps a model's uncertainty; the models package never imports QA.)
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.app.models.project_model import CancelCheck, Progress
from slicereview.app.models.project_predict import (
    ImagePrediction,
    predict_images,
    version_rater,
)
from slicereview.app.qa.selection import store_uncertainty
from slicereview.store import Project


def predict_and_rank(project: Project, image_ids: Sequence[int] | None = None, *,
                     version: int | None = None, progress: Progress | None = None,
                     cancelled: CancelCheck | None = None, workers: int | None = None
                     ) -> list[ImagePrediction]:
    """:func:`~slicereview.app.models.project_predict.predict_images` (stored), then the
    entropies of the images predicted kept for the uncertainty order of the version's model
    rater ``project@vN`` — also when Cancel stops it part way (what was predicted is kept)."""
    done: list[ImagePrediction] = []
    try:
        done = predict_images(project, image_ids, version=version, progress=progress,
                              cancelled=cancelled, workers=workers, into=done)
    finally:
        if done:
            latest = project.project_models.latest()
            number = version if version is not None else (latest.version if latest else 0)
            rater = version_rater(project, number)
            store_uncertainty(project, rater.id, {p.image_id: p.entropy for p in done})
    return done
