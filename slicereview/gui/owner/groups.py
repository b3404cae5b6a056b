"""Owner ▸ Groups…: put annotators in groups (a batch can be assigned to a whole group).

The table lists every annotator with their group. Select annotators (Ctrl/Shift-click), type
or pick a group and press **Put in group**, or **Take out of group**; each press is one
transaction through :func:`slicereview.app.people.set_group` (only annotators have groups;
moving one changes which group assignments reach them from now on, their finished work
stays). The same as ``slicereview people group PROJECT GROUP NAME…``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.common.widgets import cell
from slicereview.gui.gateway.owner import OwnerService
from slicereview.model import Role


class GroupsDialog(QDialog):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Annotator groups")
        self.owner = owner
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Annotator", "Group"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # a group name is one line, as wide as it needs ("A0 (no feedback)" wrapped and cut)
        self.table.horizontalHeader().setSectionResizeMode(
            1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        self.group_box = QComboBox()
        self.group_box.setEditable(True)
        edit = self.group_box.lineEdit()
        if edit is not None:  # (an editable combo box has one)
            edit.setPlaceholderText("group name")
        self.put_button = QPushButton("Put in group")
        self.put_button.clicked.connect(self.put)
        self.out_button = QPushButton("Take out of group")
        self.out_button.clicked.connect(self.take_out)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        row = QHBoxLayout()
        row.addWidget(QLabel("Selected annotators:"))
        row.addWidget(self.group_box, 1)
        row.addWidget(self.put_button)
        row.addWidget(self.out_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addWidget(self.message)
        layout.addWidget(close)
        self.refresh()
        self.resize(560, 480)

    def refresh(self) -> None:
        annotators = self.owner.raters(Role.ANNOTATOR)
        self.table.setRowCount(len(annotators))
        for r, rater in enumerate(annotators):
            for c, text in enumerate((rater.name, rater.group or "—")):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, rater.id)
                self.table.setItem(r, c, item)
        current = self.group_box.currentText()
        self.group_box.clear()
        self.group_box.addItems(list(self.owner.groups()))
        self.group_box.setEditText(current)

    def selected(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [int(cell(self.table, r, 0).data(Qt.ItemDataRole.UserRole)) for r in rows]

    def select_names(self, names: list[str]) -> None:
        """Select the annotators of these names (keyboard users and tests)."""
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for r in range(self.table.rowCount()):
            if cell(self.table, r, 0).text() in names:
                self.table.selectRow(r)
        self.table.setSelectionMode(mode)

    def _apply(self, group: str | None) -> bool:
        ids = self.selected()
        if not ids:
            self.message.setText("Select one or more annotators first.")
            return False
        if group is not None and not group.strip():
            self.message.setText("Type the group's name (or pick one).")
            return False
        try:
            self.owner.set_group(ids, group)
        except (ValueError, KeyError) as exc:
            self.message.setText(str(exc))
            return False
        self.message.clear()
        self.refresh()
        return True

    def put(self) -> bool:
        return self._apply(self.group_box.currentText())

    def take_out(self) -> bool:
        return self._apply(None)
