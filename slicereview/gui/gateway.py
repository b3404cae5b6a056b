"""ProjectGateway: the only GUI object that talks to the project store.

Views never call the store directly; they call the session (or push an undo command that
calls it) and listen to its signals, which carry ids (DESIGN.md §4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from slicereview.app import annotating, review_commands, review_image, review_queue
from slicereview.app import rating as _rating
from slicereview.app.commands import Changed, Command, RecordAnswer, RecordGrade, RemoveLastAnswer
from slicereview.app.errors import NoProjectError
from slicereview.app.importing import project_limits, relink
from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.limits import DEFAULT_LIMITS
from slicereview.engines.imaging.loader import load_display
from slicereview.gui import busy
from slicereview.gui.gateway_qa import QAGateway
from slicereview.gui.image_cache import ImageCache
from slicereview.gui.undo import UndoCommand
from slicereview.model import (
    Annotation,
    AnnotationStatus,
    Image,
    Phase,
    Polygon,
    Question,
    Rater,
    Role,
)
from slicereview.store import Project
from slicereview.store.connection import is_busy

T = TypeVar("T")


class ProjectGateway(QObject):
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

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.limits = DEFAULT_LIMITS
        self.cache = ImageCache(self._load)
        self._runs: _rating.RatingRuns | None = None
        #: Asked Retry (True) / Cancel after :data:`busy.PATIENCE_S` of a busy file; the
        #: main window shows a dialog, without one a write gives up.
        self.ask_retry: Callable[[str], bool] = lambda message: False
        self.busy_patience_s = busy.PATIENCE_S
        self.qa = QAGateway(self)  # the owner's QA reads (gui/gateway_qa.py)

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
        wrapper = UndoCommand(self, command)
        stack.push(wrapper)
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

    def notify(self, changed: Changed) -> None:
        """Emit the signal for what a command changed (views re-read it)."""
        kind, key = changed
        if self.project is None:
            return
        if kind == "annotation":
            try:
                image_id = self.open_project.annotation(key).image_id
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
        :func:`slicereview.app.importing.relink`."""
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
        """Open ``path`` (closing the current project first). Raises ProjectError subclasses."""
        project = Project.open(path)
        project.set_busy_timeout(busy.ATTEMPT_S)  # the window freezes no longer than this
        self.close()
        self.project = project
        self.limits = project_limits(project)  # what `import --max-...` admitted
        self.project_opened.emit(str(project.path))
        return project

    def close(self) -> None:
        if self.project is not None:
            self.project_about_to_close.emit()
            self.project.close()
            self.project = None
            self._runs = None
            self.cache.clear()
            self.project_closed.emit()

    # -- images ----------------------------------------------------------------------------
    def images(self) -> list[Image]:
        return self.project.images() if self.project else []

    def image(self, image_id: int) -> Image:
        return self.open_project.image(image_id)

    def file_of(self, image: Image) -> Path:
        return self.open_project.resolve(image.path)

    def _load(self, path: Path, image: Image) -> DisplayImage:
        return load_display(path, image, isolated=True, limits=self.limits)

    def display(self, image: Image) -> DisplayImage:
        """Decoded pixels of ``image`` (cached). Raises imaging errors for unreadable files.

        Decoding runs in the child process of :mod:`slicereview.engines.imaging.isolated`
        (the project's files are untrusted input: a native decoder that aborts on a damaged
        file would otherwise end the program and lose the user's place). Measured on
        mammograms (4736 × 2624, 16 bit) the child costs no more than decoding in-process:
        the README's Reliability section has the figures."""
        return self.cache.get(self.file_of(image), image)

    def volume_images(self, image: Image) -> list[Image]:
        if self.project is None or not image.is_slice:
            return []
        return self.project.volume_images(image.source_id, image.axis)

    def missing_files(self) -> list[str]:
        return [s.path for s in self.open_project.missing_sources()] if self.project else []

    # -- annotations (annotate page) -------------------------------------------------------
    # Writes are undoable commands (see :meth:`execute`) except active time; the rules are in
    # slicereview.app.annotating. Every write emits annotation_changed(image, annotation).
    def annotators(self) -> list[Rater]:
        """Raters with role annotator, people first, simulated ones last."""
        return annotating.annotators(self.project) if self.project else []

    def add_annotator(self, name: str) -> int:
        """Create an annotator (or return the existing rater of that name)."""
        rater_id = annotating.add_annotator(self.open_project, name)
        self.raters_changed.emit()
        return rater_id

    def annotation_for(self, rater_id: int, image_id: int, phase: Phase | str, round: int,
                       *, create: bool = False) -> Annotation | None:
        return self.open_project.annotation_for(rater_id, image_id, phase, round, create=create)

    def annotation(self, annotation_id: int) -> Annotation:
        return self.open_project.annotation(annotation_id)

    def polygons(self, annotation_id: int) -> list[Polygon]:
        return self.open_project.polygons(annotation_id)

    def add_active_time(self, annotation_id: int, ms: int) -> int:
        total = self.open_project.add_active_time(annotation_id, ms)
        self.notify(("annotation", annotation_id))
        return total

    def annotation_statuses(self, rater_id: int, phase: Phase | str, round: int
                            ) -> dict[int, AnnotationStatus]:
        """``{image id: status}`` of one annotator's annotations in a phase and round."""
        if self.project is None:
            return {}
        found = self.project.annotations(rater_id=rater_id, phase=phase, round=round)
        return {a.image_id: a.status for a in found}

    def questions(self, scope: str | None = None) -> list[Question]:
        return self.project.questions(scope) if self.project else []

    def guideline(self) -> tuple[int, str] | None:
        return self.project.guideline() if self.project else None

    # -- rating (Rate page) ----------------------------------------------------------------
    # Rating sessions are open RatingRun engines (answers in memory, one transaction per
    # answer), kept by slicereview.app.rating.RatingRuns while the project is open.
    #: An answer or grade of a rating session was stored or undone; carries the session id.
    answer_recorded = Signal(int)
    #: Rating sessions were created; lists re-read them.
    rating_sessions_changed = Signal()

    def _rating_runs(self) -> _rating.RatingRuns:
        if self._runs is None or self._runs.project is not self.open_project:
            self._runs = _rating.RatingRuns(self.open_project)
        return self._runs

    def rating(self, session_id: int) -> _rating.RatingRun:
        """The open engine of a rating session (kept while the project is open)."""
        return self._rating_runs().run(session_id)

    def rating_overview(self) -> list[_rating.SessionSummary]:
        return self._rating_runs().overview() if self.project else []

    def rating_image_sets(self) -> list[tuple[int, str, int]]:
        """``(id, name, number of images)`` of every image set."""
        if self.project is None:
            return []
        return [(i, name, len(self.project.image_set(i)))
                for i, name in self.project.image_sets().items()]

    def rater_names(self) -> list[str]:
        """Raters for a new session: people first, simulated raters last."""
        raters = self.project.raters() if self.project else []
        return [r.name for r in sorted(raters, key=lambda r: (r.simulated, r.name.lower()))]

    def create_rating_session(self, spec: _rating.NewSessionSpec) -> int:
        session_id = _rating.start_session(self.open_project, spec)
        self.rating_sessions_changed.emit()
        return session_id

    def second_pass(self, session_id: int) -> int:
        """A new sort session of the same rater, images and settings in a new random order."""
        new_id = _rating.second_pass(self.open_project, session_id)
        self.rating_sessions_changed.emit()
        return new_id

    def rate_answer(self, stack: QUndoStack, session_id: int, choice: str, active_ms: int,
                    pair: tuple[int, int]) -> _rating.Current | None:
        """Store an answer through ``stack``; what to show next, or ``None`` if not saved."""
        command = RecordAnswer(self.rating(session_id), choice, active_ms, pair)
        return command.result if self.execute(stack, command) else None

    def rate_grade(self, stack: QUndoStack, session_id: int, grade: int, active_ms: int,
                   image_id: int) -> _rating.Current | None:
        """Store a grade through ``stack``; what to show next, or ``None`` if not saved."""
        command = RecordGrade(self.rating(session_id), grade, active_ms, image_id)
        return command.result if self.execute(stack, command) else None

    def remove_last_answer(self, stack: QUndoStack, session_id: int) -> bool:
        """Delete the session's last stored answer or grade (undoable through ``stack``)."""
        return self.execute(stack, RemoveLastAnswer(self.rating(session_id)))

    def export_ranking_csv(self, session_id: int, path: str | Path) -> int:
        """Write the session's ranking as ``slicereview ranking --csv`` does; returns rows."""
        return _rating.write_ranking_csv(Path(path), self.rating(session_id).rows())

    def reliability(self, session_ids: list[int], randomisations: int = 100
                    ) -> _rating.ReliabilityReport:
        return _rating.reliability([self.rating(s).session_scores() for s in session_ids],
                                   randomisations=randomisations)

    # -- review (Review page) --------------------------------------------------------------
    # Decisions and pins are undoable commands of slicereview.app.review_commands; settings
    # of the review job (reviewer, queue position, budget, filters) live in the project's meta
    # under "review." keys, so they travel with the file and come back on reopen.
    #: A decision or pin of an image was stored or undone; carries the image id.
    review_changed = Signal(int)

    def reviewers(self) -> list[Rater]:
        """Raters with the reviewer role, by name."""
        raters = self.project.raters() if self.project else []
        return sorted((r for r in raters if r.role is Role.REVIEWER), key=lambda r: r.name.lower())

    def add_reviewer(self, name: str) -> int:
        """Create a reviewer; a rater of that name must not exist with another role."""
        name = name.strip()
        if not name:
            raise ValueError("A reviewer needs a name.")
        existing = self.open_project.rater_by_name(name)
        if existing is not None:
            if existing.role is not Role.REVIEWER:
                raise ValueError(f"{name!r} is already a rater with role {existing.role}.")
            return existing.id
        rater_id = self.open_project.add_rater(name, Role.REVIEWER)
        self.raters_changed.emit()
        return rater_id

    def annotator_groups(self) -> list[str]:
        raters = self.project.raters() if self.project else []
        return sorted({r.group for r in raters if r.group and r.role is Role.ANNOTATOR})

    def review_setting(self, key: str, default: str | None = None) -> str | None:
        return self.project.meta(f"review.{key}", default) if self.project else default

    def set_review_setting(self, key: str, value: object) -> None:
        """Remember a review setting in the project (one small transaction)."""
        if self.project is not None and self.project.meta(f"review.{key}") != str(value):
            self.project.set_meta(f"review.{key}", str(value))

    def review_rows(self, spec: review_queue.QueueSpec, result: review_queue.QueueResult
                    ) -> list[review_queue.QueueRow]:
        """The ranked queue from computed features (statuses read now)."""
        return review_queue.queue(self.open_project, spec, result)

    def review_image(self, image_id: int, annotation_ids: tuple[int, ...]
                     ) -> review_image.ReviewImage:
        return review_image.review_image(self.open_project, image_id, annotation_ids)

    @staticmethod
    def load_review_image(project_path: str | Path, image_id: int,
                          annotation_ids: tuple[int, ...]) -> review_image.ReviewImage:
        """:meth:`review_image` for a worker thread, through its own connection (SQLite
        connections belong to the thread that opened them)."""
        with Project.open(project_path) as project:
            return review_image.review_image(project, image_id, annotation_ids)

    def review_status(self, annotation_ids: tuple[int, ...]) -> str:
        decided = self.open_project.current_decisions(annotation_ids)
        return review_queue.review_status(len(decided), len(annotation_ids))

    def decide(self, stack: QUndoStack, reviewer_id: int, annotation_id: int, decision: str,
               tags: tuple[str, ...] = (), note: str = "", active_ms: int = 0) -> bool:
        text = {"accept": "Accept", "reject": "Reject",
                "expert_review": "Expert review"}.get(decision, "Decision")
        return self.execute(stack, review_commands.Decide(
            self.open_project, reviewer_id, annotation_id, decision, tuple(tags), note,
            active_ms, text=f"{text} annotation"))

    def add_pin(self, stack: QUndoStack, reviewer_id: int, image_id: int, note: str,
                tags: tuple[str, ...] = (), *, box: tuple[float, float, float, float] | None
                = None, point: tuple[float, float] | None = None) -> bool:
        return self.execute(stack, review_commands.AddPin(
            self.open_project, reviewer_id, image_id, note, tuple(tags), box, point))

    def accept_all(self, stack: QUndoStack, reviewer_id: int, image_id: int,
                   annotation_ids: tuple[int, ...], active_ms: int = 0) -> bool:
        return self.execute(stack, review_commands.AcceptAll(
            self.open_project, reviewer_id, image_id, annotation_ids, active_ms=active_ms))
