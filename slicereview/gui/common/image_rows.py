"""The image list's model: every image a row, but only the rows on screen are read.

A project of 100,000 images must open as fast as one of 1,000, so :class:`ImageRows` holds no
more per image than its id (one ``SELECT id`` in import order: the index the view scrolls
over, and what the filters narrow). Everything else a row shows -- the case id, the file name,
whether the file is there, the status line, the thumbnail -- is read when Qt asks for that row,
which a :class:`~PySide6.QtWidgets.QListView` with uniform item sizes does for the rows it
paints (the visible ones), a page of :data:`PAGE` images at a time (one query per page, the
pages kept in a bounded cache of :data:`PAGES_KEPT`). A thumbnail is requested the first time
its row is painted, and one requested for a row scrolled out of sight before it ran is dropped
(:meth:`ImageRows.drop_unseen`).

The filters narrow the index: the format one with a query, the text one over the case ids and
file names of every image (one query when the text changes, never at open), the status one
over the statuses the Annotate tab gave.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QImage

from slicereview.app.images.limits import shown
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance

#: Images read per query when a row is painted.
PAGE = 100
#: Pages kept in memory (the rest are read again when scrolled back to).
PAGES_KEPT = 20

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def qimage_from_grey(array: np.ndarray) -> QImage:
    """A deep-copied ``QImage`` of a ``(h, w)`` or ``(h, w, 3)`` ``uint8`` array (a row's
    thumbnail)."""
    array = np.ascontiguousarray(array)
    h, w = array.shape[:2]
    if array.ndim == 2:
        image = QImage(array.data, w, h, array.strides[0], QImage.Format.Format_Grayscale8)
    else:
        image = QImage(array.data, w, h, array.strides[0], QImage.Format.Format_RGB888)
    return image.copy()
FORMAT_ROLE = Qt.ItemDataRole.UserRole + 2
TEXT_ROLE = Qt.ItemDataRole.UserRole + 4

_Index = QModelIndex | QPersistentModelIndex


class ImageIndex(Protocol):
    """What the image list reads through (the project gateway is one)."""

    def image_ids(self, fmt: str | None = None) -> list[int]: ...

    def image_formats(self) -> list[str]: ...

    def image_names(self) -> list[tuple[int, str, str]]: ...

    def images_of(self, ids: Sequence[int]) -> list[Image]: ...

    def file_of(self, image: Image) -> Path | RemoteInstance | HeldFile: ...


@dataclass
class Row:
    """What one painted row shows (read a page at a time)."""

    image: Image
    path: Path | RemoteInstance | HeldFile
    text: str  # case id, file name, slice or frame, "(missing file)"
    exists: bool


class ImageRows(QAbstractListModel):
    """The rows of the image list (see the module text).

    ``decorate(row)`` gives a row's icon (and may request its thumbnail); ``describe(row)``
    its text lines after the base text and its tooltip; both are the browser's.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source: ImageIndex | None = None
        self._all: list[int] = []
        self._shown: list[int] = []
        self._pages: OrderedDict[int, dict[int, Row]] = OrderedDict()
        self._position: dict[int, int] = {}
        self.decorate: Callable[[Row], Any] = lambda _row: None
        self.describe: Callable[[Row], tuple[list[str], str, Any]] = (
            lambda row: ([], str(row.path), None))
        #: Rows read so far (a test counts them: bounded by the screen, not the project).
        self.rows_read = 0

    # -- the index -------------------------------------------------------------------------
    def reset(self, source: ImageIndex | None) -> None:
        """Show the images of ``source`` (``None``: none)."""
        self.beginResetModel()
        self.source = source
        self._all = source.image_ids() if source is not None else []
        self._shown = self._all
        self._position = {}
        self._pages.clear()
        self.endResetModel()

    def narrow(self, ids: list[int] | None) -> bool:
        """Show only ``ids`` (in import order; ``None``: every image). ``False``, and no
        reset, when those are the rows shown already (statuses changed, not the rows): Qt's list
        view lays out every row again after a reset, 1-1.5 s at 20,000 rows; the caller
        repaints instead."""
        shown = self._all if ids is None else ids
        if shown is self._shown or shown == self._shown:
            return False
        self.beginResetModel()
        self._shown = shown
        self._position = {}
        self._pages.clear()
        self.endResetModel()
        return True

    def all_ids(self) -> list[int]:
        return self._all

    def shown_ids(self) -> list[int]:
        return list(self._shown)

    def row_of(self, image_id: int) -> int | None:
        """The row showing ``image_id`` (``None``: not shown)."""
        if not self._position and self._shown:
            self._position = {i: r for r, i in enumerate(self._shown)}
        return self._position.get(image_id)

    # -- Qt's model ------------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's default)
        return 0 if parent.isValid() else len(self._shown)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._shown):
            return None
        image_id = self._shown[index.row()]
        if role == ID_ROLE:
            return image_id
        row = self.row(index.row())
        if role == Qt.ItemDataRole.DisplayRole:
            return "\n".join([row.text, *self.describe(row)[0]])
        if role == Qt.ItemDataRole.DecorationRole:
            return self.decorate(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.describe(row)[1]
        if role == Qt.ItemDataRole.ForegroundRole:
            return self.describe(row)[2]
        if role == FORMAT_ROLE:
            return row.image.format
        if role == TEXT_ROLE:
            return row.text
        return None

    def row(self, position: int) -> Row:
        """The row at ``position`` (its page read when not kept)."""
        page = position // PAGE
        rows = self._pages.get(page)
        if rows is None:
            rows = self._read(self._shown[page * PAGE:(page + 1) * PAGE])
            self._pages[page] = rows
            while len(self._pages) > PAGES_KEPT:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows[self._shown[position]]

    def _read(self, ids: list[int]) -> dict[int, Row]:
        assert self.source is not None
        rows = {}
        for image in self.source.images_of(ids):
            path = self.source.file_of(image)
            where = f"slice {image.slice_index}" if image.is_slice else (
                f"frame {image.frame + 1}" if image.frame else "")
            text = f"{image.case_id}\n{shown(path.name)}" + (f"  {where}" if where else "")
            exists = path.is_file()
            rows[image.id] = Row(image, path, text + ("" if exists else "\n(missing file)"),
                                 exists)
        self.rows_read += len(rows)
        return rows
