"""Decode a rating session's images ahead of time, off the GUI thread.

Which pair a sort asks next depends on the answer not given yet, so the comparison view cannot
decode "the next pair" in advance; instead, when a session opens, its images are decoded in a
background thread (one worker, presentation order) into the session's image cache while the
cache has room. A pair is then shown from memory as soon as the answer is committed. The cache
is never made to evict images for prefetching: decoding stops at :data:`SHARE` of its budget
(for 27 MB mammograms about a dozen images; the rest are decoded when first shown).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from slicereview.engines.imaging.limits import DEFAULT_LIMITS
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.image_cache import DEFAULT_BUDGET
from slicereview.model import Image

#: Share of the image cache's default budget that prefetching may fill.
SHARE = 0.75


class _Signals(QObject):
    done = Signal(int, int, object)  # generation, image id, DisplayImage


class _Job(QRunnable):
    def __init__(self, generation: int, image: Image, path: Path, signals: _Signals) -> None:
        super().__init__()
        self.generation, self.image, self.path, self.signals = generation, image, path, signals
        self.limits = DEFAULT_LIMITS

    def run(self) -> None:  # worker thread: plain data only
        try:
            display = load_display(self.path, self.image, isolated=True, limits=self.limits)
        except Exception:  # the view reports unreadable files when it shows them
            return
        self.signals.done.emit(self.generation, self.image.id, display)


class Prefetcher(QObject):
    """Fills ``session.cache`` with the images of the open rating session."""

    def __init__(self, gateway, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self._generation = 0
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals()
        self._signals.done.connect(self._on_done)
        gateway.project_closed.connect(self.cancel)

    def prefetch(self, image_ids: list[int]) -> None:
        """Decode ``image_ids`` in this order (forgetting any earlier request)."""
        self.cancel()
        for image_id in image_ids:
            if image_id in self.gateway.cache:
                continue
            image = self.gateway.image(image_id)
            job = _Job(self._generation, image, self.gateway.file_of(image), self._signals)
            job.limits = self.gateway.limits
            self._pool.start(job)

    def cancel(self) -> None:
        self._generation += 1
        self._pool.clear()  # queued jobs go; a running one finishes and is ignored

    def wait(self, msecs: int = 30000) -> bool:
        """Block until queued images are decoded (tests, benchmarks)."""
        return self._pool.waitForDone(msecs)

    def _on_done(self, generation: int, image_id: int, display: object) -> None:
        cache = self.gateway.cache
        if generation != self._generation or not self.gateway.is_open or image_id in cache:
            return
        if cache.nbytes + display.data.nbytes > SHARE * DEFAULT_BUDGET:
            self.cancel()
            return
        cache.put(image_id, display)
