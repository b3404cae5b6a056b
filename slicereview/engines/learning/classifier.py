"""The project model: train a pixel classifier from (image, label image) pairs, predict tiled.

* :class:`Example` — one training image: its key (e.g. the image id), and a ``read()`` that
  gives its pixels, its label image and optionally a tissue mask of the caller's. Images are
  read when needed, one per worker at a time, so training on many mammograms holds only a few
  in memory.
* :func:`sample_examples` — each image's balanced, capped samples (:mod:`.sampling`), in
  ``workers`` threads; :func:`fit` — the forest on them (:mod:`.forest`); :func:`train` — both.
* :func:`predict` — the probability of the region at every pixel of an image: cores of
  ``settings.tile`` pixels with their features' margin (:func:`~slicereview.engines.prediction
  .margin_tiles`), only cores that touch the tissue, only tissue pixels (0 elsewhere), in
  ``workers`` threads.
* :class:`ProjectModel` — settings, forest and what it was trained on; :meth:`~ProjectModel
  .to_bytes` and :meth:`~ProjectModel.from_bytes` (:mod:`.persist`: data only, checked).

Progress is ``progress(done, total)``: images while sampling, then trees while growing the
forest, tiles while predicting; ``cancelled()`` is asked between patches, trees and tiles, and
:class:`~slicereview.engines.prediction.Cancelled` raised.

Degenerate cases: no examples, or no region (or no background) pixel in any of them, cannot
be trained (``ValueError`` saying so); an image without tissue is predicted 0 everywhere.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> image = rng.normal(100, 10, (128, 128)); image[40:60, 50:80] += 80
>>> labels = np.zeros((128, 128), np.uint8); labels[40:60, 50:80] = 1
>>> settings = Settings(trees=8, tissue="none", tile=64, patch=64, patches_per_image=4)
>>> model = train([Example.of(image, labels)], settings)
>>> p = predict(model, image)
>>> bool(p.labels[50, 65] == 1), bool(p.labels[100, 20] == 0)
(True, True)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from slicereview.engines.learning import persist
from slicereview.engines.learning.features import (
    Normalisation,
    box_features,
    feature_names,
    normalisation,
)
from slicereview.engines.learning.forest import Forest, fit_forest
from slicereview.engines.learning.sampling import Samples, sample_image
from slicereview.engines.learning.settings import Settings
from slicereview.engines.learning.tissue import tissue_mask
from slicereview.engines.prediction import (
    CancelCheck,
    Prediction,
    Progress,
    Tile,
    check,
    margin_tiles,
)

DEFAULT_SETTINGS = Settings()
#: ``read()`` of an example: ``(image (H, W), labels uint8 (H, W), tissue bool (H, W) or None)``.
Reader = Callable[[], tuple[np.ndarray, np.ndarray, "np.ndarray | None"]]


@dataclass(frozen=True, eq=False)
class Example:
    """One training image: ``key`` (unique, e.g. the image id; seeds its samples) and
    ``read`` (see :data:`Reader`)."""

    key: int
    read: Reader

    @classmethod
    def of(cls, image: np.ndarray, labels: np.ndarray, tissue: np.ndarray | None = None,
           key: int = 0) -> Example:
        """An example held in memory."""
        return cls(key, lambda: (image, labels, tissue))


@dataclass(frozen=True, eq=False)
class ProjectModel:
    """A trained project model.

    Attributes
    ----------
    settings : Settings
    forest : Forest
    training : dict
        JSON values: ``keys`` (the examples' keys), ``images``, ``positives`` and
        ``negatives`` (samples of each class).
    """

    settings: Settings
    forest: Forest
    training: dict[str, Any]

    def to_bytes(self) -> bytes:
        return persist.encode(self.settings, self.forest, self.training)

    @classmethod
    def from_bytes(cls, blob: bytes) -> ProjectModel:
        """The model of :meth:`to_bytes`'s bytes; ``ValueError`` (one sentence) for bytes that
        are damaged, changed, of another format or not a model."""
        return cls(*persist.decode(blob))

    @property
    def feature_names(self) -> list[str]:
        return feature_names(self.settings)


def default_workers() -> int:
    """The CPUs this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def read_example(example: Example, settings: Settings
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Normalisation]:
    """``(image, labels uint8, tissue bool or None, normalisation)`` of an example, checked."""
    image, labels, tissue = example.read()
    image, labels = check_image(image), np.asarray(labels)
    if labels.shape != image.shape:
        raise ValueError(f"The label image {labels.shape} of image {example.key} does not "
                         f"match the image {image.shape}.")
    tissue = tissue_for(image, tissue, settings)
    return image, labels.astype(np.uint8, copy=False), tissue, normalisation(image, tissue)


def check_image(image: np.ndarray) -> np.ndarray:
    """The image as an array, once it is a 2-D grey image of finite real numbers."""
    img = np.asarray(image)
    if img.ndim != 2 or img.size == 0:
        raise ValueError(f"The project model works on grey 2-D images, not an array of shape "
                         f"{img.shape}.")
    if img.dtype == np.bool_ or not (np.issubdtype(img.dtype, np.integer)
                                     or np.issubdtype(img.dtype, np.floating)):
        raise ValueError(f"The project model works on grey pixel values, not {img.dtype} data.")
    if np.issubdtype(img.dtype, np.floating) and not np.isfinite(img).all():
        raise ValueError("The image has NaN or infinite pixels; the project model cannot use "
                         "it.")
    return img


def tissue_for(image: np.ndarray, tissue: np.ndarray | None, settings: Settings
               ) -> np.ndarray | None:
    """The caller's mask if given (checked), else the settings' (``"breast"``:
    :func:`~.tissue.tissue_mask`; ``"none"``: ``None``, every pixel)."""
    if tissue is not None:
        mask = np.asarray(tissue, dtype=bool)
        if mask.shape != image.shape:
            raise ValueError(f"The tissue mask {mask.shape} does not match the image "
                             f"{image.shape}.")
        return mask
    return tissue_mask(image) if settings.tissue == "breast" else None


def sample_examples(examples: Iterable[Example], settings: Settings = DEFAULT_SETTINGS, *,
                    progress: Progress | None = None, cancelled: CancelCheck | None = None,
                    workers: int | None = None) -> list[Samples]:
    """Each example's samples (:func:`~.sampling.sample_image`), in the examples' order; at
    most ``workers`` images are read at a time."""
    todo = list(examples)
    keys = [e.key for e in todo]
    if len(set(keys)) != len(keys):
        raise ValueError("The examples' keys must be unique.")

    def one(example: Example) -> Samples:
        check(cancelled)
        image, labels, tissue, norm = read_example(example, settings)
        return sample_image(image, labels, tissue, settings, example.key, cancelled, norm)

    return _in_threads(one, todo, workers, progress, cancelled)


def fit(samples: Sequence[Samples], settings: Settings = DEFAULT_SETTINGS, *,
        progress: Progress | None = None, cancelled: CancelCheck | None = None,
        workers: int | None = None) -> ProjectModel:
    """Grow the forest on the samples of several images (progress in trees)."""
    if not samples:
        raise ValueError("The project model needs at least one image to learn from.")
    X = np.concatenate([s.X for s in samples])
    y = np.concatenate([s.y for s in samples])
    positives, negatives = int(np.count_nonzero(y == 1)), int(np.count_nonzero(y == 0))
    if positives == 0:
        raise ValueError("None of the images has a certain region to learn from: the project "
                         "model needs accepted annotations that mark something.")
    if negatives == 0:
        raise ValueError("None of the images has background to learn from (no unmarked "
                         "tissue): the project model needs both.")
    forest = fit_forest(X, y, settings, workers=workers or default_workers(),
                        cancelled=cancelled, grown=progress)
    training = {"keys": [int(s.key) for s in samples], "images": len(samples),
                "positives": positives, "negatives": negatives}
    return ProjectModel(settings, forest, training)


def train(examples: Iterable[Example], settings: Settings = DEFAULT_SETTINGS, *,
          progress: Progress | None = None, cancelled: CancelCheck | None = None,
          workers: int | None = None) -> ProjectModel:
    """:func:`sample_examples` then :func:`fit`; ``progress`` counts images and then trees
    as one run (``total`` = images + trees)."""
    todo = list(examples)
    n, trees = len(todo), settings.trees
    report = (None if progress is None else lambda d, t: progress(d, n + trees))
    grown = (None if progress is None else lambda d, t: progress(n + d, n + trees))
    samples = sample_examples(todo, settings, progress=report, cancelled=cancelled,
                              workers=workers)
    return fit(samples, settings, progress=grown, cancelled=cancelled, workers=workers)


def predict(model: ProjectModel, image: np.ndarray, tissue: np.ndarray | None = None, *,
            progress: Progress | None = None, cancelled: CancelCheck | None = None,
            workers: int | None = None) -> Prediction:
    """The model's :class:`~slicereview.engines.prediction.Prediction` of a grey image
    ``(H, W)``: ``float32`` probability (0 outside the tissue) and the label image at the
    settings' thresholds. ``tissue``: the caller's mask, else the settings' rule."""
    settings = model.settings
    img = check_image(image)
    mask = tissue_for(img, tissue, settings)
    norm = normalisation(img, mask)
    probability = np.zeros(img.shape, np.float32)
    tiles = [t for t in margin_tiles(img.shape, settings.tile, settings.margin())
             if mask is None or mask[t.core[0]:t.core[2], t.core[1]:t.core[3]].any()]

    def one(tile: Tile) -> None:
        check(cancelled)
        if mask is not None:  # only the tissue's bounding box in the core, and its margin
            tile = _tissue_tile(tile, mask, settings.margin())
        r0, c0, r1, c1 = tile.core
        inside = None if mask is None else mask[r0:r1, c0:c1]
        feats = box_features(img, tile.span, settings, norm)[tile.inner]
        X = feats.reshape(-1, feats.shape[-1]) if inside is None else feats[inside]
        p = model.forest.predict(X)
        if inside is None:
            probability[r0:r1, c0:c1] = p.reshape(r1 - r0, c1 - c0)
        else:
            probability[r0:r1, c0:c1][inside] = p

    _in_threads(one, tiles, workers, progress, cancelled)
    return Prediction.of(probability, settings.certain, settings.uncertain)


def _tissue_tile(tile: Tile, mask: np.ndarray, margin: int) -> Tile:
    """The tile with its core shrunk to the bounding box of the tissue in it (the span to
    that plus ``margin``, clipped): the features of the tissue are the same, fewer pixels are
    filtered at the breast's edge."""
    r0, c0, r1, c1 = tile.core
    rows = np.flatnonzero(mask[r0:r1, c0:c1].any(axis=1))
    cols = np.flatnonzero(mask[r0:r1, c0:c1].any(axis=0))
    core = (r0 + int(rows[0]), c0 + int(cols[0]), r0 + int(rows[-1]) + 1,
            c0 + int(cols[-1]) + 1)
    span = (max(core[0] - margin, 0), max(core[1] - margin, 0),
            min(core[2] + margin, mask.shape[0]), min(core[3] + margin, mask.shape[1]))
    return Tile(core, span)


def _in_threads(fn: Callable[[Any], Any], items: list[Any], workers: int | None,
                progress: Progress | None, cancelled: CancelCheck | None) -> list[Any]:
    """``[fn(item) for item in items]`` in ``workers`` threads, at most ``workers`` running
    or waiting at a time; progress after each, Cancel between them."""
    n = len(items)
    workers = max(1, min(workers or default_workers(), n or 1))
    results: list[Any] = [None] * n
    if workers == 1:
        for i, item in enumerate(items):
            check(cancelled)
            results[i] = fn(item)
            if progress is not None:
                progress(i + 1, n)
        return results
    pending: dict[Future[Any], int] = {}
    done = 0
    with ThreadPoolExecutor(workers) as pool:
        queue = iter(enumerate(items))
        try:
            while True:
                while len(pending) < workers:
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    pending[pool.submit(fn, nxt[1])] = nxt[0]
                if not pending:
                    return results
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    results[pending.pop(future)] = future.result()
                    done += 1
                    if progress is not None:
                        progress(done, n)
                check(cancelled)
        except BaseException:
            for future in pending:
                future.cancel()
            raise

