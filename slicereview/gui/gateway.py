"""ProjectGateway: the only GUI object that talks to the project store.

Views never call the store directly; they call the session (or push an undo command that
calls it) and listen to its signals, which carry ids (DESIGN.md §4).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from slicereview.app import annotating
from slicereview.app import rating as _rating
from slicereview.app.commands import Changed, Command, RecordAnswer, RecordGrade, RemoveLastAnswer
from slicereview.app.errors import NoProjectError
from slicereview.app.importing import relink
from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.image_cache import ImageCache
from slicereview.gui.sharing import ProjectWatch
from slicereview.gui.undo import UndoCommand
from slicereview.model import (
    Annotation,
    AnnotationStatus,
    Image,
    Phase,
    Polygon,
    Question,
    Rater,
)
from slicereview.store import Project


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
    #: Another instance (or connection) changed the file: views re-read what they show.
    changed_elsewhere = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.cache = ImageCache(load_display)
        self._runs: _rating.RatingRuns | None = None
        #: The lock file and ``data_version`` watch (two instances on one file).
        self.watch = ProjectWatch(self)
        self.watch.changed_elsewhere.connect(self._on_changed_elsewhere)
        self._images_seen: list[tuple[int, str]] = []

    def _on_changed_elsewhere(self) -> None:
        """Drop cached engines and tell every view to re-read (images, sessions, annotations)."""
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
        return wrapper.error is None

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
                image_id = self.open_project.annotation(key).image_id
            except KeyError:
                return
            self.annotation_changed.emit(image_id, key)
        elif kind == "session":
            self.answer_recorded.emit(key)

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
        self.close()
        self.project = project
        self.watch.start(project)
        self._images_seen = [(im.id, im.path) for im in project.images()]
        self.project_opened.emit(str(project.path))
        return project

    def close(self) -> None:
        if self.project is not None:
            self.project_about_to_close.emit()
            self.watch.stop()
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

    def display(self, image: Image) -> DisplayImage:
        """Decoded pixels of ``image`` (cached). Raises imaging errors for unreadable files."""
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

    def annotation_batch(self, phase: Phase | str) -> list[int]:
        """The images annotators work through in ``phase`` (:func:`annotating.batch_images`)."""
        return annotating.batch_images(self.project, phase) if self.project else []

    def returned_annotations(self, rater_id: int) -> list:
        """The rater's rejected annotations not yet revised (``review_decisions.Returned``)."""
        from slicereview.app.review_decisions import returned_annotations

        return returned_annotations(self.project, rater_id) if self.project else []

    def review_notes(self, annotation: Annotation) -> tuple[object, list, int | None]:
        """A rejected annotation's decision, the pins on its image and its revision's round
        (``(None, [], None)`` when it was not rejected)."""
        from slicereview.model import Decision

        project = self.open_project
        decision = project.current_decisions([annotation.id]).get(annotation.id)
        if decision is None or decision.decision is not Decision.REJECT:
            return None, [], None
        pins = [r for r in project.reviews(image_id=annotation.image_id) if r.is_pin]
        revision = project.annotation_for(annotation.rater_id, annotation.image_id,
                                          annotation.phase, annotation.round + 1, create=False)
        return decision, pins, None if revision is None else revision.round

    def start_revision(self, annotation_id: int) -> int:
        """Start (or find) the revision of a rejected annotation; returns its id."""
        from slicereview.app.review_decisions import start_revision

        new_id = start_revision(self.open_project, annotation_id)
        self.notify(("annotation", new_id))
        return new_id

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
        """Store an answer through ``stack``; what to show next, or ``None`` if not saved (a
        stale pair — someone else answered it — drops the cached engine so the view can show
        the session's real next question)."""
        self.watch.check()
        command = RecordAnswer(self.rating(session_id), choice, active_ms, pair)
        if self.execute(stack, command):
            return command.result
        self._rating_runs().forget(session_id)
        return None

    def rate_grade(self, stack: QUndoStack, session_id: int, grade: int, active_ms: int,
                   image_id: int) -> _rating.Current | None:
        """Store a grade through ``stack``; what to show next, or ``None`` if not saved."""
        self.watch.check()
        command = RecordGrade(self.rating(session_id), grade, active_ms, image_id)
        if self.execute(stack, command):
            return command.result
        self._rating_runs().forget(session_id)
        return None

    def remove_last_answer(self, stack: QUndoStack, session_id: int) -> bool:
        """Delete the session's last stored answer or grade (undoable through ``stack``)."""
        self.watch.check()
        return self.execute(stack, RemoveLastAnswer(self.rating(session_id)))

    def export_ranking_csv(self, session_id: int, path: str | Path) -> int:
        """Write the session's ranking as ``slicereview ranking --csv`` does; returns rows."""
        return _rating.write_ranking_csv(Path(path), self.rating(session_id).rows())

    def reliability(self, session_ids: list[int], randomisations: int = 100
                    ) -> _rating.ReliabilityReport:
        return _rating.reliability([self.rating(s).session_scores() for s in session_ids],
                                   randomisations=randomisations)
