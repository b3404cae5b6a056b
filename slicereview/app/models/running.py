"""Running an ONNX model on a project's images: ``slicereview predict`` and Owner ▸ Models….

The model and its card (docs/models.md, "The model card") are checked and the model is started
in its inference process (:func:`slicereview.engines.inference.open_model`) once; then each
image is read as the viewer shows it (:func:`grey_pixels`: MONOCHROME1 inverted, a colour
image as the mean of its channels), predicted tile by tile over the whole image, and its label
image at the card's thresholds stored at once as the model rater's finished annotation
(:func:`~.predictions.store_prediction`; the rater is the card's ``NAME@VERSION``, with its
licence and description). So a run that is cancelled, or stopped by a bad image, keeps every
image done before: running again redoes them (a prediction replaces the one before).

An image that cannot be read, or on which the model fails (NaN outputs, too much memory), is
listed with its sentence and the run goes on; a model that cannot be opened at all (not ONNX,
wrong input rank, a file too large) stops the run before the first image with its sentence.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from slicereview.model import Image
from slicereview.store import Project

if TYPE_CHECKING:
    from slicereview.engines.inference import ModelCard

#: ``progress(done, total, what)``: work units done (1000 an image, shared by its tiles).
Progress = Callable[[int, int, str], None]
_UNITS = 1000


@dataclass
class RunReport:
    """``done``: case ids predicted and stored; ``failed``: ``(case id, why)``; ``cancelled``:
    the run stopped on the user's word; ``seconds``: wall time of the run."""

    model: str
    done: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        what = (f"{self.model}: {len(self.done)} image(s) predicted and stored, "
                f"{len(self.failed)} failed, {self.seconds:.1f} s")
        return what + (" (cancelled: the images done are kept)" if self.cancelled else "")


def read_card(card: str | Path | dict | ModelCard) -> ModelCard:
    """A model card from its file, its JSON values, or as it is."""
    from slicereview.engines.inference import ModelCard, load_card, parse_card

    if isinstance(card, ModelCard):
        return card
    if isinstance(card, dict):
        return parse_card(card)
    return load_card(card)


def grey_pixels(project: Project, image: Image, locator=None) -> np.ndarray:
    """The image's pixels ``(H, W)`` as a model is given them, by the one rule of
    :mod:`slicereview.app.models.pixels` (the viewer's decoding rule; MONOCHROME1 inverted, a
    colour image as the mean of its channels)."""
    from slicereview.app.models.pixels import pixel_reader

    return pixel_reader(project, image, locator=locator)()


def run_model(project: Project, model: str | Path | bytes, card: str | Path | dict | ModelCard,
              image_ids: Sequence[int] | None = None, *, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None, simulated: bool = False
              ) -> RunReport:
    """Predict ``image_ids`` (default: every image) with an ONNX model and store each result
    as the card's model rater's annotation (see the module text). Raises the engine's
    :class:`~slicereview.engines.inference.ModelError` (one sentence) when the model cannot
    be opened; an image's failure is reported, not raised."""
    from slicereview.app.images.pacs import Locator
    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater
    from slicereview.engines.inference import ModelCrashedError, ModelError, open_model, predict
    from slicereview.engines.prediction import Cancelled

    started = time.monotonic()
    parsed = read_card(card)
    source = "" if isinstance(model, bytes) else Path(model).name
    rater = model_rater(project, parsed.name, parsed.version, simulated=simulated, card={
        "licence": parsed.licence, "description": parsed.description, "source": source})
    ids = list(image_ids) if image_ids is not None else project.images.ids()
    images = project.images.all(ids)
    report = RunReport(rater.label)
    total = len(images) * _UNITS
    locator = Locator(project)
    try:
        with open_model(model, parsed, cancelled=cancelled) as net:
            for k, image in enumerate(images):
                if cancelled is not None and cancelled():
                    raise Cancelled("cancelled")
                if progress is not None:
                    progress(k * _UNITS, total, image.case_id)

                def tiles(done: int, n: int, k: int = k, case: str = image.case_id) -> None:
                    if progress is not None and n:
                        progress(k * _UNITS + (_UNITS * done) // n, total, case)

                try:
                    pixels = grey_pixels(project, image, locator)
                    prediction = predict(net, pixels, progress=tiles, cancelled=cancelled)
                    if cancelled is not None and cancelled():  # (before the outlines)
                        raise Cancelled("cancelled")
                    store_prediction(project, rater, image.id, prediction.labels)
                except (ModelError, ValueError, OSError) as why:
                    report.failed.append((image.case_id, str(why)))
                    if isinstance(why, ModelCrashedError):  # (the model is closed)
                        break
                    continue
                report.done.append(image.case_id)
    except Cancelled:
        report.cancelled = True
    if progress is not None:
        progress(total, total, "")
    report.seconds = time.monotonic() - started
    return report
