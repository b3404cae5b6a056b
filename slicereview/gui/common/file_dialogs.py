"""Where the program's file dialogs open: never the program's working directory.

Every save, export, import and open dialog asks through :func:`save_file`, :func:`open_file`,
:func:`open_files` or :func:`open_folder` with a *kind* (``"report"``, ``"csv"``,
``"questions"``, ``"package"``, ``"images"``, ``"project"``, ``"gold"``) and the open project's
folder (``None`` for a server project or when none is open). The dialog opens in

1. the folder last used for that kind of file (remembered in the settings, under
   ``folders/<kind>``), while it still exists;
2. else beside the project file;
3. else the user's documents folder (platformdirs), or the home folder when there is none.

Example
-------
>>> documents().is_dir()
True
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from PySide6.QtWidgets import QFileDialog, QWidget

from slicereview.gui.common.settings import settings


def documents() -> Path:
    """The user's documents folder, or the home folder when it does not exist."""
    folder = Path(platformdirs.user_documents_dir())
    return folder if folder.is_dir() else Path.home()


def start_folder(kind: str, beside: Path | None) -> Path:
    """Where a dialog for ``kind`` opens (see the module docstring); ``beside`` is the open
    project's folder (``None``: a server project, or none open)."""
    remembered = settings().value(f"folders/{kind}")
    if remembered and Path(str(remembered)).is_dir():
        return Path(str(remembered))
    if beside is not None and beside.is_dir():
        return beside
    return documents()


def remember_folder(kind: str, folder: Path) -> None:
    """Remember ``folder`` as the last one used for ``kind``."""
    s = settings()
    s.setValue(f"folders/{kind}", str(Path(folder).absolute()))
    s.sync()


def save_file(parent: QWidget | None, title: str, kind: str, name: str, filters: str,
              beside: Path | None) -> Path | None:
    """Ask where to save a file named ``name`` by default; ``None`` when cancelled."""
    path, _ = QFileDialog.getSaveFileName(parent, title, str(start_folder(kind, beside) / name),
                                          filters)
    if not path:
        return None
    remember_folder(kind, Path(path).parent)
    return Path(path)


def open_file(parent: QWidget | None, title: str, kind: str, filters: str,
              beside: Path | None) -> Path | None:
    """Ask for one existing file; ``None`` when cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, title, str(start_folder(kind, beside)),
                                          filters)
    if not path:
        return None
    remember_folder(kind, Path(path).parent)
    return Path(path)


def open_files(parent: QWidget | None, title: str, kind: str, filters: str,
               beside: Path | None) -> list[Path]:
    """Ask for existing files (empty when cancelled)."""
    paths, _ = QFileDialog.getOpenFileNames(parent, title, str(start_folder(kind, beside)),
                                            filters)
    if paths:
        remember_folder(kind, Path(paths[0]).parent)
    return [Path(p) for p in paths]


def open_folder(parent: QWidget | None, title: str, kind: str,
                beside: Path | None) -> Path | None:
    """Ask for a folder; ``None`` when cancelled. The folder's parent is remembered (the next
    folder of that kind is usually its sibling)."""
    folder = QFileDialog.getExistingDirectory(parent, title, str(start_folder(kind, beside)))
    if not folder:
        return None
    remember_folder(kind, Path(folder).parent)
    return Path(folder)
