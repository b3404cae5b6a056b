"""The project browser: the project's images as a list with thumbnails, a text and a format filter.

In the Annotate tab each image also shows the annotation status of the annotator shown there
(:meth:`ProjectBrowser.set_statuses`): a mark that differs in shape, not only colour, and the
word — ``○ not started``, ``◐ in progress``, ``✓ submitted``, ``∅ nothing to annotate``,
``↩ returned`` (rejected by a reviewer) — and the status box filters the list by it. Images
outside the annotator's batch have no status line. An image the low-agreement rule gave the
annotator shown as one more annotator has a second line, ``⚑ given to you: low agreement``,
with the reason as its tooltip (:meth:`ProjectBrowser.set_assignments`), and the status box
can show only those, or only the images the acting annotator claimed
(:meth:`ProjectBrowser.set_claimed`, batches handed out by claims).

The list is a virtual model (:mod:`.image_rows`): only the rows on screen are read, and a
thumbnail is requested when its row is first painted (one scrolled away before its turn is
dropped), so opening a project of 100,000 images costs what opening one of 1,000 does.
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

from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from slicereview.app.images.limits import shown
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.display import DisplayImage, thumbnail
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.image_list_view import ImageListView
from slicereview.gui.common.image_rows import ID_ROLE, ImageIndex, ImageRows, Row, qimage_from_grey
from slicereview.gui.common.marks import ASSIGNED_MARK, CLAIMED_MARK, STATUS_COLOURS, STATUS_MARKS
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance

THUMB = 96
#: Thumbnails kept in memory (the least recently shown are dropped, and made again if needed).
THUMBS_KEPT = 2000
#: Rows whose thumbnails are requested before the list is laid out (a screenful).
FIRST_SCREEN = 12
#: Rows Qt lays out between two events.
LAYOUT_BATCH = 2000


def _thumbnail(path: Path | RemoteInstance | HeldFile, image: Image, limits: Limits,
               check: Callable[[Image, Path | RemoteInstance | HeldFile], bool]) -> np.ndarray:
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
        self.model = ImageRows(self)
        self.model.decorate = self._icon
        self.model.describe = self._describe

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
        self.status_box.addItem(CLAIMED_MARK, "claimed")
        self.status_box.currentIndexChanged.connect(self._apply_filters)
        self.status_box.setVisible(False)
        self._statuses: dict[int, str] = {}
        self._assigned: dict[int, str] = {}
        self._claimed: set[int] = set()
        self._names: list[tuple[int, str, str]] | None = None

        self.list = ImageListView(self.model, THUMB, LAYOUT_BATCH)
        self.list.selectionModel().currentChanged.connect(self._on_current)
        self._restoring = False
        # Scrolled: thumbnails asked for rows now out of sight are dropped (a moment after the
        # scrolling stops), and the rows in sight ask again.
        self._scrolled = QTimer(self, singleShot=True, interval=150)
        self._scrolled.timeout.connect(self._drop_unseen)
        self.list.verticalScrollBar().valueChanged.connect(lambda _v: self._scrolled.start())
        self._visible_changed = QTimer(self, singleShot=True, interval=0)
        self._visible_changed.timeout.connect(self._request_visible)

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
        self._thumbs: OrderedDict[int, QIcon] = OrderedDict()
        self._failures: dict[int, str] = {}
        #: Size limits of the open project (the main window sets them).
        self.limits: Limits = DEFAULT_LIMITS
        #: The viewer's decoded pixels of an image, if it has them (the main window sets it).
        self.decoded: Callable[[int], DisplayImage | None] = lambda _image_id: None
        #: Raises when an image's file changed since its import (the main window sets it to
        #: :meth:`~slicereview.app.images.limits.ImportedFiles.check` of the gateway).
        self.check: Callable[[Image, Path | RemoteInstance | HeldFile], bool] = (
            lambda _image, _path: False)
        self._wanted: dict[int, Row] = {}  # thumbnails to request when the event loop runs
        self._requested: set[int] = set()
        #: Thumbnails requested so far (a test counts them: bounded by the screen).
        self.thumbnails_requested = 0
        placeholder = QPixmap(THUMB, THUMB)
        placeholder.fill(QColor(60, 60, 60))
        self._placeholder = QIcon(placeholder)
        bad = QPixmap(THUMB, THUMB)
        bad.fill(QColor(110, 30, 30))
        self._bad = QIcon(bad)

    # -- content ---------------------------------------------------------------------------
    def set_images(self, source: ImageIndex | None) -> None:
        """Show the images of ``source`` (the open project's gateway; ``None``: none). Only
        their ids are read now; rows and thumbnails when they come into sight."""
        self.tasks.forget()
        self._wanted.clear()
        self._requested.clear()
        self._names = None
        formats = source.image_formats() if source is not None else []
        blocker = self.format_box.blockSignals(True)
        current = self.format_box.currentText()
        self.format_box.clear()
        self.format_box.addItem("All formats")
        self.format_box.addItems(formats)
        if current in formats:
            self.format_box.setCurrentText(current)
        self.format_box.blockSignals(blocker)
        self.model.reset(source)
        self.set_statuses(self._statuses if self.status_box.isVisible() else None)
        # Requested once the event loop runs (_apply_filters): the image selected first is
        # decoded for the viewer by then, and its thumbnail is made from those pixels.

    def _icon(self, row: Row) -> QIcon:
        """A row's icon: its thumbnail, or a tile while it is made (requested when the event
        loop runs) or when it cannot be."""
        image_id = row.image.id
        icon = self._thumbs.get(image_id)
        if icon is not None:
            self._thumbs.move_to_end(image_id)
            return icon
        if image_id in self._failures:
            return self._bad
        if row.exists and image_id not in self._requested and image_id not in self._wanted:
            if not self._wanted:
                QTimer.singleShot(0, self._request_thumbnails)
            self._wanted[image_id] = row
        return self._placeholder

    def _describe(self, row: Row) -> tuple[list[str], str, QColor | None]:
        """A row's lines after its text, its tooltip and its text colour."""
        image_id = row.image.id
        failure = self._failures.get(image_id)
        word = self._statuses.get(image_id, "")
        why = self._assigned.get(image_id)
        lines = []
        if failure is not None:
            changed = "changed since it was imported" in failure
            lines.append("(changed since import)" if changed else "(cannot be shown)")
        if word:
            lines.append(f"{STATUS_MARKS[word]} {word}")
        if why is not None:
            lines.append(ASSIGNED_MARK)
        tip = f"{row.image.case_id}: {shown(row.path)}"
        tip += (f"\n{failure}" if failure else "") + (f"\n⚑ {why}" if why is not None else "")
        return lines, tip, STATUS_COLOURS[word] if word == "returned" else None

    def _visible_rows(self) -> range:
        """The rows in the list's viewport (the first screenful when it is not shown)."""
        n = self.model.rowCount()
        if not self.list.isVisible():
            return range(min(n, FIRST_SCREEN))
        area = self.list.viewport().rect()
        x = min(area.width() - 1, THUMB // 2)
        top = self.list.indexAt(QPoint(x, area.top() + 4))
        bottom = self.list.indexAt(QPoint(x, area.bottom() - 4))
        first = top.row() if top.isValid() else 0
        if bottom.isValid():
            last = bottom.row()
        else:  # the end of the list, or rows not laid out yet (batches): as many as fit
            tall = max(THUMB, self.list.sizeHintForRow(0)) + 2 * self.list.spacing()
            last = min(n - 1, first + area.height() // tall)
        return range(first, min(n, last + 1))

    def _request_visible(self) -> None:
        for position in self._visible_rows():
            self._icon(self.model.row(position))
        self._request_thumbnails()

    def _request_thumbnails(self) -> None:
        wanted, self._wanted = self._wanted, {}
        for image_id, row in wanted.items():
            self._requested.add(image_id)
            self.thumbnails_requested += 1
            display = self.decoded(image_id)
            if display is not None:
                self.tasks.submit(image_id, _thumbnail_of, display)
            else:
                self.tasks.submit(image_id, _thumbnail, row.path, row.image, self.limits,
                                  self.check)

    def _drop_unseen(self) -> None:
        """Drop the thumbnails asked for rows now out of sight that did not run yet (all
        queued ones are dropped; the rows in sight ask again)."""
        rows = self._visible_rows()
        in_sight = {self.model.data(self.model.index(r), ID_ROLE) for r in rows}
        if self.tasks.pending() == 0 or not self._requested - in_sight:
            return
        self.tasks.forget()
        self._wanted.clear()
        self._requested.clear()
        self._request_visible()

    def set_statuses(self, statuses: dict[int, str] | None) -> None:
        """Show each image's annotation status (``None``: no statuses, no status filter)."""
        self._statuses = dict(statuses or {})
        self.status_box.setVisible(statuses is not None)
        if statuses is None:
            self._assigned = {}
        self._apply_filters()

    def set_assignments(self, assigned: dict[int, str] | None) -> None:
        """Mark the images the low-agreement rule gave the annotator shown (image id → why;
        ``None``: no marks)."""
        self._assigned = dict(assigned or {})
        self.set_statuses(self._statuses if self.status_box.isVisible() else None)

    def set_claimed(self, claimed: list[int] | None) -> None:
        """The images the acting annotator claimed (the ``claimed by you`` filter)."""
        self._claimed = set(claimed or ())
        self._apply_filters()

    def reveal(self, image_id: int) -> None:
        """Select ``image_id``, first clearing the filters when they hide it."""
        if self.model.row_of(image_id) is None:
            self.filter_edit.clear()
            self.format_box.setCurrentIndex(0)
            if self.status_box.currentData() != "claimed":
                self.status_box.setCurrentIndex(0)
        self.select(image_id)

    def status_of(self, image_id: int) -> str:
        return self._statuses.get(image_id, "")

    def assignment_of(self, image_id: int) -> str | None:
        """Why the image was given to the annotator shown (``None``: it was not)."""
        return self._assigned.get(image_id)

    def row_text(self, image_id: int) -> str | None:
        """The text the list shows for ``image_id`` and its tooltip (``None``: not shown)."""
        row = self.model.row_of(image_id)
        return None if row is None else self.model.index(row).data()

    def row_tooltip(self, image_id: int) -> str | None:
        row = self.model.row_of(image_id)
        return None if row is None else self.model.index(row).data(
            Qt.ItemDataRole.ToolTipRole)

    def select(self, image_id: int) -> None:
        row = self.model.row_of(image_id)
        if row is not None:
            self.list.setCurrentIndex(self.model.index(row))

    def image_ids(self) -> list[int]:
        """Ids in the order shown (after filters)."""
        return self.model.shown_ids()

    def current_id(self) -> int | None:
        index = self.list.currentIndex()
        return index.data(ID_ROLE) if index.isValid() else None

    def step(self, delta: int) -> None:
        """Select the next (``+1``) or previous (``-1``) shown image."""
        n = self.model.rowCount()
        if not n:
            return
        current = self.current_id()
        row = self.model.row_of(current) if current is not None else None
        k = row + delta if row is not None else 0
        self.list.setCurrentIndex(self.model.index(max(0, min(n - 1, k))))

    def forget_failures(self) -> None:
        """Forget which images could not be shown (e.g. after logging in to their PACS)."""
        self._failures.clear()

    def failures(self) -> dict[int, str]:
        """Images whose thumbnail could not be made: image id -> the reason (one line)."""
        return dict(self._failures)

    def thumbnail_ids(self) -> set[int]:
        """Images whose thumbnail is in memory."""
        return set(self._thumbs)

    def wait_for_thumbnails(self, msecs: int = 30000) -> bool:
        """Request the thumbnails of the rows in sight and wait for them (tests,
        screenshots)."""
        self._request_visible()
        return self.tasks.wait(msecs)

    # -- slots -----------------------------------------------------------------------------
    def _apply_filters(self) -> None:
        """Narrow the list to the images the filters let through (keeping the current one
        current when it still is)."""
        source = self.model.source
        fmt = self.format_box.currentText() if self.format_box.currentIndex() > 0 else None
        text = self.filter_edit.text().strip().lower()
        wanted = self.status_box.currentData() if self.status_box.isVisible() else None
        current = self.current_id()
        if source is None or (fmt is None and not text and wanted is None):
            ids = None
        else:
            ids = source.image_ids(fmt) if fmt is not None else self.model.all_ids()
            if text:
                if self._names is None:
                    self._names = source.image_names()
                keep = {i for i, case, name in self._names
                        if text in case.lower() or text in shown(name).lower()}
                ids = [i for i in ids if i in keep]
            if wanted in ("assigned", "claimed"):
                ids = [i for i in ids if i in (self._assigned if wanted == "assigned"
                                               else self._claimed)]
            elif wanted is not None:
                ids = [i for i in ids if self._statuses.get(i) == wanted]
        if not self.model.narrow(ids):
            self.list.viewport().update()  # (the same rows: their marks may have changed)
        if current is not None:
            self._restoring = True
            try:
                self.select(current)
            finally:
                self._restoring = False
        self._visible_changed.start()

    def _on_thumbnail(self, image_id: int, tile: np.ndarray) -> None:
        self._requested.discard(image_id)
        self._thumbs[image_id] = QIcon(QPixmap.fromImage(qimage_from_grey(tile)))
        while len(self._thumbs) > THUMBS_KEPT:
            self._thumbs.popitem(last=False)
        self._repaint(image_id)

    def _on_failure(self, image_id: int, message: str) -> None:
        self._requested.discard(image_id)
        self._failures[image_id] = message
        self._repaint(image_id)

    def _repaint(self, image_id: int) -> None:
        # Not the model's dataChanged: Qt's list view lays out every row again on each
        # (1-1.5 s at 20,000 rows, blank meanwhile, once per thumbnail that arrives).
        row = self.model.row_of(image_id)
        if row is not None:
            self.list.repaint_row(row)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid() and not self._restoring:
            self.image_selected.emit(int(current.data(ID_ROLE)))
