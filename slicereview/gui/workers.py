"""Background work with a progress dialog and a Cancel button.

The importer runs in a ``QThread`` with its own project connection (SQLite connections are not
shared across threads); progress and the result come back as queued signals.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal

from slicereview.core.imaging.importer import ImportReport, SliceSelection, import_paths
from slicereview.core.store import Project


class ImportWorker(QObject):
    """Imports ``paths`` into the project at ``project_path``; run it with :meth:`start`."""

    progress = Signal(int, int, str)
    finished = Signal(object)  # ImportReport
    failed = Signal(str)

    def __init__(self, project_path: Path, paths: list[Path],
                 slices: SliceSelection | None = None) -> None:
        super().__init__()
        self.project_path = Path(project_path)
        self.paths = [Path(p) for p in paths]
        self.slices = slices or SliceSelection()
        self._cancel = False
        self._thread: QThread | None = None

    def cancel(self) -> None:
        self._cancel = True

    def start(self) -> QThread:
        thread = QThread()
        self._thread = thread
        self.moveToThread(thread)
        thread.started.connect(self.run)
        self.finished.connect(thread.quit)
        self.failed.connect(thread.quit)
        thread.start()
        return thread

    def run(self) -> None:
        try:
            with Project.open(self.project_path) as project:
                report: ImportReport = import_paths(
                    project, self.paths, slices=self.slices,
                    progress=self.progress.emit, cancel=lambda: self._cancel,
                )
        except Exception as exc:  # reported in the GUI as a message box
            self.failed.emit(str(exc))
            return
        self.finished.emit(report)
