"""The start page of the main window: shown while no project is open — new, open, the demo,
and the recent projects (project files and server URLs), which open with one click or Enter."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.common import settings as user_settings

if TYPE_CHECKING:
    from slicereview.gui.window.main_window import MainWindow


class StartPage(QWidget):
    """Shown while no project is open: create, open, demo, and recent projects."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window_ = window
        title = QLabel("<h2>slicereview</h2><p>Open a project to start, or try the demo.</p>")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(title)
        menu = window.file_menu
        for text, slot in (("New project…", menu.new_project),
                           ("Open project…", menu.open_project),
                           ("Connect to server…", menu.connect_server),
                           ("Open demo project", menu.open_demo)):
            button = QPushButton(text)
            button.setMinimumWidth(240)
            button.clicked.connect(slot)
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(QLabel("Recent projects (click to open):"), 0,
                         Qt.AlignmentFlag.AlignHCenter)
        self.recent = QListWidget()
        self.recent.setMaximumWidth(520)
        self.recent.itemClicked.connect(self._open_recent)  # one click, as a link
        self.recent.itemActivated.connect(self._open_recent)  # Enter (and a double click)
        layout.addWidget(self.recent, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)

    def refresh(self) -> None:
        self.recent.clear()
        for where in [*map(str, user_settings.recent_projects()),
                      *user_settings.recent_servers()]:
            item = QListWidgetItem(where)
            item.setData(Qt.ItemDataRole.UserRole, where)
            self.recent.addItem(item)

    def _open_recent(self, item: QListWidgetItem) -> None:
        if not self.isVisible():  # a double click's second half, the project already open
            return
        where = str(item.data(Qt.ItemDataRole.UserRole))
        if where in user_settings.recent_servers():  # a server project's URL
            self.window_.file_menu.open_server(where)
        else:
            self.window_.open_project(Path(where))
