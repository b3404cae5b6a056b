"""A checkable list of rating sessions and a read-only results table: the session choice and
the result tables of the Rate tab's pooled-ranking and reliability panels.

Each list item carries its session's id; :meth:`SessionChecklist.checked` answers the ticked
ids in list order.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QTableWidget

ID_ROLE = Qt.ItemDataRole.UserRole + 1


class SessionChecklist(QListWidget):
    """Rating sessions, one checkable item each (text on two lines, the same as tooltip)."""

    def __init__(self, tooltip: str) -> None:
        super().__init__()
        self.setWordWrap(True)
        self.setToolTip(tooltip)

    def set_sessions(self, sessions: Iterable[tuple[int, str, bool]]) -> None:
        """Replace the items by ``(session id, text, ticked)`` triples."""
        self.clear()
        for session_id, text, ticked in sessions:
            item = QListWidgetItem(text)
            item.setToolTip(text)
            item.setData(ID_ROLE, session_id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
            self.addItem(item)

    def _items(self) -> list[QListWidgetItem]:
        return [item for i in range(self.count()) if (item := self.item(i)) is not None]

    def checked(self) -> list[int]:
        """The ticked sessions' ids, in list order."""
        return [item.data(ID_ROLE) for item in self._items()
                if item.checkState() == Qt.CheckState.Checked]

    def set_checked(self, session_ids: Iterable[int]) -> None:
        """Tick exactly the sessions in ``session_ids``."""
        wanted = set(session_ids)
        for item in self._items():
            item.setCheckState(Qt.CheckState.Checked if item.data(ID_ROLE) in wanted
                               else Qt.CheckState.Unchecked)


def results_table(columns: tuple[str, ...]) -> QTableWidget:
    """A read-only table of whole rows with ``columns`` as its header, the last one stretched."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.horizontalHeader().setStretchLastSection(True)
    return table
