"""Prepare the next queue images off the GUI thread: decode the pixels and compute the
overlay values (:class:`~slicereview.app.review.image.ReviewImage`: rasterised masks, votes,
boxes and α) in a one-thread pool, so PgDn shows the next image with every overlay drawn from
memory. A task reads the project through its own connection
(:meth:`~slicereview.gui.gateway.review.ReviewService.load_image`).

Prepared overlays are dropped when a decision or pin of that image changes (they carry the
decisions in force) and when the project closes; decoded pixels go to the gateway's image
cache (as :mod:`slicereview.gui.common.prefetch` does for rating sessions) while it has room.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from slicereview.app.review.image import ReviewImage
from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.limits import Limits
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.image_cache import DEFAULT_BUDGET
from slicereview.gui.common.prefetch import SHARE
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance
    from slicereview.gui.gateway import ProjectGateway

Key = tuple[int, tuple[int, ...]]


def _prepare(image_path: Path | RemoteInstance | HeldFile, image: Image, limits: Limits,
             location: Path | str,
             load: Callable[[Path | str, int, tuple[int, ...]], ReviewImage],
             key: Key, check: Callable[[Image, Path | RemoteInstance | HeldFile], bool]
             ) -> tuple[ReviewImage, DisplayImage]:
    """Worker thread: the image (decoded in the decoding child, if its file is still the one
    imported: ``check``) and its overlays, read through a connection of its own."""
    check(image, image_path)
    display = load_display(image_path, image, isolated=True, limits=limits,
                           large_as_pyramid=True)
    return load(location, *key), display


class ReviewPrefetcher(QObject):
    """Prepares ``(image_id, annotation_ids)`` keys; :meth:`take` hands a prepared one over."""

    ready = Signal(int)

    def __init__(self, gateway: ProjectGateway, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self._prepared: dict[Key, ReviewImage] = {}
        self.tasks = Tasks(self)  # the page reports problems when it shows the image
        self.tasks.done.connect(self._on_done)
        gateway.project_closed.connect(self.cancel)

    def prefetch(self, keys: list[Key]) -> None:
        """Prepare ``keys`` in this order, forgetting other requests and prepared images."""
        self.tasks.forget()
        self._prepared = {k: v for k, v in self._prepared.items() if k in keys}
        project = self.gateway.open_project.location
        for key in keys:
            if key in self._prepared:
                continue
            image = self.gateway.image(key[0])
            self.tasks.submit(key, _prepare, self.gateway.file_of(image), image,
                             self.gateway.limits, project, self.gateway.review.load_image, key,
                             self.gateway.files.check)

    def take(self, image_id: int, annotation_ids: tuple[int, ...]) -> ReviewImage | None:
        """The prepared overlay of this queue row, or ``None``."""
        return self._prepared.pop((image_id, tuple(annotation_ids)), None)

    def forget(self, image_id: int) -> None:
        self._prepared = {k: v for k, v in self._prepared.items() if k[0] != image_id}

    def cancel(self) -> None:
        self.tasks.forget()
        self._prepared.clear()

    def wait(self, msecs: int = 30000) -> bool:
        """Block until queued tasks are done and delivered (tests, benchmarks)."""
        return self.tasks.wait(msecs)

    def _on_done(self, key: Key, prepared: tuple[ReviewImage, DisplayImage]) -> None:
        if not self.gateway.is_open:
            return
        review, display = prepared
        self._prepared[key] = review
        cache = self.gateway.cache
        if key[0] not in cache and cache.nbytes + display.data.nbytes <= SHARE * DEFAULT_BUDGET:
            cache.put(key[0], display)
        self.ready.emit(key[0])
