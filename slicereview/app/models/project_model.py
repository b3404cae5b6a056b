"""The project model in a project: train a version on the accepted work, score it honestly,
store it; its status and the retraining rule. The rules are held here once.

* **Training** (:func:`train_version`) — on every accepted image
  (:func:`~.training_set.accepted_images`: their gold, or the consensus of their accepted
  annotations; uncertain pixels left out), with the engine
  :mod:`slicereview.engines.learning`: balanced, capped samples per image, then the forest.
  At least one accepted image is needed, with some region and some background.
* **The held-out score** — then ``k``-fold cross-validation by image (``k = min(5, n)``) on
  the same samples: Dice, sensitivity and specificity of images each scored by a forest that
  never saw it, with 95 % t intervals over images
  (:func:`~slicereview.engines.learning.scores.cross_validate`). One accepted image has no
  score (the reason is stored).
* **A version** — stored with its training images (ids), the number of accepted images then,
  the settings, the engine's counts, the score and the data-only bytes
  (``project.project_models``); its model rater is ``project@vN``
  (:attr:`~slicereview.model.ModelVersion.name`). A version is never changed.
* **Settings** — the newest version's, unless the caller gives others; the engine's defaults
  for the first.
* **Retraining** — on demand, and, when the owner sets it (:func:`set_retrain_every`),
  after every ``N`` newly accepted images: :func:`status` says when that is due (accepted
  images not in the newest version's training set reach ``N``); ``model train --if-due``
  and the Models dialog train then.

Progress is ``progress(done, total, what)`` over the three stages (images sampled, trees
grown, held-out images predicted); ``cancelled()`` is asked between steps and an engine
:class:`~slicereview.engines.prediction.Cancelled` raised, storing nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slicereview.app.models.pixels import pixel_reader
from slicereview.app.models.training_set import TrainingImage, accepted_images, truth_reader
from slicereview.model import ModelVersion
from slicereview.store import Project

if TYPE_CHECKING:  # scikit-learn and scikit-image load when a model is trained or used
    from slicereview.engines.learning import Example, HeldOutScore, ProjectModel, Settings

from slicereview.engines.prediction import Cancelled as Cancelled  # (raised on Cancel)

Progress = Callable[[int, int, str], None]
CancelCheck = Callable[[], bool]
#: The ``meta`` key of the retraining rule: retrain after every N newly accepted images.
RETRAIN_KEY = "project_model.retrain_every"
#: The ``meta`` key of the smallest region a stored prediction keeps, in pixels.
MIN_REGION_KEY = "project_model.min_region_px"
FOLDS = 5


class ProjectModelError(ValueError):
    """The project model cannot do what was asked; the message says why and what to do."""


@dataclass(frozen=True)
class Status:
    """Where the project model stands: its versions, the accepted images now, how many are
    new since the newest version, the retraining rule (``None``: on demand only) and
    whether retraining is due."""

    versions: tuple[ModelVersion, ...]
    accepted: int
    new_since: int
    retrain_every: int | None
    due: bool

    @property
    def latest(self) -> ModelVersion | None:
        return self.versions[-1] if self.versions else None


def examples_of(project: Project, items: list[TrainingImage]) -> list[Example]:
    """The engine's examples of accepted images (readers that touch no project)."""
    from slicereview.app.images.limits import ImportedFiles
    from slicereview.app.images.pacs import Locator
    from slicereview.engines.learning import Example

    locator, files = Locator(project), ImportedFiles(project)
    found = []
    for item in items:
        image = project.images.get(item.image_id)
        pixels = pixel_reader(project, image, locator=locator, files=files)
        truth = truth_reader(project, item)
        found.append(Example(item.image_id, _reader(pixels, truth)))
    return found


