"""The rating engine the GUI and the CLI call: one open sort, exhaustive or classify session.

:class:`RatingRun` keeps the session's answers (or grades) in memory, asks
:class:`~slicereview.engines.ranking.replay.Replayer` (sort) or the seeded pair schedule
(exhaustive) what to show next, writes every answer through the project store (one transaction
each) and supports undo and adding images. It holds no sort state that is not derived from the
stored answers: reopening the project and constructing a new ``RatingRun`` gives the same
next comparison.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.app.rating.sessions import create_session
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = [project.images.add_source(pathlib.Path(__file__), f"{i:064x}", "png",
...                                  [NewImage(8, 8)])[0] for i in range(3)]
>>> sid = create_session(project, "sort", project.raters.add("ann"),
...                              project.image_sets.create("s", ids), "pass 1", seed=5)
>>> rs = RatingRun(project, sid)
>>> while not rs.done:
...     _ = rs.answer("left" if rs.current().left < rs.current().right else "right", 1500)
>>> [tier for tier in rs.current().tiers] == [[ids[0]], [ids[1]], [ids[2]]]
True
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from slicereview.engines.ranking.bt import BT_ALPHA, METHOD, BTFit
from slicereview.engines.ranking.bt import Z95 as _Z95
from slicereview.engines.ranking.bt import fit as bt_fit
from slicereview.engines.ranking.reliability import SessionScores, scores_from_ranking, time_stats
from slicereview.engines.ranking.replay import ALGORITHMS, Ranking, Replayer
from slicereview.engines.ranking.schedule import (
    exhaustive_schedule,
    next_unanswered,
    placement,
    presentation_order,
)
from slicereview.engines.ranking.scoring import (
    DEFAULT_LABELS,
    competition_ranks,
    grade_tiers,
    tiers_from_scores,
    win_loss_scores,
)
from slicereview.model import (
    Answer,
    AnswerChoice,
    Grade,
    NewImage,  # noqa: F401  (used by the doctest)
    SessionKind,
)

if TYPE_CHECKING:
    from slicereview.store import Project

#: How the Bradley–Terry scores and standard errors of a session are made (headers, reports).
BT_METHOD = METHOD.format(alpha=BT_ALPHA)
#: z of a two-sided 95 % normal interval (score ± Z95 · SE).
Z95 = _Z95

#: An answer's choice as a Bradley–Terry outcome for its left image.
_OUTCOME = {"left": 1.0, "right": 0.0, "same": 0.5}


def answer_outcomes(answers: Iterable[Answer]) -> list[tuple[int, int, float]]:
    """Stored answers as ``(left, right, s)`` outcomes (:data:`slicereview.engines.ranking.bt.
    Outcome`), every answer once (repeats and other sessions' answers all count)."""
    return [(a.left, a.right, _OUTCOME[str(a.answer)]) for a in answers]


def _image_ids(items: Iterable[Hashable]) -> list[int]:
    """The ranking engine's items back as image ids: a session hands it image ids only."""
    return [cast(int, item) for item in items]


@dataclass(frozen=True)
class Comparison:
    """The pair to show now: ``left`` and ``right`` image ids as they must be placed."""

    left: int
    right: int
    answered: int
    estimated_total: int


@dataclass(frozen=True)
class GradeRequest:
    """The image to grade now in a classify session; ``labels[g]`` is grade ``g`` (key g+1)."""

    image_id: int
    graded: int
    total: int
    labels: tuple[str, ...]


#: What a rating session shows now: a pair, an image to grade, or its finished ranking.
Current = Comparison | GradeRequest | Ranking


@dataclass(frozen=True)
class RankingRow:
    """One line of a session's result (the CSV export); rank/tier are ``None`` when unranked.

    ``session_answers`` and ``session_active_s`` are the whole session's totals. ``score`` is
    the kind's own score (sort: Bradley–Terry; exhaustive: wins − losses; classify: grade);
    pairwise sessions also carry the Bradley–Terry score and its standard error
    (:mod:`slicereview.engines.ranking.bt`; ``None`` for classify, SE NaN when the image was
    never compared) and the number of answers the image took part in.
    """

    image_id: int
    case_id: str
    file: str
    rank: int | None
    tier: int | None
    score: float | None
    rater: str
    session: str
    session_answers: int
    session_active_s: float
    bt_score: float | None = None
    bt_se: float | None = None
    comparisons: int | None = None


def open_run(project: Project, session_id: int) -> RatingRun:
    """The engine of any rating session: a :class:`RatingRun`, or for a confidence session
    its :class:`~slicereview.app.rating.confidence.ConfidenceRun`."""
    if project.ratings.session(session_id).kind == SessionKind.CONFIDENCE:
        from slicereview.app.rating.confidence import ConfidenceRun

        return ConfidenceRun(project, session_id)
    return RatingRun(project, session_id)


class RatingRun:
    """An open rating session (kind ``sort``, ``exhaustive`` or ``classify``; a confidence
    session is a :class:`~slicereview.app.rating.confidence.ConfidenceRun`, see
    :func:`open_run`)."""

    #: The session kinds this class runs.
    KINDS: tuple[SessionKind, ...] = (SessionKind.SORT, SessionKind.EXHAUSTIVE,
                                      SessionKind.CLASSIFY)

    #: Whether the session is marked finished: read once, then kept by this run's marks.
    _finished: bool | None = None

    def __init__(self, project: Project, session_id: int) -> None:
        self.project = project
        self.session = project.ratings.session(session_id)
        if self.session.kind not in self.KINDS:
            hint = (" (open it with open_run)" if self.session.kind == SessionKind.CONFIDENCE
                    else ", not a rating session")
            raise ValueError(f"session {session_id} is a {self.session.kind} session{hint}")
        self.labels: tuple[str, ...] = tuple(self.session.settings.get("labels", DEFAULT_LABELS))
        #: The answer this run stored last (:meth:`answer`), ``None`` before one.
        self.stored: Answer | None = None
        #: True when the session was stored by another version of its algorithm (its answers
        #: stay valid, but it may ask different comparisons than before).
        self.version_mismatch = bool(self.session.kind == SessionKind.SORT and ALGORITHMS.get(
            self.session.algorithm or "") != self.session.algorithm_version)
        self._load()

    # -- loading ---------------------------------------------------------------------------
    def _load(self) -> None:
        s = self.session
        self._finished = None
        members = self.project.image_sets.members(s.image_set_id)
        self.items: list[int] = presentation_order(members, s.seed,
                                                   s.settings.get("initial_count"))
        #: ``(left, right, answer, active_ms)`` of every answer given, in order (rows, not
        #: :class:`Answer`: resuming 60,000 answers reads and builds a third as much).
        self._given: list[Sequence] = cast(list[Sequence], self.project.ratings.given(s.id))
        self._grades: dict[int, Grade] = {g.image_id: g for g in self.project.ratings.grades(s.id)}
        if s.kind == SessionKind.SORT:
            answer_map: dict[tuple[Hashable, Hashable], str] = {
                (a[0], a[1]): a[2] for a in self._given}
            self._replayer = Replayer(self.items, answer_map, s.algorithm or "",
                                      s.settings.get("k"))
        elif s.kind == SessionKind.EXHAUSTIVE:
            self._schedule = exhaustive_schedule(self.items, s.seed)
            self._answered = {frozenset((a[0], a[1])) for a in self._given}
            self._cursor = 0

    # -- state -----------------------------------------------------------------------------
    @property
    def kind(self) -> SessionKind:
        return self.session.kind

    def current(self) -> Comparison | GradeRequest | Ranking:
        """What to show now, or the finished :class:`Ranking`."""
        kind = self.session.kind
        if kind == SessionKind.SORT:
            out = self._replayer.result()
            if isinstance(out, Ranking):
                return out
            left, right = placement(self.session.seed, *_image_ids(out.pair))
            return Comparison(left, right, out.answered, out.estimated_total)
        if kind == SessionKind.EXHAUSTIVE:
            i = next_unanswered(self._schedule, self._answered, self._cursor)
            if i is None:
                tiers = tiers_from_scores(self.scores(), self.items)
                return Ranking(tiers=tiers,
                               answered=len(self._given))
            self._cursor = i  # pairs before it are answered; undo resets the cursor
            return Comparison(*self._schedule[i], len(self._answered), len(self._schedule))
        for image_id in self.items:
            if image_id not in self._grades:
                return GradeRequest(image_id, len(self._grades), len(self.items), self.labels)
        tiers = grade_tiers(self.scores(), self.items)
        return Ranking(tiers=tiers, answered=len(self._grades))

    @property
    def done(self) -> bool:
        return isinstance(self.current(), Ranking)

    @property
    def answer_count(self) -> int:
        """Stored answers (sort, exhaustive) or grades (classify)."""
        return len(self._grades) if self.kind == SessionKind.CLASSIFY else len(self._rows())

    @property
    def active_ms(self) -> int:
        """Total active time of the stored answers or grades, in milliseconds."""
        return sum(self._active_times())

    def _active_times(self) -> list[int]:
        if self.kind == SessionKind.CLASSIFY:
            return [g.active_ms for g in self._grades.values()]
        return [a[3] for a in self._rows()]

    def _rows(self) -> list[Sequence]:
        """``(left, right, answer, active_ms)`` of every answer given, in order."""
        return self._given

    def answers(self) -> list[Answer]:
        """The session's answers as stored (read from the project)."""
        return self.project.ratings.answers(self.session.id)

    def last_answer(self) -> Answer | None:
        """The session's last answer as stored (whoever gave it; read from the project)."""
        return self.project.ratings.last_answer(self.session.id)

    def grades(self) -> dict[int, Grade]:
        return dict(self._grades)

    # -- writing ---------------------------------------------------------------------------
    def answer(self, choice: AnswerChoice | str, active_ms: int = 0,
               pair: tuple[int, int] | None = None,
               rater_id: int | None = None) -> Comparison | GradeRequest | Ranking:
        """Store the answer to the current pair (as shown) and return what comes next.

        ``pair``, when given, must be the ``(left, right)`` the answer was made for; a stale
        pair raises ``ValueError`` instead of storing the answer for the wrong images.
        ``rater_id``: who answered (``None`` = the session's rater; another rater only in a
        shared confidence session).
        """
        if rater_id not in (None, self.session.rater_id):
            raise ValueError(f"session {self.session.name!r} has one rater")
        now = self.current()
        if not isinstance(now, Comparison):
            raise ValueError("this session is not waiting for a pairwise answer")
        if pair is not None and tuple(pair) != (now.left, now.right):
            raise ValueError(f"the pair shown is {(now.left, now.right)}, not {tuple(pair)}")
        choice = AnswerChoice(choice)
        answer_id = self.project.ratings.record_answer(self.session.id, now.left, now.right,
                                                       choice, active_ms)
        self.stored = Answer(answer_id, self.session.id, now.left, now.right, choice,
                             max(0, int(active_ms)), "")
        self._given.append((now.left, now.right, str(choice), max(0, int(active_ms))))
        if self.kind == SessionKind.SORT:
            self._replayer.add_answer(now.left, now.right, str(choice))
        else:
            self._answered.add(frozenset((now.left, now.right)))
        return self._after_change()

    def grade(self, grade: int, active_ms: int = 0,
              image_id: int | None = None) -> Comparison | GradeRequest | Ranking:
        """Grade ``image_id`` (default: the image asked for now) and return what comes next."""
        if self.kind != SessionKind.CLASSIFY:
            raise ValueError("only classify sessions take grades")
        if not 0 <= int(grade) < len(self.labels):
            raise ValueError(f"grade must be 0..{len(self.labels) - 1}")
        if image_id is None:
            now = self.current()
            if not isinstance(now, GradeRequest):
                raise ValueError("every image is graded; pass image_id to change a grade")
            image_id = now.image_id
        if image_id not in self.items:
            raise ValueError(f"image {image_id} is not in this session")
        self.project.ratings.set_grade(self.session.id, image_id, grade, active_ms)
        stored = self.project.ratings.grade(self.session.id, image_id)
        assert stored is not None  # just set
        self._grades.pop(image_id, None)
        self._grades[image_id] = stored  # most recent last, as in the store
        return self._after_change()

    def undo(self) -> Answer | Grade | None:
        """Delete the most recent answer (or grade) and return it; ``None`` if there is none."""
        removed: Answer | Grade | None
        if self.kind == SessionKind.CLASSIFY:
            if not self._grades:
                return None
            image_id = next(reversed(self._grades))
            removed = self.project.ratings.delete_grade(self.session.id, image_id)
            del self._grades[image_id]
        else:
            removed = self.project.ratings.delete_last_answer(self.session.id)
            if removed is None:
                return None
            self._given.pop()
            if self.kind == SessionKind.SORT:
                self._replayer.remove_answer(removed.left, removed.right)
            else:
                self._answered.discard(frozenset((removed.left, removed.right)))
                self._cursor = 0
        self._after_change()
        return removed

    def add_images(self, image_ids: Sequence[int]) -> None:
        """Add images to the session's image set (shared by its other sessions) and replay."""
        self.project.image_sets.add(self.session.image_set_id, list(image_ids))
        self._load()
        self._after_change()

    def _after_change(self) -> Comparison | GradeRequest | Ranking:
        now = self.current()
        if self._finished is None:
            self._finished = self.project.ratings.session_finished_at(self.session.id) is not None
        if isinstance(now, Ranking) != self._finished:
            self.project.ratings.set_session_finished(self.session.id, isinstance(now, Ranking))
            self._finished = isinstance(now, Ranking)
        return now

    # -- results ---------------------------------------------------------------------------
    def scores(self, bt: BTFit | None = None) -> dict[int, float]:
        """Per-image scores: grade (classify), win-loss count (exhaustive) or Bradley–Terry
        log-strength of this session's answers (sort; never win counts of sort-chosen pairs).
        ``bt``, when given, is this session's :meth:`bt` (not computed again)."""
        if self.kind == SessionKind.CLASSIFY:
            return {i: float(g.grade) for i, g in self._grades.items()}
        if self.kind == SessionKind.EXHAUSTIVE:
            answer_map = {(a[0], a[1]): a[2] for a in self._rows()}
            return {i: float(v) for i, v in win_loss_scores(self.items, answer_map).items()}
        return dict((bt or self.bt()).scores)

    def bt(self) -> BTFit:
        """The Bradley–Terry fit of this session's answers, with standard errors (every
        answer counts once; see :mod:`slicereview.engines.ranking.bt`). Classify sessions have
        no pairwise answers: ``ValueError``."""
        if self.kind == SessionKind.CLASSIFY:
            raise ValueError("a classify session has grades, not pairwise answers")
        return bt_fit(self.items, [(a[0], a[1], _OUTCOME[a[2]]) for a in self._rows()])

    def session_scores(self) -> SessionScores:
        """This finished session as input to
        :func:`slicereview.engines.ranking.reliability.reliability`; ``ValueError`` if
        unfinished."""
        now = self.current()
        if not isinstance(now, Ranking):
            raise ValueError(f"session {self.session.id} ({self.session.name!r}) is not "
                             f"finished: {self.answer_count} answers so far")
        scores = scores_from_ranking(now) if self.kind == SessionKind.SORT else self.scores()
        return SessionScores(
            self.session.id, self.session.name, self.project.raters.get(self.session.rater_id).name,
            str(self.kind), scores, time_stats(self._active_times()),
        )

    def rows(self) -> list[RankingRow]:
        """The session's result, one row per image in rank order (unfinished: so far)."""
        now = self.current()
        bt = None if self.kind == SessionKind.CLASSIFY else self.bt()
        scores = self.scores(bt)
        if isinstance(now, Ranking):
            tiers = [_image_ids(tier) for tier in now.tiers]
            unranked = _image_ids(now.unranked)
        else:
            tiers = tiers_from_scores(scores, [i for i in self.items if i in scores])
            unranked = [i for i in self.items if i not in scores]
        ranks = competition_ranks(tiers)
        tier_of = {item: t + 1 for t, tier in enumerate(tiers) for item in tier}
        rater = self.project.raters.get(self.session.rater_id).name
        n, seconds = self.answer_count, self.active_ms / 1000.0
        rows = []
        for image_id in [i for tier in tiers for i in tier] + list(unranked):
            image = self.project.images.get(image_id)
            rows.append(RankingRow(
                image_id, image.case_id, image.path, ranks.get(image_id), tier_of.get(image_id),
                scores.get(image_id), rater, self.session.name, n, seconds,
                *((bt.scores[image_id], bt.se[image_id], bt.comparisons[image_id])
                  if bt is not None else ()),
            ))
        return rows
