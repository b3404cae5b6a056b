"""The acting task owner: a combo of the raters with the owner role and a "New…" button.

Owner-only actions (deciding who goes on, editing the guidelines) are stored with who did
them, so the dialogs that write them carry this picker.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QInputDialog, QLabel, QPushButton, QWidget

from slicereview.gui.gateway.owner import OwnerService
from slicereview.model import Role


class OwnerPicker(QWidget):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.owner = owner
        self.box = QComboBox()
        self.box.setObjectName("owner_box")
        self.new_button = QPushButton("New owner…")
        self.new_button.clicked.connect(self._ask_new)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Acting owner:"))
        layout.addWidget(self.box, 1)
        layout.addWidget(self.new_button)
        self.refill()

    @property
    def owner_id(self) -> int | None:
        data = self.box.currentData()
        return None if data is None else int(data)

    def refill(self, select: int | None = None) -> None:
        current = select if select is not None else self.owner_id
        self.box.clear()
        for rater in self.owner.raters(Role.OWNER):
            self.box.addItem(rater.name, rater.id)
        index = self.box.findData(current)
        if index >= 0:
            self.box.setCurrentIndex(index)

    def add_owner(self, name: str) -> int:
        rater_id = self.owner.add_owner(name)
        self.refill(rater_id)
        return rater_id

    def _ask_new(self) -> None:
        name, ok = QInputDialog.getText(self, "New owner", "Name of the task owner:")
        if ok and name.strip():
            self.add_owner(name)
