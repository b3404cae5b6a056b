"""Prepare the next queue images off the GUI thread: decode the pixels and compute the
overlay values (:class:`~slicereview.app.review_image.ReviewImage`: rasterised masks, votes,
boxes and α) in a one-thread pool, so PgDn shows the next image with every overlay drawn from
memory. A job reads the project through its own connection
(:meth:`~slicereview.gui.gateway.ProjectGateway.load_review_image`).

Prepared overlays are dropped when a decision or pin of that image changes (they carry the
decisions in force) and when the project closes; decoded pixels go to the gateway's image
cache (as :mod:`slicereview.gui.prefetch` does for rating sessions) while it has room.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from slicereview.engines.imaging.loader import load_display
from slicereview.gui.image_cache import DEFAULT_BUDGET
from slicereview.gui.prefetch import SHARE
from slicereview.model import Image

Key = tuple[int, tuple[int, ...]]


class _Signals(QObject):
    done = Signal(int, object, object, object)  # generation, key, ReviewImage, display


class _Job(QRunnable):
    def __init__(self, generation: int, key: Key, image: Image, image_path: Path,
                 project_path: Path, load, signals: _Signals) -> None:
        super().__init__()
        self.generation, self.key, self.image = generation, key, image
        self.image_path, self.project_path = image_path, project_path
        self.load, self.signals = load, signals

    def run(self) -> None:  # worker thread: plain data and its own connection only
        try:
            display = load_display(self.image_path, self.image)
            review = self.load(self.project_path, *self.key)
        except Exception:  # the page reports problems when it shows the image
            return
        self.signals.done.emit(self.generation, self.key, review, display)


class ReviewPrefetcher(QObject):
    """Prepares ``(image_id, annotation_ids)`` keys; :meth:`take` hands a prepared one over."""

    ready = Signal(int)

    def __init__(self, gateway, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self._generation = 0
        self._prepared: dict[Key, object] = {}
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals()
        self._signals.done.connect(self._on_done)
        gateway.project_closed.connect(self.cancel)

    def prefetch(self, keys: list[Key]) -> None:
        """Prepare ``keys`` in this order, forgetting other requests and prepared images."""
        self._generation += 1
        self._pool.clear()
        self._prepared = {k: v for k, v in self._prepared.items() if k in keys}
        project = self.gateway.open_project.path
        for key in keys:
            if key in self._prepared:
                continue
            image = self.gateway.image(key[0])
            self._pool.start(_Job(self._generation, key, image, self.gateway.file_of(image),
                                  project, self.gateway.load_review_image, self._signals))

    def take(self, image_id: int, annotation_ids: tuple[int, ...]):
        """The prepared overlay of this queue row, or ``None``."""
        return self._prepared.pop((image_id, tuple(annotation_ids)), None)

    def forget(self, image_id: int) -> None:
        self._prepared = {k: v for k, v in self._prepared.items() if k[0] != image_id}

    def cancel(self) -> None:
        self._generation += 1
        self._pool.clear()
        self._prepared.clear()

    def wait(self, msecs: int = 30000) -> bool:
        """Block until queued jobs are done (tests, benchmarks); results arrive as events."""
        return self._pool.waitForDone(msecs)

    def _on_done(self, generation: int, key: Key, review: object, display) -> None:
        if generation != self._generation or not self.gateway.is_open:
            return
        self._prepared[key] = review
        cache = self.gateway.cache
        if key[0] not in cache and cache.nbytes + display.data.nbytes <= SHARE * DEFAULT_BUDGET:
            cache.put(key[0], display)
        self.ready.emit(key[0])
