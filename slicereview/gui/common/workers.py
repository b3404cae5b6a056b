"""Background work with a progress dialog (and a Cancel button where the work can stop).

Each worker runs in a plain Python thread (:meth:`Worker.start`) and opens its own project
connection (SQLite connections are not shared across threads). Progress and the result come
back as queued signals; connect them to bound methods of objects in the GUI thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from slicereview.store import Project
from slicereview.store.location import Location

if TYPE_CHECKING:  # the imaging engines (pydicom, SimpleITK) load when an import starts
    from slicereview.app.images.importing import ImportReport
    from slicereview.engines.imaging.importer import SliceSelection


class WorkerThread:
    """The handle :meth:`Worker.start` returns (``quit``/``wait``/``isRunning`` as a QThread's,
    so callers stop and join it the same way)."""

    def __init__(self, thread: threading.Thread) -> None:
        self.thread = thread

    def quit(self) -> None:
        """Nothing to do: the thread ends when :meth:`Worker.work` returns (Cancel asks it)."""

    def wait(self, msecs: int = 30000) -> bool:
        self.thread.join(msecs / 1000.0)
        return not self.thread.is_alive()

    def isRunning(self) -> bool:
        return self.thread.is_alive()


class Worker(QObject):
    """Runs :meth:`work` in its own thread; ``finished(result)`` or ``failed(message)``."""

    progress = Signal(int, int, str)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self._cancel = False
        self._thread: WorkerThread | None = None

    def cancel(self) -> None:
        self._cancel = True

    def work(self) -> object:
        raise NotImplementedError

    def start(self) -> WorkerThread:
        """Run :meth:`work` in a plain Python thread; returns its handle.

        The worker object stays in the GUI thread (its signals, emitted from the work thread,
        are queued to it): no Qt object is moved to, owned by or deleted in another thread, so
        the GUI thread's garbage collector can never wait on one (a ``QObject`` moved to a
        ``QThread`` deadlocked that way while a report rendered).
        """
        thread = WorkerThread(threading.Thread(target=self.run, daemon=True,
                                               name=type(self).__name__))
        self._thread = thread
        thread.thread.start()
        return thread

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # reported in the GUI as a message box
            self.failed.emit(str(exc))
            return
        self.finished.emit(result)


class ImportWorker(Worker):
    """Imports ``paths`` into the project at ``location``; ``finished(ImportReport)``."""

    def __init__(self, location: Location, paths: list[Path],
                 slices: SliceSelection | None = None) -> None:
        super().__init__()
        self.location = location
        self.paths = [Path(p) for p in paths]
        self.slices = slices  # None: the default SliceSelection()

    def work(self) -> ImportReport:
        from slicereview.app.images.importing import import_paths
        from slicereview.engines.imaging.importer import SliceSelection

        with Project.open(self.location) as project:
            return import_paths(project, self.paths, slices=self.slices or SliceSelection(),
                                progress=self.progress.emit, cancel=lambda: self._cancel)


class DemoWorker(Worker):
    """Builds (or finds) the demo project; ``finished(Path)``. It cannot be cancelled part-way,
    but a half-built demo is never used (it is renamed into place only when complete)."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__()
        self.folder = folder

    def work(self) -> Path:
        from slicereview.demo.project import build_demo

        return build_demo(self.folder, progress=self.progress.emit)


class ReviewFeaturesWorker(Worker):
    """Computes (or reads from the cache) the features of a review queue in its own project
    connection; ``finished(QueueResult)``. Cancel keeps what is finished (cached too)."""

    def __init__(self, location: Location, spec: object) -> None:
        super().__init__()
        self.location = location
        self.spec = spec

    def work(self) -> object:
        from slicereview.app.review.queue import compute_features

        with Project.open(self.location) as project:
            return compute_features(
                project, self.spec,  # type: ignore[arg-type]
                progress=lambda done, total: self.progress.emit(done, total, "features"),
                cancelled=lambda: self._cancel)


class PacsImportWorker(Worker):
    """Imports ``studies`` from the DICOMweb service at ``url`` into the project at
    ``location``; ``finished(ImportReport)`` (all or nothing, see app/images/pacs_import.py)."""

    def __init__(self, location: Location, url: str, auth: object,
                 studies: list[str]) -> None:
        super().__init__()
        self.location = location
        self.url, self.auth, self.studies = url, auth, list(studies)

    def work(self) -> ImportReport:
        from slicereview.app.images.pacs_import import import_dicomweb

        with Project.open(self.location) as project:
            return import_dicomweb(project, self.url, studies=self.studies,
                                   auth=self.auth,  # type: ignore[arg-type]
                                   progress=self.progress.emit, cancel=lambda: self._cancel)
