"""ProjectGateway: the GUI's one way into the open project.

Views never call the store or the application layer directly; they call the gateway and its
per-job services and listen to their signals, which carry ids (docs/design.md, "Data paths"):

* the gateway itself: opening and closing, the images and their pixels, the change watch, the
  busy-file policy and the project-wide signals;
* :attr:`ProjectGateway.rating` (:class:`~.rating.RatingService`), :attr:`~ProjectGateway.annotate`
  (:class:`~.annotate.AnnotateService`), :attr:`~ProjectGateway.review`
  (:class:`~.review.ReviewService`), :attr:`~ProjectGateway.qa` (:class:`~.qa.QAService`) and
  :attr:`~ProjectGateway.owner` (:class:`~.owner.OwnerService`): one object per job, each with
  that job's reads, writes and signals.

Undoable writes go through a Qt-free :class:`~slicereview.app.undo.CommandStack` made by
:meth:`ProjectGateway.history`: it writes with the busy-file retry, keeps nothing that failed,
and its notices come back here once (:meth:`ProjectGateway._on_notice`), where a failure is
said (:attr:`write_failed`) and the service of the job that changed tells its views. The
gateway holds no domain rule: those live in the application layer. Calls that need an open
project raise :class:`~slicereview.app.errors.NoProjectError` when none is open; calls that only
read answer "nothing" (an empty list, ``None``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, QTimer, Signal

from slicereview.app import undo
from slicereview.app.errors import NoProjectError
from slicereview.app.images import file_cache
from slicereview.app.images.limits import ImportedFiles, project_limits
from slicereview.app.images.pacs import Credentials, Locator
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.image_cache import ImageCache
from slicereview.gui.gateway import connection
from slicereview.gui.gateway.annotate import AnnotateService
from slicereview.gui.gateway.models import ModelsService
from slicereview.gui.gateway.owner import OwnerService
from slicereview.gui.gateway.qa import QAService
from slicereview.gui.gateway.rating import RatingService
from slicereview.gui.gateway.review import ReviewService
from slicereview.gui.gateway.sharing import ProjectWatch
from slicereview.model import Image, RelinkReport
from slicereview.store import Project
from slicereview.store.connection import is_busy
from slicereview.store.errors import ConnectionLostError
from slicereview.store.errors import ProjectError as ProjectError  # (for the views' messages)
from slicereview.store.images import missing_files

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance

T = TypeVar("T")


class ProjectGateway(QObject):
    """The open project for the GUI (see the module docstring)."""

    project_opened = Signal(str)
    project_closed = Signal()
    #: Images were added or relinked; views re-read the image list.
    images_changed = Signal()
    #: The stored paths of the files not found (:meth:`find_missing_files`).
    missing_found = Signal(list)
    #: Emitted by :meth:`close` while the project is still open (pages commit pending work).
    project_about_to_close = Signal()
    #: Raters were added.
    raters_changed = Signal()
    #: A write was refused (disk full, file locked or read-only): a message for the user.
    write_failed = Signal(str)
    #: A write waits for another program's lock on the file: the message ("" when over).
    project_busy = Signal(str)
    #: Another instance (or connection) changed the file: views re-read what they show.
    changed_elsewhere = Signal()
    #: What the server connection is doing while a call waits for it ("" when over).
    reconnecting = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.limits = DEFAULT_LIMITS
        self.cache = ImageCache(self._load)
        self._missing = Tasks(self)
        self._missing.done.connect(lambda _key, found: self.missing_found.emit(found))
        #: Whether each file is still the one imported (checked before any decode; plain
        #: Python and thread-safe: workers call :meth:`ImportedFiles.check`).
        self.files = ImportedFiles()
        self.images_changed.connect(lambda: self.files.refresh(self.project))
        #: Asked Retry (True) / Cancel after :data:`~slicereview.app.undo.PATIENCE_S` of a busy
        #: file; the main window shows a dialog, without one a write gives up.
        self.ask_retry: Callable[[str], bool] = lambda message: False
        self.busy_patience_s = undo.PATIENCE_S
        #: How long a call waits for a lost server connection before it gives up.
        self.server_patience_s = connection.PATIENCE_S
        #: Until when calls give up at once after a failed reconnection (monotonic seconds).
        self.server_down_until = 0.0
        #: Re-reads of views waiting for the server connection (:meth:`settle`).
        self.rereads: list[Callable[[], object]] = []
        #: The lock file and ``data_version`` watch (two instances on one file).
        self.watch = ProjectWatch(self)
        self.watch.changed_elsewhere.connect(self._on_changed_elsewhere)
        self.watch.server.connection.connect(lambda text: connection.back(self, text))
        self._images_seen: tuple[int, ...] = ()
        self._holding = False  # True while this window's own import runs (hold_changes)
        #: Credentials of PACS servers, in memory for this session only (app/images/pacs.py).
        self.credentials = Credentials()
        self._locator: Locator | None = None
        self.rating = RatingService(self)
        self.annotate = AnnotateService(self)
        self.review = ReviewService(self)
        self.qa = QAService(self)
        self.owner = OwnerService(self)
        self.models = ModelsService(self)

    # -- the project ---------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        return self.project is not None

    @property
    def folder(self) -> Path | None:
        """The open project file's folder, where file dialogs open (gui/common/file_dialogs);
        ``None`` for a server project or when none is open."""
        path = self.project.path if self.project is not None else None
        return path.absolute().parent if path is not None else None

    @property
    def server_down(self) -> bool:
        """Whether a call just gave up reaching the project's server (views then keep what
        they show instead of re-reading it)."""
        return time.monotonic() < self.server_down_until

    @property
    def open_project(self) -> Project:
        """The open project; :class:`NoProjectError` when none is open."""
        if self.project is None:
            raise NoProjectError("no project is open: open or create one first (File menu)")
        return self.project

    def open(self, path: str | Path) -> Project:
        """Open ``path`` (closing the current project first). Raises ProjectError subclasses.

        While another program commits to the file (it holds the file's lock), opening waits as
        a busy write does (:meth:`write`: the busy message, Retry / Cancel after the patience);
        a journal of its transaction in progress is never taken for damage (store/locks.py).
        A work package zip is unpacked before it gets here: by ``slicereview open`` and, in a
        worker, by File ▸ Open project… (app/qa/packages.unpack)."""
        project, limits, seen = self.write(lambda: self._open_file(path))
        self.close()
        self.project = project
        self.limits = limits  # what `import --max-...` admitted
        if project.path is None:  # a server project: its connection may be lost and made again
            connection.watch(project, self)
        self.watch.start(project)
        self.files.refresh(project)
        self._images_seen = seen
        if seen[0] > 1:  # thumbnails of the others need the decoding child: start it now
            isolated.prestart(limits)
        self.project_opened.emit(project.describe())
        return project

    @staticmethod
    def _open_file(path: str | Path) -> tuple[Project, Limits, tuple[int, ...]]:
        # The window freezes no longer than ATTEMPT_S per attempt.
        project = Project.open(path, busy_timeout_s=undo.ATTEMPT_S)
        try:
            return project, project_limits(project), project.images.signature()
        except BaseException:
            project.close()
            raise

    def close(self) -> None:
        if self.project is not None:
            self.project_about_to_close.emit()
            self.watch.stop()
            self._missing.forget()
            self.rereads.clear()
            self.project.close()
            file_cache.close_connections()  # (kept for fetching the project's held files)
            self.project = None
            for service in (self.rating, self.annotate, self.review):
                service.reset()  # cached engines and undo histories belong to the project
            self.cache.clear()
            self.files.refresh(None)
            self.project_closed.emit()

    def create(self, path: str | Path) -> Project:
        """Create an empty project file at ``path`` and open it."""
        Project.create(path).close()
        return self.open(path)

    def relink(self, folder: str | Path, *, this_machine: bool = False) -> RelinkReport:
        """Find moved image files below ``folder`` (SHA-256 verified); see
        :func:`slicereview.app.images.relinking.relink` (``this_machine``: :func:`~slicereview.
        app.images.relinking.relink_here`, a server project's files on this machine only)."""
        from slicereview.app.images.relinking import relink, relink_here

        if this_machine:
            report = relink_here(self.open_project, folder)[0]
        else:
            report = relink(self.open_project, folder)
        self.images_changed.emit()
        return report

    # -- other writers -------------------------------------------------------------------------
    def hold_changes(self) -> None:
        """Hold the re-reads of :meth:`_on_changed_elsewhere` until :meth:`release_changes`:
        this window's own import worker commits every quarter second on its connection, and
        re-listing every image each time froze the window for seconds on a busy machine."""
        self._holding = True

    def release_changes(self) -> None:
        """Stop holding and re-read once (the import's last commit may not have been seen by
        the watch yet)."""
        self._holding = False
        self._on_changed_elsewhere()

    def _on_changed_elsewhere(self) -> None:
        """Drop cached engines and tell every view to re-read (images, sessions, annotations)."""
        if self._holding:
            return
        self.rating.forget_runs()
        self.changed_elsewhere.emit()
        seen = self.open_project.images.signature() if self.project else ()
        if seen != self._images_seen:  # re-listing images resets the browser: only if new
            self._images_seen = seen
            self.images_changed.emit()
        self.rating.sessions_changed.emit()

    # -- writes: the one undo path and the busy-file policy --------------------------------------
    def history(self) -> undo.CommandStack:
        """A new undo history that writes through :meth:`write` and reports here."""
        return undo.CommandStack(self.write, self._on_notice)

    def _on_notice(self, notice: undo.Notice) -> None:
        """After every attempt of a history: say a failure, then let the job that changed
        tell its views (they re-read the file, which waits while it is busy)."""
        if notice.message is not None:
            self.write_failed.emit(notice.message)
        kind, key = notice.command.changed
        service = {"session": self.rating, "annotation": self.annotate,
                   "review": self.review}.get(kind)
        if service is not None:
            self.settle(lambda: service.changed(key, notice.command))

    def write(self, write: Callable[[], T]) -> T:
        """Run one write of the project; while another program holds the file's lock, show
        :data:`~slicereview.app.undo.BUSY_MESSAGE` and retry
        (:func:`~slicereview.app.undo.retry_while_busy`, the one retry policy)."""
        try:
            return undo.retry_while_busy(write, is_busy=is_busy, on_wait=self._on_busy,
                                         ask=self.ask_retry, patience_s=self.busy_patience_s)
        except ConnectionLostError as exc:
            if not exc.may_retry:  # refused (nothing saved) or its fate not known yet: say so
                connection.given_up(self)
                if exc.saved is None:
                    connection.settle_later(self)
                raise
        # The server connection broke before anything was committed: the same intent again
        # (the store reconnects first, waiting as connection.wait_for_server says).
        return undo.retry_while_busy(write, is_busy=is_busy, on_wait=self._on_busy,
                                     ask=self.ask_retry, patience_s=self.busy_patience_s)

    def settle(self, read: Callable[[], object], *, _again: bool = False) -> bool:
        """Run ``read`` (views re-reading the file after a write), waiting up to
        :attr:`busy_patience_s` for another program's lock without asking. If the file stays
        busy the user is told so, and ``read`` runs again every second until it succeeds
        (the screen then matches the file again). A server that cannot be reached: ``read``
        runs when the connection is back (:func:`.connection.back`). Returns whether ``read``
        ran now."""
        try:
            undo.retry_while_busy(read, is_busy=is_busy, on_wait=self._on_busy,
                                  ask=lambda _m: False,
                                  patience_s=0.0 if _again else self.busy_patience_s)
        except ConnectionLostError:
            connection.later(self, read)
            return False
        except Exception as exc:
            if not is_busy(exc):
                raise
            if not _again:
                self.write_failed.emit("The project file is still busy (another program is "
                                       "writing it); the screen shows it again once it is "
                                       "free.")
            QTimer.singleShot(1000, self, lambda: self.is_open and self.settle(read,
                                                                              _again=True))
            return False
        return True

    def _on_busy(self, message: str) -> None:
        self.project_busy.emit(message)
        # Repaint (the message shows) but hold back the user's input: no second edit starts.
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)

    # -- images --------------------------------------------------------------------------------
    def images(self) -> list[Image]:
        if self.project is None:
            return []
        self._locator = Locator(self.project, self.credentials)  # (new PACS sources)
        return self.project.images.all()

    def refresh_locations(self) -> None:
        """Read again which images are on a PACS or held in the project (after an import)."""
        if self.project is not None:
            self._locator = Locator(self.project, self.credentials)

    def image(self, image_id: int) -> Image:
        return self.open_project.images.get(image_id)

    # -- the image list's reads (gui/common/image_rows.py: only what is on screen) --------------
    def image_ids(self, fmt: str | None = None) -> list[int]:
        """The image list's ids (a work package's in its order: app/qa/selection.py)."""
        from slicereview.app.qa.selection import in_package_order

        return in_package_order(self.project, self.project.images.ids(fmt)) \
            if self.project else []

    def image_formats(self) -> list[str]:
        return self.project.images.formats() if self.project else []

    def image_names(self) -> list[tuple[int, str, str]]:
        return self.project.images.names() if self.project else []

    def images_of(self, ids: Sequence[int]) -> list[Image]:
        return self.open_project.images.all(ids)

    def file_of(self, image: Image) -> Path | RemoteInstance | HeldFile:
        """Where ``image`` is read from: its file, for an image on a PACS the path-like
        :class:`~slicereview.engines.dicomweb.cache.RemoteInstance` (its cache file, fetched
        again in the decoding child when missing), for a file the project holds a
        :class:`~slicereview.app.images.file_cache.HeldFile` (fetched into the file cache)."""
        if self._locator is None or self._locator.project is not self.open_project:
            self._locator = Locator(self.open_project, self.credentials)
        return self._locator.file_of(image)

    def pacs_studies(self) -> dict[str, set[str]]:
        """The project's PACS addresses, most used first, with the studies imported from each
        (:func:`slicereview.app.images.pacs.imported_studies`); empty with no project."""
        from slicereview.app.images.pacs import imported_studies

        return imported_studies(self.project) if self.project else {}

    def _load(self, path: Path | RemoteInstance | HeldFile, image: Image) -> DisplayImage:
        # An image the import already decoded in the child is decoded here while its file is
        # still the imported one (no child start-up before the first image); any other goes
        # to the child, where an abort is harmless; a changed file is not decoded at all.
        return load_display(path, image, isolated=not self.files.check(image, path),
                            limits=self.limits, large_as_pyramid=True)

    def display(self, image: Image) -> DisplayImage:
        """Decoded pixels of ``image`` (cached). Raises imaging errors for unreadable files.

        Decoding runs in the child process of :mod:`slicereview.engines.imaging.isolated`
        (the project's files are untrusted input: a native decoder that aborts on a damaged
        file would otherwise end the program and lose the user's place). Measured on
        mammograms (4736 × 2624, 16 bit) the child costs no more than decoding in-process:
        docs/reliability.md has the figures."""
        return self.cache.get(self.file_of(image), image)

    def volume_images(self, image: Image) -> list[Image]:
        if self.project is None or not image.is_slice:
            return []
        return self.project.images.volume_slices(image.source_id, image.axis)

    def missing_files(self) -> list[str]:
        return [s.path for s in self.open_project.images.missing_sources()] if self.project else []

    def find_missing_files(self) -> None:
        """Look for missing files off the GUI thread (one SELECT here, one ``stat`` per file
        there); :attr:`missing_found` gives their stored paths."""
        self._missing.forget()
        if self.project is not None:
            self._missing.submit("missing", _missing, *self.project.images.local_files())

    # -- shared reads ---------------------------------------------------------------------------
    def questions(self, scope: str | None = None) -> list:
        """The classification questions asked now (``scope`` "image" or "polygon")."""
        return self.project.questions.all(scope) if self.project else []

    def guideline(self) -> tuple[int, str] | None:
        return self.project.guidelines.get() if self.project else None


def _missing(folder: str, stored: list[tuple[int, str]]) -> list[str]:
    """Worker thread: the stored paths whose file is not there."""
    return [path for _, path in missing_files(folder, stored)]
