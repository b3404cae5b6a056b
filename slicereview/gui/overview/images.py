"""The Overview tab's *Per image* section: the per-image agreement table (α strict and relaxed,
the mean pairwise consensus of Labelbox's method and the mean pairwise mask IoU of Label
Studio's task agreement, what the low-agreement rule did) and the images the rule acted on —
the same rows as the HTML report (:mod:`slicereview.app.report.images`). Selecting a row shows
its image in the View tab.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from slicereview.app.report.formatting import colour
from slicereview.app.report.images import FLAG_COLUMNS, IMAGE_COLUMNS, NOTE, image_cells
from slicereview.gui.overview.tables import new_table

_IMAGE = Qt.ItemDataRole.UserRole


class ImagesSection(QWidget):
    """Per-image agreement and the low-agreement flags (see the module docstring)."""

    #: A row was chosen: show its image in the View tab.
    image_requested = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.table = new_table(IMAGE_COLUMNS)
        self.flags = new_table(FLAG_COLUMNS)
        for table in (self.table, self.flags):
            table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
            table.itemSelectionChanged.connect(lambda t=table: self._chosen(t))
        self.flags.setMaximumHeight(220)
        self.note = QLabel(NOTE)
        self.note.setWordWrap(True)
        self.flags_label = QLabel("<b>Low-agreement rule: the images it acted on</b>")
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 3)
        layout.addWidget(self.note)
        layout.addWidget(self.flags_label)
        layout.addWidget(self.flags, 1)

    def show_data(self, data: Any) -> None:
        rows = data.per_image
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(image_cells(row)):
                item = QTableWidgetItem(text)
                item.setData(_IMAGE, row["image_id"])
                right = 2 <= c <= 6
                item.setTextAlignment((Qt.AlignmentFlag.AlignRight if right else
                                       Qt.AlignmentFlag.AlignLeft)
                                      | Qt.AlignmentFlag.AlignVCenter)
                if c in (3, 4):
                    value = row["strict" if c == 3 else "relaxed"]
                    item.setBackground(QBrush(QColor(colour(value))))
                    item.setForeground(QBrush(QColor("#222")))
                if c == 7 and row["flag"]:
                    item.setToolTip(row["flag"])
                self.table.setItem(r, c, item)
        flags = data.flagged
        self.flags.setRowCount(len(flags))
        for r, f in enumerate(flags):
            for c, key in enumerate(("case", "batch", "what", "why", "when")):
                item = QTableWidgetItem(f[key])
                item.setData(_IMAGE, f["image_id"])
                item.setToolTip(f[key])
                self.flags.setItem(r, c, item)
        self.flags_label.setText(
            "<b>Low-agreement rule: the images it acted on</b>" if flags else
            "<b>Low-agreement rule:</b> no image flagged.")

    def _chosen(self, table: QTableWidget) -> None:
        items = table.selectedItems()
        if items:
            self.image_requested.emit(int(items[0].data(_IMAGE)))