def _reader(pixels: Callable[[], Any], truth: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: (pixels(), truth(), None)


def current_settings(project: Project) -> Settings:
    """The settings the next version is trained with: the newest version's, else defaults."""
    from slicereview.engines.learning import Settings

    latest = project.project_models.latest()
    return Settings() if latest is None else Settings.from_dict(latest.settings)


def train_version(project: Project, *, settings: Settings | None = None, trained_by: str = "",
                  folds: int = FOLDS, progress: Progress | None = None,
                  cancelled: CancelCheck | None = None, workers: int | None = None
                  ) -> ModelVersion:
    """Train, score and store the next version (see the module text)."""
    from slicereview.engines.learning import cross_validate, fit, sample_examples

    items = accepted_images(project)
    if not items:
        raise ProjectModelError("No image is accepted yet: the project model learns from "
                                "images whose annotations a reviewer accepted. Review some "
                                "annotations first.")
    settings = settings or current_settings(project)
    examples = examples_of(project, items)
    n, trees = len(examples), settings.trees
    total = 2 * n + trees
    started = time.perf_counter()

    def step(offset: int, what: str) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, _total: progress(offset + done, total, what)

    samples = sample_examples(examples, settings, progress=step(0, "reading accepted images"),
                              cancelled=cancelled, workers=workers)
    try:
        model = fit(samples, settings, progress=step(n, "growing the forest"),
                    cancelled=cancelled, workers=workers)
    except ValueError as exc:
        raise ProjectModelError(f"{exc} ({n} accepted image{'s' * (n != 1)}).") from None
    score = cross_validate(examples, settings, folds=folds, samples=samples,
                           progress=step(n + trees, "scoring on held-out images"),
                           cancelled=cancelled, workers=workers)
    return project.project_models.add(
        model.to_bytes(), images=[i.image_id for i in items], accepted=n,
        settings=settings.to_dict(), trained_by=trained_by, training=dict(model.training),
        score=score_json(score), seconds=time.perf_counter() - started)


def score_json(score: HeldOutScore) -> dict[str, Any]:
    """A held-out score as JSON values (NaN as ``None``)."""
    def num(x: float) -> float | None:
        return None if math.isnan(x) else float(x)

    def summary(s: Any) -> dict[str, Any]:
        return {"mean": num(s.mean), "low": num(s.low), "high": num(s.high), "n": s.n}

    return {"method": score.method, "folds": score.folds, "reason": score.reason,
            "dice": summary(score.dice), "sensitivity": summary(score.sensitivity),
            "specificity": summary(score.specificity),
            "images": [{"image_id": s.key, "fold": s.fold, "dice": num(s.dice),
                        "sensitivity": num(s.sensitivity), "specificity": num(s.specificity)}
                       for s in score.images]}


def load_model(project: Project, version: int | None = None
               ) -> tuple[ModelVersion, ProjectModel]:
    """A stored version (the newest when ``version`` is ``None``) and its model, checked."""
    from slicereview.engines.learning import ProjectModel

    found = (project.project_models.latest() if version is None
             else project.project_models.get(version))
    if found is None:
        raise ProjectModelError("The project model has not been trained yet: train it first "
                                "(slicereview model train, or Owner ▸ Models…)."
                                if version is None else
                                f"The project model has no version {version}.")
    blob = project.project_models.model_bytes(found.version)
    assert blob is not None
    return found, ProjectModel.from_bytes(blob)


def retrain_every(project: Project) -> int | None:
    """The retraining rule: every ``N`` newly accepted images, ``None`` for on demand only."""
    value = project.meta(RETRAIN_KEY)
    return int(value) if value and int(value) > 0 else None


def set_retrain_every(project: Project, n: int | None) -> None:
    """Retrain after every ``n`` newly accepted images (``None`` or 0: on demand only)."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 10_000):
        raise ProjectModelError(f"Retrain after every N accepted images needs N from 1 to "
                                f"10000 (or 0 for on demand only), not {n!r}.")
    project.set_meta(RETRAIN_KEY, str(n or 0))


def min_region(project: Project) -> int:
    """The smallest region, in pixels, that a stored prediction keeps (0: every region)."""
    value = project.meta(MIN_REGION_KEY)
    return int(value) if value else 0


def set_min_region(project: Project, pixels: int) -> None:
    """Keep only regions of at least ``pixels`` pixels in stored predictions (0: all).

    A region is a connected part (8-neighbours) of what the model marked, certain and
    uncertain together; the ones smaller are left out of the model rater's annotation (what
    pre-annotation shows and the queue compares), not out of its uncertainty."""
    if isinstance(pixels, bool) or not isinstance(pixels, int) or not 0 <= pixels <= 100_000:
        raise ProjectModelError(f"The smallest region kept must be a whole number of pixels "
                                f"from 0 to 100000, not {pixels!r}.")
    project.set_meta(MIN_REGION_KEY, str(pixels))


def status(project: Project) -> Status:
    """The project model's versions and whether retraining is due (see the module text)."""
    versions = tuple(project.project_models.all())
    accepted = [i.image_id for i in accepted_images(project)]
    trained = set(versions[-1].images) if versions else set()
    new = sum(1 for i in accepted if i not in trained)
    every = retrain_every(project)
    due = bool(every) and new >= (every or 0) and bool(accepted)
    return Status(versions, len(accepted), new, every, due)
