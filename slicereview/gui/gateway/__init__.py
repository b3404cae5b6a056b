"""ProjectGateway: the GUI's one way into the open project.

Views never call the store or the application layer directly; they call the gateway (or ask it
to execute an undoable command of :mod:`slicereview.app.commands`) and listen to its signals,
which carry ids (docs/design.md, "Data paths"). The gateway holds no domain rule: those live in the
application layer. Its methods are grouped by job in mixins (:mod:`.annotate`,
:mod:`.rating`, :mod:`.review`); every signal is declared here, on the QObject.
Calls that need an open project raise :class:`~slicereview.app.errors.NoProjectError` when none
is open; calls that only read answer "nothing" (an empty list, ``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from slicereview.app.errors import NoProjectError
from slicereview.app.images.limits import ImportedFiles, project_limits
from slicereview.app.images.pacs import Credentials, Locator
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.common.image_cache import ImageCache
from slicereview.gui.gateway import busy
from slicereview.gui.gateway.annotate import AnnotateGateway
from slicereview.gui.gateway.owner import OwnerGateway
from slicereview.gui.gateway.qa import QAGateway
from slicereview.gui.gateway.rating import RatingGateway
from slicereview.gui.gateway.review import ReviewGateway
from slicereview.gui.gateway.sharing import ProjectWatch
from slicereview.gui.gateway.undo import UndoCommand
from slicereview.model import (
    Image,
)
from slicereview.store import Project
from slicereview.store.connection import is_busy

if TYPE_CHECKING:
    from slicereview.app.commands import Changed, Command
    from slicereview.app.rating import sessions as _rating
    from slicereview.engines.dicomweb.cache import RemoteInstance

T = TypeVar("T")


class ProjectGateway(AnnotateGateway, RatingGateway, ReviewGateway, QObject):
    project_opened = Signal(str)
    project_closed = Signal()
    #: Images were added or relinked; views re-read the image list.
    images_changed = Signal()
    #: Emitted by :meth:`close` while the project is still open (pages commit pending work).
    project_about_to_close = Signal()
    # -- annotation signals (annotate page) --
    #: An annotation's polygons, status, time or classifications changed: (image id, annotation id).
    annotation_changed = Signal(int, int)
    #: Raters were added.
    raters_changed = Signal()
    #: A write was refused (disk full, file locked or read-only): a message for the user.
    write_failed = Signal(str)
    #: A write waits for another program's lock on the file: the message ("" when over).
    project_busy = Signal(str)
    #: Another instance (or connection) changed the file: views re-read what they show.
    changed_elsewhere = Signal()
    #: An answer or grade of a rating session was stored or undone; carries the session id.
    answer_recorded = Signal(int)
    #: Rating sessions were created; lists re-read them.
    rating_sessions_changed = Signal()
    #: A decision or pin of an image was stored or undone; carries the image id.
    review_changed = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.limits = DEFAULT_LIMITS
        self.cache = ImageCache(self._load)
        #: Whether each file is still the one imported (checked before any decode).
        self.files = ImportedFiles()
        self.images_changed.connect(lambda: self.files.refresh(self.project))
        self._runs: _rating.RatingRuns | None = None
        #: Asked Retry (True) / Cancel after :data:`busy.PATIENCE_S` of a busy file; the
        #: main window shows a dialog, without one a write gives up.
        self.ask_retry: Callable[[str], bool] = lambda message: False
        self.busy_patience_s = busy.PATIENCE_S
        self.qa = QAGateway(self)  # the owner's QA reads (gui/gateway/qa.py)
        self.owner = OwnerGateway(self)  # batches, gold, pre-filter, guidelines
        #: The lock file and ``data_version`` watch (two instances on one file).
        self.watch = ProjectWatch(self)
        self.watch.changed_elsewhere.connect(self._on_changed_elsewhere)
        self._images_seen: list[tuple[int, str]] = []
        self._holding = False  # True while this window's own import runs (hold_changes)
        #: Why the last :meth:`execute` failed (``None``: it did not).
        self.last_error: Exception | None = None
        #: Credentials of PACS servers, in memory for this session only (app/images/pacs.py).
        self.credentials = Credentials()
        self._locator: Locator | None = None

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
        if self._runs is not None:
            self._runs.forget()
        self.changed_elsewhere.emit()
        images = [(im.id, im.path) for im in self.images()]
        if images != self._images_seen:  # re-listing images resets the browser: only if new
            self._images_seen = images
            self.images_changed.emit()
        self.rating_sessions_changed.emit()

    @property
    def open_project(self) -> Project:
        """The open project; :class:`NoProjectError` when none is open."""
        if self.project is None:
            raise NoProjectError("no project is open: open or create one first (File menu)")
        return self.project

    # -- commands (the one undo path) --------------------------------------------------------
    def execute(self, stack: QUndoStack, command: Command) -> bool:
        """Apply ``command`` through ``stack`` (``push`` runs it). Returns ``False`` when the
        write failed: the command is then not on the stack and :attr:`write_failed` has told
        the user why."""
        self.watch.check()  # (commands built from a cached engine re-check their pair)
        wrapper = UndoCommand(self, command)
        stack.push(wrapper)
        self.last_error = wrapper.error
        return wrapper.error is None

    def write(self, write: Callable[[], T]) -> T:
        """Run one write of the project; while another program holds the file's lock, show
        :data:`busy.MESSAGE` and retry (:func:`busy.retry_while_busy`, the one retry
        policy; every command goes through here)."""
        return busy.retry_while_busy(write, is_busy=is_busy, on_wait=self._on_busy,
                                     ask=self.ask_retry, patience_s=self.busy_patience_s)

    def settle(self, read: Callable[[], object], *, _again: bool = False) -> bool:
        """Run ``read`` (views re-reading the file after a write), waiting up to
        :attr:`busy_patience_s` for another program's lock without asking. If the file stays
        busy the user is told so, and ``read`` runs again every second until it succeeds
        (the screen then matches the file again). Returns whether ``read`` ran now."""
        try:
            busy.retry_while_busy(read, is_busy=is_busy, on_wait=self._on_busy,
                                  ask=lambda _m: False,
                                  patience_s=0.0 if _again else self.busy_patience_s)
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

    def notify(self, changed: Changed, run: object = None) -> None:
        """Emit the signal for what a command changed (views re-read it). ``run``: the rating
        engine the command wrote through; when it is not the one kept for that session (it was
        dropped after a change elsewhere), the kept one is dropped too and re-reads the file."""
        kind, key = changed
        if self.project is None:
            return
        if kind == "session" and run is not None and self._runs is not None and \
                self._runs.cached(key) is not run:
            self._runs.forget(key)
        if kind == "annotation":
            try:
                image_id = self.open_project.annotations.get(key).image_id
            except KeyError:
                return
            self.annotation_changed.emit(image_id, key)
        elif kind == "session":
            self.answer_recorded.emit(key)
        elif kind == "review":
            self.review_changed.emit(key)

    def report_failure(self, command: Command, exc: Exception) -> None:
        self.write_failed.emit(f"{command.text} was not saved: {exc}")

    def create(self, path: str | Path) -> Project:
        """Create an empty project file at ``path`` and open it."""
        Project.create(path).close()
        return self.open(path)

    def relink(self, folder: str | Path) -> object:
        """Find moved image files below ``folder`` (SHA-256 verified); see
        :func:`slicereview.app.images.relinking.relink`."""
        from slicereview.app.images.relinking import relink

        report = relink(self.open_project, folder)
        self.images_changed.emit()
        return report

    def images_added(self) -> None:
        """Another connection (an import worker) added images: views re-read them."""
        self.images_changed.emit()

    @property
    def is_open(self) -> bool:
        return self.project is not None

    def open(self, path: str | Path) -> Project:
        """Open ``path`` (closing the current project first). Raises ProjectError subclasses.

        While another program commits to the file (it holds the file's lock), opening waits as
        a busy write does (:meth:`write`: the busy message, Retry / Cancel after the patience);
        a journal of its transaction in progress is never taken for damage (store/locks.py).
        A work package zip is unpacked before it gets here: by ``slicereview open`` and, in a
        worker, by File ▸ Open project… (app/packages.unpack)."""
        project, limits, images = self.write(lambda: self._open_file(path))
        self.close()
        self.project = project
        self.limits = limits  # what `import --max-...` admitted
        self.watch.start(project)
        self.files.refresh(project)
        self._images_seen = images
        if len(images) > 1:  # thumbnails of the others need the decoding child: start it now
            isolated.prestart(limits)
        self.project_opened.emit(project.describe())
        return project

    @staticmethod
    def _open_file(path: str | Path) -> tuple[Project, Limits, list[tuple[int, str]]]:
        # The window freezes no longer than busy.ATTEMPT_S per attempt.
        project = Project.open(path, busy_timeout_s=busy.ATTEMPT_S)
        try:
            return (project, project_limits(project),
                    [(im.id, im.path) for im in project.images.all()])
        except BaseException:
            project.close()
            raise

    def close(self) -> None:
        if self.project is not None:
            self.project_about_to_close.emit()
            self.watch.stop()
            self.project.close()
            self.project = None
            self._runs = None
            self.cache.clear()
            self.files.refresh(None)
            self.project_closed.emit()

    # -- images ----------------------------------------------------------------------------
    def images(self) -> list[Image]:
        if self.project is None:
            return []
        self._locator = Locator(self.project, self.credentials)  # (new PACS sources)
        return self.project.images.all()

    def image(self, image_id: int) -> Image:
        return self.open_project.images.get(image_id)

    def file_of(self, image: Image) -> Path | RemoteInstance:
        """Where ``image`` is read from: its file, or for an image on a PACS the path-like
        :class:`~slicereview.engines.dicomweb.cache.RemoteInstance` (its cache file, fetched
        again in the decoding child when missing)."""
        if self._locator is None or self._locator.project is not self.open_project:
            self._locator = Locator(self.open_project, self.credentials)
        return self._locator.file_of(image)

    def check_file(self, image: Image, path: Path) -> bool:
        """Raise :class:`~slicereview.app.images.limits.FileChangedError` when the file of
        ``image`` changed since its import; else whether it may be decoded in this process
        (thread-safe: workers call it before they decode)."""
        return self.files.check(image, path)

    def _load(self, path: Path, image: Image) -> DisplayImage:
        # An image the import already decoded in the child is decoded here while its file is
        # still the imported one (no child start-up before the first image); any other goes
        # to the child, where an abort is harmless; a changed file is not decoded at all.
        return load_display(path, image, isolated=not self.check_file(image, path),
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
