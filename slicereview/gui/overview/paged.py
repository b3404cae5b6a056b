"""A table shown a page at a time: the Overview's per-image tables hold one row per image
selection (2,000 at 20,000 images with 10 % annotated), so only :data:`PAGE` rows are built
as widgets, with ◀ Previous / Next ▶ and "rows 1–200 of 2,000" like the ranking grid's pages.
The rows themselves are plain values (the report's dictionaries); :attr:`PagedTable.built`
counts the rows made into items, for tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTableWidget, QVBoxLayout, QWidget

#: Rows a page shows.
PAGE = 200

#: Fills row ``r`` of the table from one value.
Filler = Callable[[QTableWidget, int, Any], None]


class PagedTable(QWidget):
    """``table`` with a page bar under it; :meth:`set_rows` shows the first page."""

    def __init__(self, table: QTableWidget, fill: Filler, noun: str = "rows") -> None:
        super().__init__()
        self.table = table
        self.fill = fill
        self.noun = noun
        self.page = 0
        self.built = 0
        self._rows: Sequence[Any] = ()
        self.previous_button = QPushButton("◀ Previous")
        self.previous_button.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next_button = QPushButton("Next ▶")
        self.next_button.clicked.connect(lambda: self.show_page(self.page + 1))
        self.page_label = QLabel()
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for w in (self.previous_button, self.page_label, self.next_button):
            bar.addWidget(w)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(table, 1)
        layout.addLayout(bar)
        self.set_rows(())

    def pages(self) -> int:
        return max(1, -(-len(self._rows) // PAGE))

    def rows(self) -> Sequence[Any]:
        return self._rows

    def set_rows(self, rows: Sequence[Any]) -> None:
        """Show ``rows`` from the first page."""
        self._rows = rows
        self.show_page(0)

    def show_page(self, page: int) -> None:
        """Build page ``page`` (clamped) into the table; the other pages are not built."""
        self.page = min(max(0, page), self.pages() - 1)
        first = self.page * PAGE
        shown = range(first, min(len(self._rows), first + PAGE))
        self.table.clearSelection()
        self.table.setRowCount(len(shown))
        for r, k in enumerate(shown):
            self.fill(self.table, r, self._rows[k])
        self.built += len(shown)
        paged = len(self._rows) > PAGE
        for w in (self.previous_button, self.next_button, self.page_label):
            w.setVisible(paged)
        self.previous_button.setEnabled(self.page > 0)
        self.next_button.setEnabled(self.page < self.pages() - 1)
        self.page_label.setText(f"{self.noun} {first + 1}–{shown.stop} of {len(self._rows):,}"
                                if shown else f"no {self.noun}")
