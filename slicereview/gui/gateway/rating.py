"""The gateway's rating service, ``gateway.rating`` (the rules are in
:mod:`slicereview.app.rating.sessions`).

Rating sessions are open :class:`~slicereview.app.rating.run.RatingRun` engines (answers in
memory, one transaction per answer), kept by :class:`~slicereview.app.rating.sessions.
RatingRuns` while the project is open, each with its undo history. The rating modules (ranking
engines, reliability statistics, commands) are imported on the first use of the Rate tab, not
before the main window's first paint.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal

from slicereview.gui.gateway.service import Service
from slicereview.model import Session

if TYPE_CHECKING:
    from slicereview.app.commands import Command, RecordAnswer, RecordGrade
    from slicereview.app.rating import pooled as _pooled
    from slicereview.app.rating import sessions as _rating
    from slicereview.app.undo import CommandStack
    from slicereview.gui.gateway import ProjectGateway


class RatingService(Service):
    """Reads and writes of the Rate tab."""

    #: An answer or grade of a rating session was stored or undone; carries the session id.
    answer_recorded = Signal(int)
    #: Rating sessions were created; lists re-read them.
    sessions_changed = Signal()

    _runs: _rating.RatingRuns | None = None

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__(gateway)
        self._histories: dict[int, CommandStack] = {}

    def reset(self) -> None:
        self._runs = None
        self._histories.clear()

    def forget_runs(self) -> None:
        """Drop the cached engines (another connection changed the file)."""
        if self._runs is not None:
            self._runs.forget()

    def _rating_runs(self) -> _rating.RatingRuns:
        from slicereview.app.rating.sessions import RatingRuns

        if self._runs is None or self._runs.project is not self.open_project:
            self._runs = RatingRuns(self.open_project)
        return self._runs

    def run(self, session_id: int) -> _rating.RatingRun:
        """The open engine of a rating session (kept while the project is open)."""
        return self._rating_runs().run(session_id)

    def set_acting_rater(self, session_id: int, rater_id: int) -> None:
        """Answer a shared confidence session as ``rater_id`` in this window."""
        self._rating_runs().set_acting_rater(session_id, rater_id)

    def acting_rater(self, session_id: int) -> int | None:
        return self._rating_runs().acting_rater(session_id)

    def history(self, session_id: int) -> CommandStack:
        """The undo history of a session in this window (kept while the project is open)."""
        if session_id not in self._histories:
            self._histories[session_id] = self.gateway.history()
        return self._histories[session_id]

    # -- reads ---------------------------------------------------------------------------------
    def overview(self) -> list[_rating.SessionSummary]:
        return self._rating_runs().overview() if self.project else []

    def image_sets(self) -> list[tuple[int, str, int]]:
        """``(id, name, number of images)`` of every image set."""
        project = self.project
        if project is None:
            return []
        return [(i, name, len(project.image_sets.members(i)))
                for i, name in project.image_sets.all().items()]

    def rater_names(self) -> list[str]:
        """Raters for a new session: people first, simulated raters last."""
        raters = [r for r in (self.project.raters.all() if self.project else [])
                  if not r.is_model]  # (a model rates no pairs)
        return [r.name for r in sorted(raters, key=lambda r: (r.simulated, r.name.lower()))]

    def pairwise_sessions(self) -> dict[int, list[tuple[Session, str]]]:
        """Pairwise (sort, exhaustive, confidence) sessions with their rater's name, by image set
        id (the pooled ranking's choices)."""
        from slicereview.app.rating.pooled import pairwise_sessions

        project = self.project
        if project is None:
            return {}
        raters = {r.id: r.name for r in project.raters.all()}
        return {k: [(s, raters.get(s.rater_id, "?")) for s in v]
                for k, v in pairwise_sessions(project).items()}

    def pooled_input(self, session_ids: list[int]) -> _pooled.PooledInput:
        """What the pooled ranking of ``session_ids`` is computed from (read here, in the GUI
        thread; :func:`slicereview.app.rating.pooled.rank_pooled` can then run in a worker)."""
        from slicereview.app.rating.pooled import gather

        return gather(self.open_project, session_ids)

    def export_ranking_csv(self, session_id: int, path: str | Path) -> int:
        """Write the session's ranking as ``slicereview ranking --csv`` does; returns rows."""
        from slicereview.app.rating.sessions import write_ranking_csv

        return write_ranking_csv(Path(path), self.run(session_id).rows())

    # -- writes --------------------------------------------------------------------------------
    def create_session(self, spec: _rating.NewSessionSpec) -> int:
        from slicereview.app.rating.sessions import start_session

        session_id = start_session(self.open_project, spec)
        self.sessions_changed.emit()
        return session_id

    def second_pass(self, session_id: int) -> int:
        """A new sort session of the same rater, images and settings in a new random order."""
        from slicereview.app.rating.sessions import second_pass

        new_id = second_pass(self.open_project, session_id)
        self.sessions_changed.emit()
        return new_id

    def answer(self, session_id: int, choice: str, active_ms: int, pair: tuple[int, int]
               ) -> _rating.Current | None:
        """Store an answer (undoable); what to show next, or ``None`` if not saved (a stale
        pair — someone else answered it — drops the cached engine so the view can show the
        session's real next comparison)."""
        from slicereview.app.commands import RecordAnswer

        self.gateway.watch.check()  # (answers given elsewhere: the engine re-reads them)
        command = RecordAnswer(self.run(session_id), choice, active_ms, pair)
        return self._push(session_id, command)

    def grade(self, session_id: int, grade: int, active_ms: int, image_id: int
              ) -> _rating.Current | None:
        """Store a grade (undoable); what to show next, or ``None`` if not saved."""
        from slicereview.app.commands import RecordGrade

        self.gateway.watch.check()
        command = RecordGrade(self.run(session_id), grade, active_ms, image_id)
        return self._push(session_id, command)

    def _push(self, session_id: int, command: RecordAnswer | RecordGrade
              ) -> _rating.Current | None:
        if self.history(session_id).push(command):
            return command.result
        self._rating_runs().forget(session_id)
        return None

    def remove_last_answer(self, session_id: int) -> bool:
        """Delete the session's last stored answer or grade (undoable; e.g. after reopening)."""
        from slicereview.app.commands import RemoveLastAnswer

        self.gateway.watch.check()
        return self.history(session_id).push(RemoveLastAnswer(self.run(session_id)))

    def undo(self, session_id: int) -> bool:
        """Undo this window's last answer of the session; ``False`` when refused (e.g. answered
        since elsewhere: the history then says why) or there was none."""
        self.gateway.watch.check()  # answers given elsewhere since: re-read them first
        return self.history(session_id).undo()

    def redo(self, session_id: int) -> bool:
        self.gateway.watch.check()
        return self.history(session_id).redo()

    def changed(self, key: int, command: Command) -> None:
        """An answer was stored or undone: when it was written through an engine that is no
        longer the one kept for the session (dropped after a change elsewhere), drop the kept
        one too (it re-reads the file); then tell the views."""
        run = getattr(command, "run", None)
        if run is not None and self._runs is not None and self._runs.cached(key) is not run:
            self._runs.forget(key)
        self.answer_recorded.emit(key)
