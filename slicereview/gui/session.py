"""ProjectSession: the only GUI object that talks to the project store.

Views never call the store directly; they call the session (or push an undo command that
calls it) and listen to its signals, which carry ids (DESIGN.md §4).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from slicereview.core.imaging.display import DisplayImage
from slicereview.core.imaging.loader import load_display
from slicereview.core.model import AnnotationStatus, Image, Phase, Polygon, Rater, Role
from slicereview.core.store import Project
from slicereview.core.store.annotations import Annotation, Question
from slicereview.gui import rating_support as _rating
from slicereview.gui.image_cache import ImageCache


class ProjectSession(QObject):
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

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.cache = ImageCache(load_display)

    @property
    def is_open(self) -> bool:
        return self.project is not None

    def open(self, path: str | Path) -> Project:
        """Open ``path`` (closing the current project first). Raises ProjectError subclasses."""
        project = Project.open(path)
        self.close()
        self.project = project
        self.project_opened.emit(str(project.path))
        return project

    def close(self) -> None:
        if self.project is not None:
            self.project_about_to_close.emit()
            self.project.close()
            self.project = None
            self.cache.clear()
            self.project_closed.emit()

    # -- images ----------------------------------------------------------------------------
    def images(self) -> list[Image]:
        return self.project.images() if self.project else []

    def image(self, image_id: int) -> Image:
        assert self.project is not None
        return self.project.image(image_id)

    def file_of(self, image: Image) -> Path:
        assert self.project is not None
        return self.project.resolve(image.path)

    def display(self, image: Image) -> DisplayImage:
        """Decoded pixels of ``image`` (cached). Raises imaging errors for unreadable files."""
        return self.cache.get(self.file_of(image), image)

    def volume_images(self, image: Image) -> list[Image]:
        if self.project is None or not image.is_slice:
            return []
        return self.project.volume_images(image.source_id, image.axis)

    def missing_files(self) -> list[str]:
        return [s.path for s in self.project.missing_sources()] if self.project else []

    # -- annotations (annotate page) -------------------------------------------------------
    # One store transaction per call; every write emits annotation_changed(image, annotation).
    def annotators(self) -> list[Rater]:
        """Raters with role annotator, people first, simulated ones last."""
        if self.project is None:
            return []
        found = [r for r in self.project.raters() if r.role is Role.ANNOTATOR]
        return sorted(found, key=lambda r: (r.simulated, r.name.lower()))

    def add_annotator(self, name: str) -> int:
        """Create an annotator (or return the existing rater of that name)."""
        assert self.project is not None
        name = name.strip()
        if not name:
            raise ValueError("an annotator needs a name")
        rater_id = self.project.ensure_rater(name, Role.ANNOTATOR)
        self.raters_changed.emit()
        return rater_id

    def annotation_for(self, rater_id: int, image_id: int, phase: Phase | str, round: int,
                       *, create: bool = False) -> Annotation | None:
        assert self.project is not None
        return self.project.annotation_for(rater_id, image_id, phase, round, create=create)

    def annotation(self, annotation_id: int) -> Annotation:
        assert self.project is not None
        return self.project.annotation(annotation_id)

    def polygons(self, annotation_id: int) -> list[Polygon]:
        assert self.project is not None
        return self.project.polygons(annotation_id)

    def add_polygon(self, annotation_id: int, polygon: Polygon, position: int | None = None
                    ) -> int:
        assert self.project is not None
        new_id = self.project.add_polygon(annotation_id, polygon, position)
        self._annotation_edited(annotation_id)
        return new_id

    def update_polygon(self, annotation_id: int, polygon: Polygon) -> None:
        assert self.project is not None and polygon.id is not None
        self.project.update_polygon(polygon.id, polygon)
        self._annotation_edited(annotation_id)

    def delete_polygon(self, annotation_id: int, polygon_id: int) -> int:
        assert self.project is not None
        position = self.project.delete_polygon(polygon_id)
        self._annotation_edited(annotation_id)
        return position

    def set_annotation_status(self, annotation_id: int, status: AnnotationStatus | str) -> None:
        assert self.project is not None
        self.project.set_annotation_status(annotation_id, status)
        self._emit_annotation(annotation_id)

    def add_active_time(self, annotation_id: int, ms: int) -> int:
        assert self.project is not None
        total = self.project.add_active_time(annotation_id, ms)
        self._emit_annotation(annotation_id)
        return total

    def set_image_classifications(self, annotation_id: int, answers: dict) -> None:
        assert self.project is not None
        self.project.set_image_classifications(annotation_id, answers)
        self._emit_annotation(annotation_id)

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

    def _annotation_edited(self, annotation_id: int) -> None:
        """An edit of a submitted annotation reopens it: it must be submitted again."""
        assert self.project is not None
        if self.project.annotation(annotation_id).status is AnnotationStatus.SUBMITTED:
            self.project.set_annotation_status(annotation_id, AnnotationStatus.IN_PROGRESS)
        self._emit_annotation(annotation_id)

    def _emit_annotation(self, annotation_id: int) -> None:
        assert self.project is not None
        self.annotation_changed.emit(self.project.annotation(annotation_id).image_id,
                                     annotation_id)

    # -- rating (Rate page) ----------------------------------------------------------------
    # Rating sessions are open RatingSession engines (answers in memory, one transaction per
    # answer); the logic lives in gui/rating_support.py so this class stays a thin gateway.
    #: An answer or grade of a rating session was stored or undone; carries the session id.
    answer_recorded = Signal(int)
    #: Rating sessions were created; lists re-read them.
    rating_sessions_changed = Signal()

    def rating(self, session_id: int) -> _rating.RatingSession:
        """The open engine of a rating session (kept while the project is open)."""
        assert self.project is not None
        return _rating.engine(self, session_id)

    def rating_overview(self) -> list[_rating.SessionSummary]:
        return _rating.overview(self) if self.project else []

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
        assert self.project is not None
        session_id = _rating.create_session(self.project, spec)
        self.rating_sessions_changed.emit()
        return session_id

    def second_pass(self, session_id: int) -> int:
        """A new sort session of the same rater, images and settings in a new random order."""
        assert self.project is not None
        new_id = _rating.second_pass(self.project, session_id)
        self.rating_sessions_changed.emit()
        return new_id

    def rate_answer(self, session_id: int, choice: str, active_ms: int,
                    pair: tuple[int, int]) -> _rating.Current:
        now = self.rating(session_id).answer(choice, active_ms, pair=pair)
        self.answer_recorded.emit(session_id)
        return now

    def rate_grade(self, session_id: int, grade: int, active_ms: int,
                   image_id: int) -> _rating.Current:
        now = self.rating(session_id).grade(grade, active_ms, image_id=image_id)
        self.answer_recorded.emit(session_id)
        return now

    def rate_undo(self, session_id: int) -> object:
        """Delete the session's last answer (or grade); returns it, or ``None``."""
        removed = self.rating(session_id).undo()
        if removed is not None:
            self.answer_recorded.emit(session_id)
        return removed

    def export_ranking_csv(self, session_id: int, path: str | Path) -> int:
        """Write the session's ranking as ``slicereview ranking --csv`` does; returns rows."""
        return _rating.write_ranking_csv(Path(path), self.rating(session_id).rows())

    def reliability(self, session_ids: list[int], randomisations: int = 100
                    ) -> _rating.ReliabilityReport:
        return _rating.reliability([self.rating(s).session_scores() for s in session_ids],
                                   randomisations=randomisations)
