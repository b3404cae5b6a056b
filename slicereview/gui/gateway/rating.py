"""The gateway's rating methods (a mixin of ProjectGateway; the rules are in
:mod:`slicereview.app.rating.sessions`).

The rating modules (ranking engines, reliability statistics, commands) are imported on the
first use of the Rate tab, not before the main window's first paint.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoStack

from slicereview.model import Session
from slicereview.store import Project

if TYPE_CHECKING:
    from slicereview.app.rating import pooled as _pooled
    from slicereview.app.rating import sessions as _rating


class RatingGateway:
    """Methods of :class:`~slicereview.gui.gateway.ProjectGateway` for the Rate tab."""

    project: Project | None
    open_project: Project

    # -- rating (Rate page) ----------------------------------------------------------------
    # Rating sessions are open RatingRun engines (answers in memory, one transaction per
    # answer), kept by slicereview.app.rating.sessions.RatingRuns while the project is open.

    def _rating_runs(self) -> _rating.RatingRuns:
        from slicereview.app.rating.sessions import RatingRuns

        if self._runs is None or self._runs.project is not self.open_project:
            self._runs = RatingRuns(self.open_project)
        return self._runs

    def rating(self, session_id: int) -> _rating.RatingRun:
        """The open engine of a rating session (kept while the project is open)."""
        return self._rating_runs().run(session_id)

    def set_acting_rater(self, session_id: int, rater_id: int) -> None:
        """Answer a shared confidence session as ``rater_id`` in this window."""
        self._rating_runs().set_acting_rater(session_id, rater_id)

    def acting_rater(self, session_id: int) -> int | None:
        return self._rating_runs().acting_rater(session_id)

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
        from slicereview.app.rating.sessions import start_session

        session_id = start_session(self.open_project, spec)
        self.rating_sessions_changed.emit()
        return session_id

    def second_pass(self, session_id: int) -> int:
        """A new sort session of the same rater, images and settings in a new random order."""
        from slicereview.app.rating.sessions import second_pass

        new_id = second_pass(self.open_project, session_id)
        self.rating_sessions_changed.emit()
        return new_id

    def rate_answer(self, stack: QUndoStack, session_id: int, choice: str, active_ms: int,
                    pair: tuple[int, int]) -> _rating.Current | None:
        """Store an answer through ``stack``; what to show next, or ``None`` if not saved (a
        stale pair — someone else answered it — drops the cached engine so the view can show
        the session's real next comparison)."""
        from slicereview.app.commands import RecordAnswer

        self.watch.check()
        command = RecordAnswer(self.rating(session_id), choice, active_ms, pair)
        if self.execute(stack, command):
            return command.result
        self._rating_runs().forget(session_id)
        return None

    def rate_grade(self, stack: QUndoStack, session_id: int, grade: int, active_ms: int,
                   image_id: int) -> _rating.Current | None:
        """Store a grade through ``stack``; what to show next, or ``None`` if not saved."""
        from slicereview.app.commands import RecordGrade

        self.watch.check()
        command = RecordGrade(self.rating(session_id), grade, active_ms, image_id)
        if self.execute(stack, command):
            return command.result
        self._rating_runs().forget(session_id)
        return None

    def remove_last_answer(self, stack: QUndoStack, session_id: int) -> bool:
        """Delete the session's last stored answer or grade (undoable through ``stack``)."""
        from slicereview.app.commands import RemoveLastAnswer

        self.watch.check()
        return self.execute(stack, RemoveLastAnswer(self.rating(session_id)))

    def export_ranking_csv(self, session_id: int, path: str | Path) -> int:
        """Write the session's ranking as ``slicereview ranking --csv`` does; returns rows."""
        from slicereview.app.rating.sessions import write_ranking_csv

        return write_ranking_csv(Path(path), self.rating(session_id).rows())

    def pairwise_sessions(self) -> dict[int, list[tuple[Session, str]]]:
        """Pairwise (sort, exhaustive, confidence) sessions with their rater's name, by image set
        id (the pooled ranking's choices)."""
        from slicereview.app.rating.pooled import pairwise_sessions

        if self.project is None:
            return {}
        raters = {r.id: r.name for r in self.project.raters()}
        return {k: [(s, raters.get(s.rater_id, "?")) for s in v]
                for k, v in pairwise_sessions(self.project).items()}

    def pooled_input(self, session_ids: list[int]) -> _pooled.PooledInput:
        """What the pooled ranking of ``session_ids`` is computed from (read here, in the GUI
        thread; :func:`slicereview.app.rating.pooled.rank_pooled` can then run in a worker)."""
        from slicereview.app.rating.pooled import gather

        return gather(self.open_project, session_ids)

    def reliability(self, session_ids: list[int], randomisations: int = 100
                    ) -> _rating.ReliabilityReport:
        from slicereview.app.rating.sessions import reliability

        return reliability([self.rating(s).session_scores() for s in session_ids],
                           randomisations=randomisations)
