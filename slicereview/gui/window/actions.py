"""The main window's menu actions, made from :data:`slicereview.gui.common.shortcuts.MAIN_ACTIONS`.

Each row is ``(name, text, shortcut, tooltip)``; :func:`create_actions` makes the ``QAction`` s
and the main window connects each to its method ``on_<name>``.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from slicereview.gui.common.shortcuts import MAIN_ACTIONS, sequences

ACTIONS = [row for rows in MAIN_ACTIONS.values() for row in rows]
#: The File menu's actions between the two separators (import, relink, work packages).
FILE_ACTIONS = ("import_files", "import_folder", "import_pacs", "relink", "export_package",
                "merge_package")
#: Actions that need an open project.
PROJECT_ACTIONS = (*FILE_ACTIONS, "close_project")


def create_actions(parent: QWidget) -> dict[str, QAction]:
    actions: dict[str, QAction] = {}
    for name, text, shortcut, tip in ACTIONS:
        action = QAction(text, parent)
        action.setShortcuts(sequences(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.setObjectName(f"action_{name}")
        actions[name] = action
    return actions
