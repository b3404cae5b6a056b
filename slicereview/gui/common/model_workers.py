"""The project model's work off the GUI thread: training a version and predicting images
(:mod:`slicereview.app.models.project_model`, :mod:`slicereview.app.models.project_predict`).

Thread workers for :func:`~slicereview.gui.common.background.thread_worker`: a project
location in (a connection of their own: SQLite connections stay in the thread that opened
them), plain data out, progress and Cancel through the
:class:`~slicereview.gui.common.work.Control` (the engine's Cancel becomes the worker's).
The engines' heavy work (filters, the forest) runs in native code that releases the GIL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from slicereview.gui.common.work import Cancelled, Control
from slicereview.store import Project
from slicereview.store.location import Location

if TYPE_CHECKING:
    from slicereview.app.models.project_predict import ImagePrediction
    from slicereview.model import ModelVersion


def train(control: Control, location: Location, trained_by: str,
          changes: dict[str, Any] | None = None) -> ModelVersion:
    """Train, score and store the next version; ``changes``: settings to change."""
    from dataclasses import replace

    from slicereview.app.models import project_model as pm

    with Project.open(location) as project:
        settings = replace(pm.current_settings(project), **(changes or {}))
        try:
            return pm.train_version(project, settings=settings, trained_by=trained_by,
                                    progress=control.progress, cancelled=control.cancelled)
        except pm.Cancelled:
            raise Cancelled from None


def predict(control: Control, location: Location, version: int | None = None,
            image_ids: Sequence[int] | None = None) -> list[ImagePrediction]:
    """Predict images with a version (default: the newest; images: all it was not trained
    on), store them as its model rater's annotations and keep their uncertainty for the
    selection order."""
    from slicereview.app.models import project_model as pm
    from slicereview.app.qa.model_predictions import predict_and_rank

    with Project.open(location) as project:
        try:
            return predict_and_rank(project, image_ids, version=version,
                                    progress=control.progress, cancelled=control.cancelled)
        except pm.Cancelled:
            raise Cancelled from None
