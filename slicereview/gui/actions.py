"""Every menu action and shortcut of the main window in one table.

Each row is ``(name, text, shortcut, tooltip)``; :func:`create_actions` makes the ``QAction`` s
and the main window connects each to its method ``on_<name>``.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

_K = QKeySequence.StandardKey

ACTIONS: list[tuple[str, str, object, str]] = [
    ("new_project", "&New project…", _K.New, "Create an empty project file"),
    ("open_project", "&Open project…", _K.Open, "Open a project file (.srproj)"),
    ("open_demo", "Open &demo project", "", "Build (first time) and open the demo project"),
    ("import_files", "&Import images…", "Ctrl+I",
     "Add DICOM, NIfTI, NRRD, MHA/MHD, PNG, TIFF or JPEG files"),
    ("import_folder", "Import &folder…", "Ctrl+Shift+I", "Add every image below a folder"),
    ("relink", "&Relink moved files…", "", "Find missing image files below a new folder"),
    ("close_project", "&Close project", _K.Close, "Close the project (everything is saved)"),
    ("quit", "&Quit", _K.Quit, "Quit slicereview (everything is saved)"),
    ("fit", "&Fit to window", "F", "Fit the image to the view"),
    ("actual_size", "&1:1", "1", "One image pixel per screen pixel"),
    ("zoom_in", "Zoom &in", "+", "Zoom in"),
    ("zoom_out", "Zoom &out", "-", "Zoom out"),
    ("invert", "&Invert", "I", "Invert the grey scale"),
    ("auto_window", "&Automatic window", "A", "Window from the 1st to the 99.5th percentile"),
    ("brighter", "&Brighter", "B", "Brighter (lower the window centre)"),
    ("darker", "&Darker", "Shift+B", "Darker (raise the window centre)"),
    ("more_contrast", "&More contrast", "C", "Narrow the window"),
    ("less_contrast", "&Less contrast", "Shift+C", "Widen the window"),
    ("next_image", "&Next image", "PgDown", "Next image in the list"),
    ("previous_image", "&Previous image", "PgUp", "Previous image in the list"),
    ("next_slice", "Next &slice", "Ctrl+PgDown", "Next slice of this volume"),
    ("previous_slice", "Previous s&lice", "Ctrl+PgUp", "Previous slice of this volume"),
    ("about", "&About slicereview", "", "Version, licences and data attribution"),
]


def create_actions(parent: QWidget) -> dict[str, QAction]:
    actions: dict[str, QAction] = {}
    for name, text, shortcut, tip in ACTIONS:
        action = QAction(text, parent)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))  # type: ignore[arg-type]
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.setObjectName(f"action_{name}")
        actions[name] = action
    return actions
