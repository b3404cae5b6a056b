"""Background work with a progress dialog (and a Cancel button where the work can stop).

Each worker runs in a ``QThread``; the importer opens its own project connection (SQLite
connections are not shared across threads). Progress and the result come back as queued
signals; connect them to bound methods of objects in the GUI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThread, Signal

from slicereview.store import Project

if TYPE_CHECKING:  # the imaging engines (pydicom, SimpleITK) load when an import starts
    from slicereview.app.importing import ImportReport
    from slicereview.engines.imaging.importer import SliceSelection


class Worker(QObject):
    """Runs :meth:`work` in its own thread; ``finished(result)`` or ``failed(message)``."""

    progress = Signal(int, int, str)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self._cancel = False
        self._thread: QThread | None = None

    def cancel(self) -> None:
        self._cancel = True

    def work(self) -> object:
        raise NotImplementedError

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
            result = self.work()
        except Exception as exc:  # reported in the GUI as a message box
            self.failed.emit(str(exc))
            return
        self.finished.emit(result)


class ImportWorker(Worker):
    """Imports ``paths`` into the project at ``project_path``; ``finished(ImportReport)``."""

    def __init__(self, project_path: Path, paths: list[Path],
                 slices: SliceSelection | None = None) -> None:
        super().__init__()
        self.project_path = Path(project_path)
        self.paths = [Path(p) for p in paths]
        self.slices = slices  # None: the default SliceSelection()

    def work(self) -> ImportReport:
        from slicereview.app.importing import import_paths
        from slicereview.engines.imaging.importer import SliceSelection

        with Project.open(self.project_path) as project:
            return import_paths(project, self.paths, slices=self.slices or SliceSelection(),
                                progress=self.progress.emit, cancel=lambda: self._cancel)


class DemoWorker(Worker):
    """Builds (or finds) the demo project; ``finished(Path)``. It cannot be cancelled part-way,
    but a half-built demo is never used (it is renamed into place only when complete)."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__()
        self.folder = folder

    def work(self) -> Path:
        from slicereview.app.demo import build_demo

        return build_demo(self.folder, progress=self.progress.emit)


class ReviewFeaturesWorker(Worker):
    """Computes (or reads from the cache) the features of a review queue in its own project
    connection; ``finished(QueueResult)``. Cancel keeps what is finished (cached too)."""

    def __init__(self, project_path: Path, spec: object) -> None:
        super().__init__()
        self.project_path = Path(project_path)
        self.spec = spec

    def work(self) -> object:
        from slicereview.app.review_queue import compute_features

        with Project.open(self.project_path) as project:
            return compute_features(
                project, self.spec,  # type: ignore[arg-type]
                progress=lambda done, total: self.progress.emit(done, total, "features"),
                cancelled=lambda: self._cancel)
