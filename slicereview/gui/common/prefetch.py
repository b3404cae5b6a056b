"""Decode a rating session's images ahead of time, off the GUI thread.

Which pair a sort asks next depends on the answer not given yet, so the comparison view cannot
decode "the next pair" in advance; instead, when a session opens, its images are decoded in a
background thread (one worker, presentation order) into the session's image cache while the
cache has room. A pair is then shown from memory as soon as the answer is committed. The cache
is never made to evict images for prefetching: decoding stops at :data:`SHARE` of its budget
(for 27 MB mammograms about a dozen images; the rest are decoded when first shown).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from slicereview.app.images.limits import ImportedFiles
from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.limits import Limits
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.image_cache import DEFAULT_BUDGET, ImageCache
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance

#: Share of the image cache's default budget that prefetching may fill.
SHARE = 0.75


def _decode(path: Path | RemoteInstance | HeldFile, image: Image, limits: Limits,
            check: Callable[[Image, Path | RemoteInstance | HeldFile], bool]) -> DisplayImage:
    """Worker thread: plain data in, a DisplayImage out (in the decoding child process), if
    the file is still the one imported (``check``)."""
    check(image, path)
    return load_display(path, image, isolated=True, limits=limits, large_as_pyramid=True)


class ImageSource(Protocol):
    """What the prefetcher reads images through (the project gateway is one)."""

    cache: ImageCache
    limits: Limits
    files: ImportedFiles

    @property
    def is_open(self) -> bool: ...

    def image(self, image_id: int) -> Image: ...

    def file_of(self, image: Image) -> Path | RemoteInstance | HeldFile: ...


class Prefetcher(QObject):
    """Fills the image cache of ``gateway`` with the images of the open rating session; its
    owner cancels it when the project closes."""

    def __init__(self, gateway: ImageSource, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.tasks = Tasks(self)  # unreadable files are reported when shown, not here
        self.tasks.done.connect(self._on_done)

    def prefetch(self, image_ids: list[int]) -> None:
        """Decode ``image_ids`` in this order (forgetting any earlier request)."""
        self.cancel()
        for image_id in image_ids:
            if image_id in self.gateway.cache:
                continue
            image = self.gateway.image(image_id)
            self.tasks.submit(image_id, _decode, self.gateway.file_of(image), image,
                             self.gateway.limits, self.gateway.files.check)

    def cancel(self) -> None:
        self.tasks.forget()  # queued tasks go; a running one finishes and is ignored

    def wait(self, msecs: int = 30000) -> bool:
        """Block until queued images are decoded (tests, benchmarks)."""
        return self.tasks.wait(msecs)

    def _on_done(self, image_id: int, display: DisplayImage) -> None:
        cache = self.gateway.cache
        if not self.gateway.is_open or image_id in cache:
            return
        if cache.nbytes + display.data.nbytes > SHARE * DEFAULT_BUDGET:
            self.cancel()
            return
        cache.put(image_id, display)
