"""The project browser: the project's images as a list with thumbnails, a text and a format filter.

In the Annotate tab each image also shows the annotation status of the annotator shown there
(:meth:`ProjectBrowser.set_statuses`): a mark that differs in shape, not only colour, and the
word — ``○ not started``, ``◐ in progress``, ``✓ submitted``, ``∅ nothing to annotate``,
``↩ returned`` (rejected by a reviewer) — and the status box filters the list by it. Images
outside the annotator's batch have no status line. An image the low-agreement rule gave the
annotator shown as one more annotator has a second line, ``⚑ given to you: low agreement``,
with the reason as its tooltip (:meth:`ProjectBrowser.set_assignments`), and the status box
can show only those.

Thumbnails are made off the GUI thread (:class:`~slicereview.gui.common.background.Tasks`) in the
decoding child process (:func:`slicereview.engines.imaging.isolated.thumbnail`: only the small
picture comes back, and a file whose decoder aborts cannot take the program with it) and kept
in memory; the list shows a grey tile until a thumbnail arrives. Thumbnails are requested once
the event loop runs after :meth:`ProjectBrowser.set_images`, so the image the window shows
first is already decoded and its thumbnail is made from those pixels (:attr:`decoded`), with
no decoding child started for a project of one image. A file that cannot be shown
keeps a dark red tile, "(cannot be shown)" under its name and the reason as its tooltip
(:meth:`failures`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import (
    QModelIndex,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QIcon, QImage, QPixmap, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QListView, QVBoxLayout, QWidget

from slicereview.app.images.limits import shown
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.display import DisplayImage, thumbnail
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.gui.common.background import Tasks
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.engines.dicomweb.cache import RemoteInstance

THUMB = 96
ID_ROLE = Qt.ItemDataRole.UserRole + 1
FORMAT_ROLE = Qt.ItemDataRole.UserRole + 2
STATUS_ROLE = Qt.ItemDataRole.UserRole + 3
TEXT_ROLE = Qt.ItemDataRole.UserRole + 4
ASSIGNED_ROLE = Qt.ItemDataRole.UserRole + 5
#: The marker of an image given to the annotator shown by the low-agreement rule.
ASSIGNED_MARK = "⚑ given to you: low agreement"
#: Annotation status words and their marks (shape, so colour is never the only cue).
STATUS_MARKS = {"not started": "○", "in progress": "◐", "submitted": "✓",
                "nothing to annotate": "∅", "returned": "↩"}
STATUS_COLOURS = {"not started": QColor(90, 90, 90), "in progress": QColor(0, 90, 170),
                  "submitted": QColor(0, 120, 60), "nothing to annotate": QColor(100, 100, 100),
                  "returned": QColor(190, 70, 0)}


def qimage_from_grey(array: np.ndarray) -> QImage:
    """A deep-copied ``QImage`` of a ``(h, w)`` or ``(h, w, 3)`` ``uint8`` array."""
    array = np.ascontiguousarray(array)
    h, w = array.shape[:2]
    if array.ndim == 2:
        image = QImage(array.data, w, h, array.strides[0], QImage.Format.Format_Grayscale8)
    else:
        image = QImage(array.data, w, h, array.strides[0], QImage.Format.Format_RGB888)
    return image.copy()


def _thumbnail(path: Path | RemoteInstance, image: Image, limits: Limits,
               check: Callable[[Image, Path | RemoteInstance], bool]) -> np.ndarray:
    """Worker thread (plain data only): the ``uint8`` thumbnail, made in the decoding child
    process, of a file that is still the one imported (``check``)."""
    check(image, path)
    return isolated.thumbnail(path, image, THUMB, limits)


def _thumbnail_of(display: DisplayImage) -> np.ndarray:
    """Worker thread: the thumbnail of pixels already decoded for the viewer."""
    return thumbnail(display, THUMB)


class ProjectBrowser(QWidget):
    """Image list of the open project. Emits :attr:`image_selected` with the image id."""

    image_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QStandardItemModel(self)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by case id or file name")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._apply_filters)
        self.format_box = QComboBox()
        self.format_box.setToolTip("Show only images of one format")
        self.format_box.currentIndexChanged.connect(self._apply_filters)
        self.status_box = QComboBox()
        self.status_box.setObjectName("status_filter")
        self.status_box.setToolTip("Show only images with this annotation status (of the "
                                   "annotator shown in the Annotate tab)")
        self.status_box.addItem("All statuses")
        for word, mark in STATUS_MARKS.items():
            self.status_box.addItem(f"{mark} {word}", word)
        self.status_box.addItem(ASSIGNED_MARK, "assigned")
        self.status_box.currentIndexChanged.connect(self._apply_filters)
        self.status_box.setVisible(False)
        self._statuses: dict[int, str] = {}
        self._assigned: dict[int, str] = {}

        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setIconSize(QSize(THUMB, THUMB))
        self.list.setUniformItemSizes(True)
        self.list.setSpacing(2)
        self.list.selectionModel().currentChanged.connect(self._on_current)

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.format_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.status_box)
        layout.addWidget(self.list, 1)

        self.tasks = Tasks(self)  # a failure: the list says why, the program goes on
        self.tasks.done.connect(self._on_thumbnail)
        self.tasks.failed.connect(self._on_failure)
        self._thumbs: dict[int, QIcon] = {}
        self._failures: dict[int, str] = {}
        #: Size limits of the open project (the main window sets them).
        self.limits: Limits = DEFAULT_LIMITS
        self._rows: dict[int, QStandardItem] = {}
        #: The viewer's decoded pixels of an image, if it has them (the main window sets it).
        self.decoded: Callable[[int], DisplayImage | None] = lambda _image_id: None
        #: Raises when an image's file changed since its import (the main window sets it to
        #: :meth:`~slicereview.app.images.limits.ImportedFiles.check` of the gateway).
        self.check: Callable[[Image, Path | RemoteInstance], bool] = lambda _image, _path: False
        self._wanted: list[tuple[Image, Path | RemoteInstance]] = []
        placeholder = QPixmap(THUMB, THUMB)
        placeholder.fill(QColor(60, 60, 60))
        self._placeholder = QIcon(placeholder)
        bad = QPixmap(THUMB, THUMB)
        bad.fill(QColor(110, 30, 30))
        self._bad = QIcon(bad)

    # -- content ---------------------------------------------------------------------------
    def set_images(self, images: list[tuple[Image, Path | RemoteInstance]]) -> None:
        """Show ``(image, file)`` pairs; thumbnails are requested in the background."""
        self.tasks.forget()
        self._wanted = []
        self.model.clear()
        self._rows.clear()
        formats = sorted({im.format for im, _ in images})
        blocker = self.format_box.blockSignals(True)
        current = self.format_box.currentText()
        self.format_box.clear()
        self.format_box.addItem("All formats")
        self.format_box.addItems(formats)
        if current in formats:
            self.format_box.setCurrentText(current)
        self.format_box.blockSignals(blocker)
        for image, path in images:
            where = f"slice {image.slice_index}" if image.is_slice else (
                f"frame {image.frame + 1}" if image.frame else "")
            text = f"{image.case_id}\n{shown(path.name)}" + (f"  {where}" if where else "")
            if not path.is_file():
                text += "\n(missing file)"
            failure = self._failures.get(image.id)
            icon = self._thumbs.get(image.id, self._bad if failure else self._placeholder)
            item = QStandardItem(icon, text + ("\n(cannot be shown)" if failure else ""))
            item.setEditable(False)
            item.setData(image.id, ID_ROLE)
            item.setData(image.format, FORMAT_ROLE)
            item.setData(text, TEXT_ROLE)
            item.setToolTip(f"{image.case_id}: {shown(path)}" + (f"\n{failure}" if failure
                                                                  else ""))
            self.model.appendRow(item)
            self._rows[image.id] = item
            if image.id not in self._thumbs and not failure and path.is_file():
                self._wanted.append((image, path))
        self.set_statuses(self._statuses if self.status_box.isVisible() else None)
        # Requested once the event loop runs: the image selected first is decoded for the
        # viewer by then, and its thumbnail is made from those pixels, not decoded again.
        QTimer.singleShot(0, self._request_thumbnails)

    def _request_thumbnails(self) -> None:
        wanted, self._wanted = self._wanted, []
        for image, path in wanted:
            display = self.decoded(image.id)
            if display is not None:
                self.tasks.submit(image.id, _thumbnail_of, display)
            else:
                self.tasks.submit(image.id, _thumbnail, path, image, self.limits, self.check)

    def set_statuses(self, statuses: dict[int, str] | None) -> None:
        """Show each image's annotation status (``None``: no statuses, no status filter)."""
        self._statuses = dict(statuses or {})
        self.status_box.setVisible(statuses is not None)
        if statuses is None:
            self._assigned = {}
        for image_id, item in self._rows.items():
            word = self._statuses.get(image_id, "")
            why = self._assigned.get(image_id)
            item.setData(word, STATUS_ROLE)
            item.setData(why is not None, ASSIGNED_ROLE)
            base = item.data(TEXT_ROLE)
            lines = [base] + ([f"{STATUS_MARKS[word]} {word}"] if word else []) + (
                [ASSIGNED_MARK] if why is not None else [])
            item.setText("\n".join(lines))
            tip = item.toolTip().split("\n⚑ ")[0]
            item.setToolTip(tip + (f"\n⚑ {why}" if why is not None else ""))
            item.setData(STATUS_COLOURS[word] if word == "returned" else None,
                         Qt.ItemDataRole.ForegroundRole)
        self._apply_filters()

    def set_assignments(self, assigned: dict[int, str] | None) -> None:
        """Mark the images the low-agreement rule gave the annotator shown (image id → why;
        ``None``: no marks)."""
        self._assigned = dict(assigned or {})
        self.set_statuses(self._statuses if self.status_box.isVisible() else None)

    def status_of(self, image_id: int) -> str:
        return self._statuses.get(image_id, "")

    def assignment_of(self, image_id: int) -> str | None:
        """Why the image was given to the annotator shown (``None``: it was not)."""
        return self._assigned.get(image_id)

    def select(self, image_id: int) -> None:
        item = self._rows.get(image_id)
        if item is not None:
            self.list.setCurrentIndex(item.index())

    def image_ids(self) -> list[int]:
        """Ids in the order shown (after filters)."""
        return [self.model.item(r).data(ID_ROLE) for r in range(self.model.rowCount())
                if not self.list.isRowHidden(r)]

    def current_id(self) -> int | None:
        index = self.list.currentIndex()
        return index.data(ID_ROLE) if index.isValid() else None

    def step(self, delta: int) -> None:
        """Select the next (``+1``) or previous (``-1``) shown image."""
        ids = self.image_ids()
        if not ids:
            return
        current = self.current_id()
        k = ids.index(current) + delta if current in ids else 0
        self.select(ids[max(0, min(len(ids) - 1, k))])

    def forget_failures(self) -> None:
        """Forget which images could not be shown (e.g. after logging in to their PACS)."""
        self._failures.clear()

    def failures(self) -> dict[int, str]:
        """Images whose thumbnail could not be made: image id -> the reason (one line)."""
        return dict(self._failures)

    def wait_for_thumbnails(self, msecs: int = 30000) -> bool:
        self._request_thumbnails()
        return self.tasks.wait(msecs)

    # -- slots -----------------------------------------------------------------------------
    def _apply_filters(self) -> None:
        fmt = self.format_box.currentText()
        text = self.filter_edit.text().strip()
        for row in range(self.model.rowCount()):
            item = self.model.item(row)
            fmt_ok = self.format_box.currentIndex() <= 0 or item.data(FORMAT_ROLE) == fmt
            text_ok = not text or text.lower() in item.text().lower()
            wanted = self.status_box.currentData() if self.status_box.isVisible() else None
            status_ok = wanted is None or item.data(STATUS_ROLE) == wanted or (
                wanted == "assigned" and bool(item.data(ASSIGNED_ROLE)))
            self.list.setRowHidden(row, not (fmt_ok and text_ok and status_ok))

    def _on_thumbnail(self, image_id: int, tile: np.ndarray) -> None:
        icon = QIcon(QPixmap.fromImage(qimage_from_grey(tile)))
        self._thumbs[image_id] = icon
        item = self._rows.get(image_id)
        if item is not None:
            item.setIcon(icon)

    def _on_failure(self, image_id: int, message: str) -> None:
        self._failures[image_id] = message
        item = self._rows.get(image_id)
        if item is not None:
            item.setIcon(self._bad)
            changed = "changed since it was imported" in message
            item.setText(item.text() + ("\n(changed since import)" if changed else
                                        "\n(cannot be shown)"))
            item.setToolTip(f"{item.toolTip()}\n{message}")

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.image_selected.emit(int(current.data(ID_ROLE)))
