"""The Overview tab's *Per image* section: the per-image agreement table (α strict and relaxed,
the mean pairwise consensus of Labelbox's method and the mean pairwise mask IoU of Label
Studio's task agreement, what the low-agreement rule did) and the images the rule acted on —
the same rows as the HTML report (:mod:`slicereview.app.report.images`). Selecting a row shows
its image in the View tab. Both are shown a page of 200 rows at a time (◀ Previous / Next ▶):
a project of 20,000 images with 2,000 annotated builds one page of rows, not 2,000.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from slicereview.app.report.formatting import colour
from slicereview.app.report.images import FLAG_COLUMNS, IMAGE_COLUMNS, NOTE, image_cells
from slicereview.gui.overview.paged import PagedTable
from slicereview.gui.overview.tables import new_table

_IMAGE = Qt.ItemDataRole.UserRole


class ImagesSection(QWidget):
    """Per-image agreement and the low-agreement flags (see the module docstring), each a
    :class:`~slicereview.gui.overview.paged.PagedTable` (one page of rows built at a time)."""

    #: A row was chosen: show its image in the View tab.
    image_requested = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.table = new_table(IMAGE_COLUMNS)
        self.flags = new_table(FLAG_COLUMNS)
        for table in (self.table, self.flags):
            table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
            table.itemSelectionChanged.connect(lambda t=table: self._chosen(t))
        self.image_pages = PagedTable(self.table, _image_row, "image selections")
        self.flag_pages = PagedTable(self.flags, _flag_row, "flags")
        self.flag_pages.setMaximumHeight(260)
        self.note = QLabel(NOTE)
        self.note.setWordWrap(True)
        self.flags_label = QLabel("<b>Low-agreement rule: the images it acted on</b>")
        layout = QVBoxLayout(self)
        layout.addWidget(self.image_pages, 3)
        layout.addWidget(self.note)
        layout.addWidget(self.flags_label)
        layout.addWidget(self.flag_pages, 1)

    def clear(self) -> None:
        """No rows (no project, or another report is being computed)."""
        self.image_pages.set_rows(())
        self.flag_pages.set_rows(())

    def show_data(self, data: Any) -> None:
        """Show the first page of the per-image rows and of the flags."""
        self.image_pages.set_rows(data.per_image)
        self.flag_pages.set_rows(data.flagged)
        self.flags_label.setText(
            "<b>Low-agreement rule: the images it acted on</b>" if data.flagged else
            "<b>Low-agreement rule:</b> no image flagged.")

    def _chosen(self, table: QTableWidget) -> None:
        items = table.selectedItems()
        if items:
            self.image_requested.emit(int(items[0].data(_IMAGE)))


def _image_row(table: QTableWidget, r: int, row: dict[str, Any]) -> None:
    for c, text in enumerate(image_cells(row)):
        item = QTableWidgetItem(text)
        item.setData(_IMAGE, row["image_id"])
        right = 2 <= c <= 6
        item.setTextAlignment((Qt.AlignmentFlag.AlignRight if right else
                               Qt.AlignmentFlag.AlignLeft) | Qt.AlignmentFlag.AlignVCenter)
        if c in (3, 4):
            value = row["strict" if c == 3 else "relaxed"]
            item.setBackground(QBrush(QColor(colour(value))))
            item.setForeground(QBrush(QColor("#222")))
        if c == 7 and row["flag"]:
            item.setToolTip(row["flag"])
        table.setItem(r, c, item)


def _flag_row(table: QTableWidget, r: int, flag: dict[str, Any]) -> None:
    for c, key in enumerate(("case", "batch", "what", "why", "when")):
        item = QTableWidgetItem(flag[key])
        item.setData(_IMAGE, flag["image_id"])
        item.setToolTip(flag[key])
        table.setItem(r, c, item)
