"""Features of many images, in worker processes.

A :class:`FeatureTask` carries *polygons*, not pixels: three annotators' label images of a
4500 × 2900 mammogram are 39 MB to pickle to a worker, their polygons a few hundred kB, and
rasterising (:func:`slicereview.engines.masks.rasterize`) costs less than the agreement itself. Each
worker rasterises its own images and sends back the small :class:`ImageFeatures`.

Workers are started with the ``spawn`` method on every platform: ``fork`` in a process that
runs Qt threads can deadlock, and spawn behaves the same on Linux, macOS and Windows. The worker
function is a module-level function, so the tasks and results only need to pickle.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike

from slicereview.engines.masks import PolygonLike, rasterize
from slicereview.engines.review.features import BoxLevel, ImageFeatures, image_features


class PolygonSpec(NamedTuple):
    """A picklable polygon: ``vertices`` ``float64 (N, 2)`` in ``(x, y)`` pixel coordinates and
    ``certainty`` ``"certain"`` or ``"uncertain"``
    (a :class:`~slicereview.engines.masks.PolygonLike`).
    """

    vertices: np.ndarray
    certainty: str


def _specs(polygons: Iterable[PolygonLike]) -> tuple[PolygonSpec, ...]:
    return tuple(
        PolygonSpec(np.asarray(p.vertices, dtype=np.float64).reshape(-1, 2),
                    str(getattr(p.certainty, "value", p.certainty)))
        for p in polygons
    )


@dataclass(frozen=True)
class FeatureTask:
    """One image's annotations as polygons, enough for a worker to compute its features.

    Attributes
    ----------
    image_id : int
    shape : (int, int)
        ``(H, W)`` of the image.
    annotations : tuple of tuple of PolygonSpec
        One polygon tuple per annotator (an annotator with no polygons marked nothing).
    repeats : tuple of (first, repeat) polygon tuples
        One pair per annotator who annotated the image twice (intra-rater α).
    level : {"relaxed", "strict"}
        Boxes for the box features.
    """

    image_id: int
    shape: tuple[int, int]
    annotations: tuple[tuple[PolygonSpec, ...], ...]
    repeats: tuple[tuple[tuple[PolygonSpec, ...], tuple[PolygonSpec, ...]], ...] = field(
        default=())
    level: BoxLevel = "relaxed"

    @classmethod
    def from_polygons(
        cls, image_id: int, shape: tuple[int, int],
        annotations: Sequence[Iterable[PolygonLike]],
        repeats: Sequence[tuple[Iterable[PolygonLike], Iterable[PolygonLike]]] = (),
        level: BoxLevel = "relaxed",
    ) -> FeatureTask:
        """A task from any polygons with ``vertices`` and ``certainty`` (e.g. model.Polygon)."""
        return cls(int(image_id), (int(shape[0]), int(shape[1])),
                   tuple(_specs(a) for a in annotations),
                   tuple((_specs(a), _specs(b)) for a, b in repeats), level)

    def features(self) -> ImageFeatures:
        """Rasterise and compute (what a worker runs).

        >>> square = PolygonSpec(np.array([[1., 1.], [4., 1.], [4., 4.], [1., 4.]]), "certain")
        >>> task = FeatureTask(7, (6, 6), ((square,), (square,)))
        >>> task.features().strict_alpha, task.features().n_high
        (1.0, 1)
        """
        labels = np.zeros((len(self.annotations), *self.shape), dtype=np.uint8)
        for a, polygons in enumerate(self.annotations):
            labels[a] = _rasterize(polygons, self.shape)
        pairs = [(_rasterize(first, self.shape), _rasterize(again, self.shape))
                 for first, again in self.repeats]
        return image_features(labels, pairs, self.level)


def _rasterize(polygons: tuple[PolygonSpec, ...], shape: tuple[int, int]) -> np.ndarray:
    # PolygonLike declares settable attributes; a NamedTuple's are read-only but rasterize
    # only reads them.
    return rasterize(cast("tuple[PolygonLike, ...]", polygons), shape)


#: ``(image_id, labels (R, H, W) uint8, repeats or None)``: a task that already has pixels.
LabelTask = tuple[int, ArrayLike, Sequence[tuple[ArrayLike, ArrayLike]] | None]
Task = FeatureTask | LabelTask


def _run(task: Task) -> tuple[int, ImageFeatures]:
    """Worker entry point (module level, so ``spawn`` workers can import it)."""
    if isinstance(task, FeatureTask):
        return task.image_id, task.features()
    image_id, labels, repeats = task
    return int(image_id), image_features(labels, repeats)


def _task_id(task: Task) -> int:
    return task.image_id if isinstance(task, FeatureTask) else int(task[0])


def default_workers() -> int:
    """CPUs this process may use (``sched_getaffinity`` where available)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def features_of_images(
    tasks: Iterable[Task],
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    executor: Executor | None = None,
) -> dict[int, ImageFeatures]:
    """Features of every task's image, in ``workers`` processes (``1``: inline, no pool).

    Parameters
    ----------
    tasks : iterable of FeatureTask or (image_id, labels, repeats)
        Image ids must be unique. Polygon tasks are cheap to send to workers; label tasks pickle
        whole ``uint8 (R, H, W)`` arrays.
    workers : int, optional
        Processes; default :func:`default_workers`, never more than the number of tasks.
    progress : callable(done, total), optional
        Called after each finished image, in the calling thread.
    cancelled : callable() -> bool, optional
        Polled before each image (inline) or after each finished one (pool); when it returns
        True, pending images are dropped.
    executor : concurrent.futures.Executor, optional
        A pool to reuse (``workers`` is then ignored). A spawned worker first imports numpy and
        scipy, about a second or more each; an application that computes features several times
        keeps one pool (see :func:`make_pool`) instead of paying that each time.

    Returns
    -------
    dict of int to ImageFeatures
        In task order. After a cancellation only the finished images are present.

    Examples
    --------
    >>> lab = np.zeros((2, 4, 4), np.uint8); lab[:, 1:3, 1:3] = 1
    >>> out = features_of_images([(5, lab, None), (6, lab, None)], workers=1)
    >>> sorted(out), out[5].strict_alpha
    ([5, 6], 1.0)
    """
    todo = list(tasks)
    ids = [_task_id(j) for j in todo]
    if len(set(ids)) != len(ids):
        raise ValueError("image ids must be unique")
    n = len(todo)
    workers = min(default_workers() if workers is None else workers, max(n, 1))
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    done: dict[int, ImageFeatures] = {}
    if executor is not None:
        _collect(executor, todo, done, progress, cancelled)
    elif workers == 1:
        for task in todo:
            if cancelled is not None and cancelled():
                break
            image_id, feats = _run(task)
            done[image_id] = feats
            if progress is not None:
                progress(len(done), n)
    else:
        with make_pool(workers) as pool:
            _collect(pool, todo, done, progress, cancelled)
    return {i: done[i] for i in ids if i in done}


def make_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """A process pool of ``spawn`` workers (default :func:`default_workers`) for
    :func:`features_of_images`.

    Workers start on the first submitted task, so creating a pool is cheap; shut it down (or
    use it as a context manager) when done.

    >>> pool = make_pool(2)
    >>> # features_of_images(first_tasks, executor=pool); features_of_images(next_tasks, ...)
    >>> pool.shutdown()
    """
    return ProcessPoolExecutor(max_workers=workers or default_workers(),
                               mp_context=multiprocessing.get_context("spawn"))


def _collect(pool: Executor, todo: list[Task], done: dict[int, ImageFeatures],
             progress: Callable[[int, int], None] | None,
             cancelled: Callable[[], bool] | None) -> None:
    pending: set[Future[tuple[int, ImageFeatures]]] = {pool.submit(_run, j) for j in todo}
    while pending:
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            image_id, feats = future.result()
            done[image_id] = feats
            if progress is not None:
                progress(len(done), len(todo))
        if cancelled is not None and cancelled():
            for future in pending:
                future.cancel()
            return
