"""Honest scores of the project model: each image scored by a model that never saw it.

**Method: k-fold cross-validation by image.** The images are dealt into ``k = min(folds, n)``
folds (5 by default) in an order drawn from the settings' seed; for each fold a forest is
grown on the other folds' samples (the samples each image gives are the same as in training,
:mod:`.sampling`) and every image of the fold is predicted whole (:func:`~.classifier
.predict`) and compared with its truth. So every image is scored exactly once, by a model
trained on about ``(k - 1) / k`` of the others. This costs ``k`` forests and one whole-image
prediction per image.

**Per image**, the pixels compared are the tissue's (every pixel without a tissue mask) and
every truth region pixel, except the truth's *uncertain* pixels (left out, as in training).
Predicted region: ``p >= certain``; truth region: the label image's certain pixels (1).

* Dice ``2 TP / (2 TP + FP + FN)``; 1.0 when both are empty (as
  :func:`slicereview.engines.agreement.overlap.dice`);
* sensitivity ``TP / (TP + FN)``; NaN for an image without a truth region;
* specificity ``TN / (TN + FP)``; NaN without background.

**Summary over images**: the mean of each metric over the images where it is defined, with a
95 % Student-t interval over images, ``mean ± t(0.975, n - 1) · sd / √n`` (the images are the
sampling unit: pixels of one image are not independent), clipped to [0, 1]. One image: the
mean and no interval (NaN); no image with the metric defined: all NaN; no variation: an
interval of width 0.

Degenerate cases of the whole: fewer than two images cannot be cross-validated (no score,
:attr:`HeldOutScore.reason` says why); a fold whose training images have no region (or no
background) scores its images as NaN with that reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.engines.learning.classifier import (
    DEFAULT_SETTINGS,
    Example,
    ProjectModel,
    fit,
    predict,
    sample_examples,
    tissue_for,
)
from slicereview.engines.learning.sampling import Samples
from slicereview.engines.learning.settings import Settings
from slicereview.engines.prediction import CancelCheck, Progress, check

#: The confidence level of the intervals.
LEVEL = 0.95


@dataclass(frozen=True)
class ImageScore:
    """One held-out image: its key, its fold, pixel counts and the three metrics."""

    key: int
    fold: int
    tp: int
    fp: int
    fn: int
    tn: int
    dice: float
    sensitivity: float
    specificity: float


@dataclass(frozen=True)
class Summary:
    """The mean of a metric over ``n`` images and its 95 % t interval ``(low, high)``."""

    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class HeldOutScore:
    """Cross-validated scores; ``reason`` is empty unless there is no score."""

    method: str
    folds: int
    images: tuple[ImageScore, ...]
    dice: Summary
    sensitivity: Summary
    specificity: Summary
    reason: str = ""


def score_image(probability: np.ndarray, labels: np.ndarray, tissue: np.ndarray | None,
                certain: float, key: int = 0, fold: int = 0) -> ImageScore:
    """Compare a probability map ``float32 (H, W)`` with a truth label image ``uint8 (H,
    W)`` (see the module text).

    >>> labels = np.zeros((4, 4), np.uint8); labels[:2, :2] = 1; labels[3, 3] = 2
    >>> p = np.zeros((4, 4), np.float32); p[:2, :1] = 0.9; p[3, :] = 0.9
    >>> s = score_image(p, labels, None, certain=0.5)
    >>> (s.tp, s.fp, s.fn, s.tn), round(s.dice, 3), s.sensitivity, round(s.specificity, 3)
    ((2, 3, 2, 8), 0.444, 0.5, 0.727)
    """
    truth = labels == 1
    counted = labels != 2
    if tissue is not None:
        counted &= tissue | truth
    predicted = probability >= certain
    tp = int(np.count_nonzero(predicted & truth & counted))
    fp = int(np.count_nonzero(predicted & ~truth & counted))
    fn = int(np.count_nonzero(~predicted & truth & counted))
    tn = int(np.count_nonzero(counted)) - tp - fp - fn
    dice = 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)
    sensitivity = tp / (tp + fn) if tp + fn else math.nan
    specificity = tn / (tn + fp) if tn + fp else math.nan
    return ImageScore(key, fold, tp, fp, fn, tn, dice, sensitivity, specificity)


def summarise(values: Sequence[float]) -> Summary:
    """Mean and 95 % t interval over the finite values (see the module text).

    >>> s = summarise([0.8, 0.6, 0.7])
    >>> round(s.mean, 3), round(s.low, 3), round(s.high, 3), s.n
    (0.7, 0.452, 0.948, 3)
    """
    x = np.array([v for v in values if math.isfinite(v)], np.float64)
    n = len(x)
    if n == 0:
        return Summary(math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    if n == 1:
        return Summary(mean, math.nan, math.nan, 1)
    from scipy.stats import t

    half = float(t.ppf(0.5 + LEVEL / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    return Summary(mean, max(0.0, mean - half), min(1.0, mean + half), n)


def cross_validate(examples: Sequence[Example], settings: Settings = DEFAULT_SETTINGS, *,
                   folds: int = 5, samples: Sequence[Samples] | None = None,
                   progress: Progress | None = None, cancelled: CancelCheck | None = None,
                   workers: int | None = None) -> HeldOutScore:
    """Cross-validated scores of the project model on ``examples`` (see the module text).

    ``samples``: the examples' samples when already drawn (:func:`~.classifier
    .sample_examples`, same order), so training and scoring share them. ``progress`` counts
    the images predicted (``total`` = images).
    """
    n = len(examples)
    k = min(max(int(folds), 2), n)
    method = f"{k}-fold cross-validation by image"
    if n < 2:
        nan = Summary(math.nan, math.nan, math.nan, 0)
        return HeldOutScore(method, 0, (), nan, nan, nan,
                            "Fewer than two images: there is nothing to hold out.")
    if samples is None:
        samples = sample_examples(examples, settings, cancelled=cancelled, workers=workers)
    if [s.key for s in samples] != [e.key for e in examples]:
        raise ValueError("The samples are not those of the examples, in their order.")
    order = np.random.default_rng(settings.seed).permutation(n)
    fold_of = np.empty(n, np.int64)
    fold_of[order] = np.arange(n) % k
    scores: list[ImageScore] = []
    reasons: list[str] = []
    done = 0
    for fold in range(k):
        check(cancelled)
        held = [i for i in range(n) if fold_of[i] == fold]
        try:
            model: ProjectModel | None = fit([samples[i] for i in range(n) if fold_of[i] != fold],
                                             settings, cancelled=cancelled, workers=workers)
        except ValueError as exc:
            model = None
            reasons.append(f"fold {fold + 1}: {exc}")
        for i in held:
            scores.append(_held_out(model, examples[i], settings, fold, cancelled, workers))
            done += 1
            if progress is not None:
                progress(done, n)
    scores.sort(key=lambda s: [e.key for e in examples].index(s.key))
    return HeldOutScore(method, k, tuple(scores), summarise([s.dice for s in scores]),
                        summarise([s.sensitivity for s in scores]),
                        summarise([s.specificity for s in scores]), "; ".join(reasons))


def _held_out(model: ProjectModel | None, example: Example, settings: Settings, fold: int,
              cancelled: CancelCheck | None, workers: int | None) -> ImageScore:
    if model is None:
        return ImageScore(example.key, fold, 0, 0, 0, 0, math.nan, math.nan, math.nan)
    image, labels, tissue = example.read()
    mask = tissue_for(np.asarray(image), tissue, settings)
    p = predict(model, image, mask, cancelled=cancelled, workers=workers).probability
    return score_image(p, np.asarray(labels), mask, settings.certain, example.key, fold)
