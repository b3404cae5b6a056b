"""A small least-recently-used cache of decoded images, bounded in bytes.

Mammograms are ~27 MB a frame; scrolling through 100 of them must stay well under 1.5 GB of
resident memory, so the cache holds a few images (default budget 400 MB) and drops the least
recently shown first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cachetools import LRUCache

from slicereview.engines.imaging.display import DisplayImage
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance

DEFAULT_BUDGET = 400 * 1024 * 1024


class ImageCache:
    def __init__(self, loader: Callable[[Path | RemoteInstance | HeldFile, Image], DisplayImage],
                 budget_bytes: int = DEFAULT_BUDGET) -> None:
        self._loader = loader
        self._budget = budget_bytes
        self._items: LRUCache[int, DisplayImage] = LRUCache(budget_bytes, getsizeof=_nbytes)

    @property
    def nbytes(self) -> int:
        return int(self._items.currsize)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, image_id: int) -> bool:
        return image_id in self._items

    def get(self, path: Path | RemoteInstance | HeldFile, image: Image) -> DisplayImage:
        """The decoded image (from the cache, or loaded now and cached)."""
        hit = self._items.get(image.id)  # a hit becomes the most recently used
        if hit is not None:
            return hit
        display = self._loader(path, image)
        self.put(image.id, display)
        return display

    def peek(self, image_id: int) -> DisplayImage | None:
        """The cached image (now the most recently used) or ``None``; nothing is loaded."""
        return self._items.get(image_id)

    def put(self, image_id: int, display: DisplayImage) -> None:
        """Keep ``display``; the least recently used images go when over budget. An image
        larger than the whole budget is shown but not kept."""
        if _nbytes(display) <= self._budget:
            self._items[image_id] = display

    def clear(self) -> None:
        self._items.clear()


def _nbytes(display: DisplayImage) -> int:
    return int(display.data.nbytes)
