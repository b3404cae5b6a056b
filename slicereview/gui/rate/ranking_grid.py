"""A finished session's ranking as a thumbnail grid, with CSV export.

Images appear in rank order (tiers from most to least of the property); each tile shows the
competition rank ("1224": tied images share the best rank), the tier and the score (sort:
Bradley–Terry log-strength ± its standard error; exhaustive: wins − losses and the Bradley–Terry
score ± SE beside it; classify: the grade); the title names the Bradley–Terry method (MAP with a
light L2 penalty, SE from the observed Fisher information, ties as half a win) and alternating
tiers
have alternating backgrounds so ties are visible. Captions are dark text on those light tiles
(contrast at least 4.5:1 whatever the desktop theme) on three lines sized to the longest one, so a
grade is never cut off. Double-click a tile to see the image large in a
window of its own, with zoom, pan and window/level. Thumbnails of images already decoded for
rating are made at once; the others are made off the GUI thread (one worker, in the decoding
child process) and kept for the life of the project. A ranking of more than :data:`PAGE`
images is shown a page at a time (Previous / Next): the tiles, their image reads and
thumbnails are those of one page, whatever the session's size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.rating.run import BT_METHOD, Z95, RankingRow
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.display import thumbnail
from slicereview.engines.imaging.limits import Limits
from slicereview.gui.common import file_dialogs
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.browser import qimage_from_grey
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.gateway import ProjectGateway
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance

THUMB = 128
ID_ROLE = Qt.ItemDataRole.UserRole + 1
TIER_COLOURS = (QColor(235, 240, 250), QColor(250, 243, 230))
#: Caption colour on the tier tiles (not the palette's: a dark theme has light text).
CAPTION = QColor(25, 25, 25)
PAD = 16
#: Tiles per page of the grid.
PAGE = 200


def _thumbnail(path: Path | RemoteInstance | HeldFile, image: Image, limits: Limits,
               check: Callable[[Image, Path | RemoteInstance | HeldFile], bool]) -> np.ndarray:
    """Worker thread (plain data only, no project connection): a crash-safe ``uint8``
    thumbnail of a file still the one imported (``check``: the gateway's file check)."""
    check(image, path)
    return isolated.thumbnail(path, image, THUMB, limits)


def _fmt_score(score: float | None, kind: str) -> str:
    if score is None:
        return "—"
    return f"{score:+.0f}" if kind == "exhaustive" else (
        f"{score:.0f}" if kind == "classify" else f"{score:+.2f}")


def _fmt_bt(row: RankingRow) -> str:
    """``+1.23 ± 0.40``, or "not compared"."""
    if not row.comparisons or row.bt_score is None or row.bt_se is None:
        return "not compared"
    return f"{row.bt_score:+.2f} ± {row.bt_se:.2f}"


class LargeImage(QDialog):
    """One image of the ranking, large (closed: deleted)."""

    def __init__(self, image_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image_id = image_id
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.view = ImageView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)


class RankingGrid(QWidget):
    """Shows one session's result; :meth:`show_session` fills it."""

    #: The user asked to undo the last answer (the page reopens the comparison).
    undo_requested = Signal(int)
    #: The user asked for a second pass over this sort session.
    second_pass_requested = Signal(int)

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.session_id: int | None = None
        self._thumbs: dict[int, QPixmap] = {}
        self._rows: list[RankingRow] = []
        self._captions: list[str] = []
        self._items: dict[int, QListWidgetItem] = {}
        self.page = 0
        self.tasks = Tasks(self)  # an unreadable file keeps its grey tile (the browser says why)
        self.tasks.done.connect(self._on_thumb)
        gateway.project_closed.connect(self._thumbs.clear)

        self.title = QLabel()
        self.title.setWordWrap(True)
        self.status = QLabel()
        self.grid = QListWidget()
        self.grid.setViewMode(QListView.ViewMode.IconMode)
        self.grid.setIconSize(QSize(THUMB, THUMB))
        self.grid.setGridSize(QSize(THUMB + 24, THUMB + 64))
        self.grid.setResizeMode(QListView.ResizeMode.Adjust)
        self.grid.setMovement(QListView.Movement.Static)
        self.grid.setUniformItemSizes(True)
        self.grid.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.grid.setWordWrap(False)
        self.grid.itemDoubleClicked.connect(self._on_activated)
        self.viewers: list[LargeImage] = []
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Write the ranking as CSV (the columns of "
                                      "`slicereview ranking --csv`)")
        self.export_button.clicked.connect(self.on_export)
        self.undo_button = QPushButton("Undo last answer")
        self.undo_button.setToolTip("Reopen the session at its last comparison")
        self.undo_button.clicked.connect(lambda: self.undo_requested.emit(self.session_id))
        self.pass_button = QPushButton("Second pass")
        self.pass_button.setToolTip("Rank the same images again in a new random order")
        self.pass_button.clicked.connect(
            lambda: self.second_pass_requested.emit(self.session_id))
        buttons = QHBoxLayout()
        for b in (self.export_button, self.pass_button, self.undo_button):
            buttons.addWidget(b)
        buttons.addWidget(self.status, 1)
        self.previous_button = QPushButton("◀ Previous")
        self.previous_button.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next_button = QPushButton("Next ▶")
        self.next_button.clicked.connect(lambda: self.show_page(self.page + 1))
        self.page_label = QLabel()
        paging = QHBoxLayout()
        for w in (self.previous_button, self.page_label, self.next_button):
            paging.addWidget(w)
        paging.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(buttons)
        layout.addLayout(paging)
        layout.addWidget(self.grid, 1)

    def show_session(self, session_id: int) -> None:
        rs = self.gateway.rating.run(session_id)
        self.session_id = session_id
        kind = str(rs.kind)
        rows = rs.rows()
        rater = rows[0].rater if rows else ""
        names = getattr(rs, "rater_names", None)  # a confidence session's raters
        raters = f"raters {', '.join(names().values())}" if names else f"rater {rater}"
        minutes = rs.active_ms / 60000
        score_name = {"sort": "BT score ± SE", "exhaustive": "wins − losses · BT score ± SE",
                      "confidence": "BT score ± SE", "classify": "grade"}[kind]
        tiers = len({r.tier for r in rows if r.tier is not None})
        method = ""
        if kind != "classify":
            method = f"<br><small>BT: {BT_METHOD}.</small>"
        self.title.setText(
            f"<b>{rs.session.name}</b> — {kind}, {raters}: {rs.answer_count} "
            f"{'grades' if kind == 'classify' else 'answers'}, {minutes:.1f} min active. "
            f"Ranking from most to least ({tiers} tiers); tile: rank · tier · {score_name}."
            f"{method}")
        self.pass_button.setVisible(kind == "sort")
        self.undo_button.setText("Undo last grade" if kind == "classify" else "Undo last answer")
        self.status.clear()
        labels = rs.labels if kind == "classify" else ()
        captions = []
        for row in rows:
            score = _fmt_score(row.score, kind)
            if labels and row.score is not None:
                score = labels[int(row.score)]
            elif kind == "exhaustive":
                score = f"{score} · {_fmt_bt(row)}"
            elif kind != "classify":
                score = _fmt_bt(row)
            rank = "—" if row.rank is None else f"#{row.rank}"
            tier = "unranked" if row.tier is None else f"tier {row.tier}"
            captions.append(f"{rank} · {tier}\n{row.case_id}\n{score}")
        self._rows, self._captions = rows, captions
        self._fit_grid(captions)
        self.show_page(0)

    def pages(self) -> int:
        return max(1, -(-len(self._rows) // PAGE))

    def show_page(self, page: int) -> None:
        """Show the tiles of page ``page`` (0-based, clamped) of the ranking shown."""
        self.page = max(0, min(self.pages() - 1, page))
        first = self.page * PAGE
        shown = range(first, min(len(self._rows), first + PAGE))
        several = self.pages() > 1
        for w in (self.previous_button, self.next_button, self.page_label):
            w.setVisible(several)
        self.previous_button.setEnabled(self.page > 0)
        self.next_button.setEnabled(self.page < self.pages() - 1)
        self.page_label.setText(f"images {first + 1}–{shown.stop} of {len(self._rows)}"
                                if shown else "")
        self.tasks.forget()  # the thumbnails of another page are not wanted now
        self.grid.clear()
        self._items = {}
        size = self.grid.gridSize() - QSize(4, 4)  # the item, not just its cell, fits the text
        for k in shown:
            row, caption = self._rows[k], self._captions[k]
            item = QListWidgetItem(caption)
            item.setData(ID_ROLE, row.image_id)
            tip = f"{row.file}\nrank {row.rank}, tier {row.tier}, score {row.score}"
            if row.comparisons:
                assert row.bt_score is not None and row.bt_se is not None
                tip += (f"\nBradley–Terry {row.bt_score:+.3f} ± {row.bt_se:.3f} (95% CI "
                        f"{row.bt_score - Z95 * row.bt_se:+.2f} … "
                        f"{row.bt_score + Z95 * row.bt_se:+.2f}), {row.comparisons} comparisons")
            item.setToolTip(tip)
            if row.tier is not None:
                item.setBackground(QBrush(TIER_COLOURS[row.tier % 2]))
                item.setForeground(QBrush(CAPTION))
            item.setIcon(self._icon(row.image_id))
            item.setSizeHint(size)
            self.grid.addItem(item)
            self._items[row.image_id] = item

    def _fit_grid(self, captions: list[str]) -> None:
        """Tiles as wide as the longest caption line and tall enough for three lines (the
        same on every page)."""
        fm = self.grid.fontMetrics()
        lines = {line for c in captions for line in c.split("\n")}
        wide = max([fm.horizontalAdvance(line) for line in lines] + [THUMB])
        self.grid.setGridSize(QSize(wide + PAD, THUMB + 3 * fm.lineSpacing() + PAD))

    def _on_activated(self, item: QListWidgetItem) -> None:
        self.open_large(int(item.data(ID_ROLE)))

    def open_large(self, image_id: int) -> LargeImage:
        """Show one image large in a window of its own (double-click or Enter on a tile)."""
        image = self.gateway.image(image_id)
        dialog = LargeImage(image_id, self)
        dialog.setWindowTitle(f"{image.case_id} — {Path(image.path).name}")
        dialog.view.set_image(self.gateway.display(image))
        dialog.resize(900, 800)
        dialog.destroyed.connect(lambda *_: self.viewers.remove(dialog)
                                 if dialog in self.viewers else None)
        self.viewers.append(dialog)
        dialog.show()
        return dialog

    def _icon(self, image_id: int) -> QIcon:
        pixmap = self._thumbs.get(image_id)
        if pixmap is not None:
            return QIcon(pixmap)
        image = self.gateway.image(image_id)
        if image_id in self.gateway.cache:  # decoded for rating: a thumbnail is quick
            tile = thumbnail(self.gateway.display(image), THUMB)
            pixmap = QPixmap.fromImage(qimage_from_grey(tile))
            self._thumbs[image_id] = pixmap
            return QIcon(pixmap)
        self.tasks.submit(image_id, _thumbnail, self.gateway.file_of(image), image,
                          self.gateway.limits, self.gateway.files.check)
        grey = QPixmap(THUMB, THUMB)
        grey.fill(QColor(90, 90, 90))
        return QIcon(grey)

    def _on_thumb(self, image_id: int, tile: np.ndarray) -> None:
        pixmap = QPixmap.fromImage(qimage_from_grey(tile))
        self._thumbs[image_id] = pixmap
        item = self._items.get(image_id)
        if item is not None:
            item.setIcon(QIcon(pixmap))

    def wait_for_thumbnails(self, msecs: int = 10000) -> None:
        """Block until queued thumbnails are decoded (tests and screenshots)."""
        self.tasks.wait(msecs)

    def on_export(self) -> None:
        if self.session_id is None:
            return
        name = self.gateway.rating.run(self.session_id).session.name
        safe = "".join(c if c.isalnum() or c in "-_ " else "_" for c in name).strip()
        path = file_dialogs.save_file(self, "Export ranking", "csv", f"{safe}.csv",
                                      "CSV (*.csv)", self.gateway.folder)
        if path is not None:
            self.export_csv(path)

    def export_csv(self, path: Path) -> int:
        assert self.session_id is not None, "no session shown"
        n = self.gateway.rating.export_ranking_csv(self.session_id, path)
        self.status.setText(f"{n} images written to {path}")
        return n
