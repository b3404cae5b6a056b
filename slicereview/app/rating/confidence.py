"""Rating to a stated accuracy: the "confidence" session kind, run by
:class:`~slicereview.engines.ranking.ActiveRanking` (a sort pass, then the pairs whose order is
most in doubt), until a budget or a target, shared by one or more raters.

The rules, once for the Rate tab and ``slicereview rate``:

* **Settings** (:func:`confidence_settings`, stored in the session's settings): the raters who
  share the session (``raters``, rater ids; the first is the session's rater), and the stop
  rule (:class:`StopRule`): a budget of comparisons per image, a target expected Kendall τ, a
  target rank standard error, or a budget with a target (whichever comes first). A session with
  a target and no budget stops at :data:`DEFAULT_CAP` comparisons per image.
* **Stopping.** The budget counts every answer (it may end a session before its opening sort
  does); the targets are checked once the opening sort has finished, after every answer, on the
  engine's posterior (:meth:`ActiveRanking.confidence`): expected τ ≥ target, or every image's
  rank standard deviation ≤ target places. Not the scores' standard errors: an image that won
  every comparison keeps a wide score interval, held by the prior, however certain its place.
* **Several raters.** The raters *at work* are those who gave one of the last ``2 × raters``
  answers, and the one asking. The ``k``-th of them in the session's order is shown the best
  pair after the pairs of the ``k - 1`` before them (``next_pair(exclude=…)``), so raters
  working at the same time see different pairs, a rater working alone gets the best pair, and
  each proposal is a function of the stored answers (who gave them included). An answer
  is stored for the pair that was on screen, whoever's proposal it was and however the session
  moved on meanwhile (any comparison is information); a pair asked again is shown the other way
  round each time (position bias).
* **Resume and undo.** Nothing but the answers (each with its rater) is stored; opening the
  session rebuilds the engine from them and proposes exactly what it proposed before; undo
  deletes the last answer and rebuilds.

The ranking is the Bradley–Terry fit of every answer (:meth:`ActiveRanking.fit`), so the grid
and the CSV carry score ± standard error as for the other pairwise kinds.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> from slicereview.app.rating.sessions import create_session
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = [project.images.add_source(pathlib.Path(__file__), f"{i:064x}", "png",
...                                   [NewImage(8, 8)])[0] for i in range(4)]
>>> ann, bob = project.raters.add("ann"), project.raters.add("bob")
>>> sid = create_session(project, "confidence", ann, project.image_sets.create("s", ids), "c",
...                      seed=3, settings=confidence_settings([ann, bob], budget_per_image=3))
>>> run = ConfidenceRun(project, sid)
>>> while not run.done:
...     now = run.current()
...     _ = run.answer("left" if now.left > now.right else "right", 900)
>>> run.answer_count, [row.image_id for row in run.rows()] == sorted(ids, reverse=True)
(12, True)
>>> project.close()
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slicereview.app.rating.confidence_rules import (
    ALGORITHM,
    DEFAULT_CAP,
    StopRule,
    confidence_settings,
)
from slicereview.app.rating.raters import RaterInput, RaterLine, rater_input
from slicereview.app.rating.run import Comparison, GradeRequest, RatingRun, answer_outcomes
from slicereview.engines.ranking.active import CHOICE_ALPHA, VERSION, ActiveRanking
from slicereview.engines.ranking.active import Answer as EngineAnswer
from slicereview.engines.ranking.bt import DENSE_LIMIT, BTFit, Outcome, win_matrix
from slicereview.engines.ranking.bt import fit as bt_fit
from slicereview.engines.ranking.posterior import Posterior
from slicereview.engines.ranking.replay import Ranking
from slicereview.engines.ranking.schedule import placement, presentation_order
from slicereview.engines.ranking.scoring import tiers_from_scores
from slicereview.model import Answer, AnswerChoice, Grade, SessionKind

if TYPE_CHECKING:
    from slicereview.store import Project

#: The value of an answer for the engine: 1 when the left image was preferred.
_VALUE = {"left": 1.0, "right": 0.0, "same": 0.5}


@dataclass(frozen=True)
class Meter:
    """The live confidence meter of a session (posterior of the engine; see
    :class:`slicereview.engines.ranking.active.Confidence`).

    ``answers`` so far, ``per_image`` = answers / images, ``total`` the answers at which the
    session stops at the latest; ``sorting`` while the opening sort runs; ``expected_tau``;
    ``max_rank_se`` the largest rank standard deviation (places); ``least_certain`` as
    ``(image_id, expected rank, rank SD)``, least certain first; ``stopped`` the rule that
    ended the session (``"budget"``, ``"expected τ"``, ``"rank SE"``) or ``None``.
    """

    answers: int
    per_image: float
    total: int
    sorting: bool
    expected_tau: float
    max_rank_se: float
    least_certain: list[tuple[int, float, float]]
    rule: StopRule
    stopped: str | None


class ConfidenceRun(RatingRun):
    """An open confidence session (see the module docstring); ``rater_id`` is the rater
    answering in this window (default: the session's first rater)."""

    KINDS = (SessionKind.CONFIDENCE,)

    def __init__(self, project: Project, session_id: int, rater_id: int | None = None) -> None:
        super().__init__(project, session_id)
        #: True when the session was stored by another version of the engine (its answers
        #: stay valid, but it may propose different pairs than before).
        self.version_mismatch = self.session.algorithm_version != VERSION
        self.rater_id = self.raters[0]
        if rater_id is not None:
            self.set_rater(rater_id)

    # -- loading ---------------------------------------------------------------------------
    def _load(self) -> None:
        s = self.session
        self.rule = StopRule.from_settings(s.settings)
        self.raters: list[int] = [int(r) for r in s.settings.get("raters") or [s.rater_id]]
        members = self.project.image_sets.members(s.image_set_id)
        self.items = presentation_order(members, s.seed, s.settings.get("initial_count"))
        self._answers = self.project.ratings.answers(s.id)
        self._grades: dict[int, Grade] = {}
        self.engine = ActiveRanking.rebuild(self.items, map(self._engine_answer, self._answers),
                                            seed=s.seed)
        self._asked = Counter(frozenset((a.left, a.right)) for a in self._answers)
        self._now: tuple[tuple[int, int], Comparison | Ranking] | None = None

    def _rows(self) -> list[Sequence]:
        return [(a.left, a.right, str(a.answer), a.active_ms) for a in self._answers]

    def _engine_answer(self, a: Answer) -> EngineAnswer:
        rater = self.session.rater_id if a.rater_id is None else a.rater_id
        return EngineAnswer(a.left, a.right, _VALUE[str(a.answer)], str(rater))

    def set_rater(self, rater_id: int) -> None:
        """Answer as ``rater_id`` (one of :attr:`raters`) from now on."""
        if rater_id not in self.raters:
            raise ValueError(f"rater {rater_id} does not share session {self.session.name!r}")
        self.rater_id = rater_id

    # -- state -----------------------------------------------------------------------------
    def current(self) -> Comparison | GradeRequest | Ranking:
        """The pair for :attr:`rater_id` as it must be shown, or the finished ranking."""
        key = (len(self._answers), self.rater_id)
        if self._now is not None and self._now[0] == key:
            return self._now[1]
        now: Comparison | Ranking
        if self.stop_reason() is not None:
            tiers = tiers_from_scores(self.scores(), self.items)
            now = Ranking(tiers=tiers, answered=len(self._answers))
        else:
            a, b = self.pair_for(self.rater_id)
            left, right = placement(self.session.seed, a, b)
            if self._asked[frozenset((a, b))] % 2:
                left, right = right, left
            now = Comparison(left, right, len(self._answers), self.rule.total(len(self.items)))
        self._now = (key, now)
        return now

    def at_work(self, rater_id: int) -> list[int]:
        """The raters at work as ``rater_id`` asks: who gave one of the last ``2 × raters``
        answers, and ``rater_id``, in the session's order."""
        recent = {self.session.rater_id if a.rater_id is None else a.rater_id
                  for a in self._answers[-2 * len(self.raters):]}
        return [r for r in self.raters if r in recent or r == rater_id]

    def pair_for(self, rater_id: int) -> tuple[int, int]:
        """The pair of ``rater_id``: the best pair after those of the raters at work before
        them (:meth:`at_work`)."""
        taken: list[tuple[int, int]] = []
        for _ in range(self.at_work(rater_id).index(rater_id) + 1):
            taken.append(self.engine.next_pair(exclude=taken))  # type: ignore[arg-type]
        return taken[-1]

    def stop_reason(self) -> str | None:
        """Which rule has ended the session (``"budget"``, ``"expected τ"``, ``"rank SE"``),
        or ``None`` while it goes on."""
        if len(self._answers) >= self.rule.total(len(self.items)):
            return "budget"
        if self.engine.sorting or len(self.items) < 2:
            return None
        rule = self.rule
        if rule.target_tau is None and rule.target_rank_se is None:
            return None
        c = self.engine.confidence(1)
        if rule.target_tau is not None and c.expected_tau >= rule.target_tau:
            return "expected τ"
        if rule.target_rank_se is not None and c.least_certain[0][2] <= rule.target_rank_se:
            return "rank SE"
        return None

    def meter(self, least: int = 5) -> Meter:
        """The confidence meter now (see :class:`Meter`)."""
        c = self.engine.confidence(max(1, least))
        n = len(self.items)
        spread = c.least_certain[0][2] if c.least_certain else math.nan
        return Meter(len(self._answers), len(self._answers) / max(1, n), self.rule.total(n),
                     self.engine.sorting, c.expected_tau, spread,
                     [(int(i), r, sd) for i, r, sd in c.least_certain[:least]],  # type: ignore
                     self.rule, self.stop_reason())

    # -- writing ---------------------------------------------------------------------------
    def answer(self, choice: AnswerChoice | str, active_ms: int = 0,
               pair: tuple[int, int] | None = None,
               rater_id: int | None = None) -> Comparison | GradeRequest | Ranking:
        """Store an answer about ``pair`` (as shown; default the pair on screen now) by
        ``rater_id`` (default :attr:`rater_id`) and return what comes next. The pair may be
        one the session has moved on from (another rater answered meanwhile): it is stored as
        it was shown. ``ValueError`` when the session has reached its stop rule."""
        rater = self.rater_id if rater_id is None else int(rater_id)
        if rater not in self.raters:
            raise ValueError(f"rater {rater} does not share session {self.session.name!r}")
        now = self.current()
        if isinstance(now, Ranking):
            raise ValueError(f"session {self.session.name!r} has reached its stop rule "
                             f"({self.rule.describe()})")
        assert isinstance(now, Comparison)
        left, right = (now.left, now.right) if pair is None else (int(pair[0]), int(pair[1]))
        if left == right or left not in self.engine.index or right not in self.engine.index:
            raise ValueError(f"images {left} and {right} are not a pair of this session")
        choice = AnswerChoice(choice)
        answer_id = self.project.ratings.record_answer(self.session.id, left, right, choice,
                                               active_ms, rater_id=rater)
        stored = Answer(answer_id, self.session.id, left, right, choice,
                        max(0, int(active_ms)), "", rater)
        self._answers.append(stored)
        self.stored = stored
        self.engine.add(left, right, None if choice == AnswerChoice.SAME
                        else (left if choice == AnswerChoice.LEFT else right), str(rater))
        self._asked[frozenset((left, right))] += 1
        self._now = None
        return self._after_change()

    def undo(self) -> Answer | Grade | None:
        """Delete the session's last answer (whoever gave it) and return it."""
        removed = self.project.ratings.delete_last_answer(self.session.id)
        if removed is None:
            return None
        self._answers.pop()
        self.engine.undo()
        self._asked[frozenset((removed.left, removed.right))] -= 1
        self._now = None
        self._after_change()
        return removed

    # -- results ---------------------------------------------------------------------------
    def bt(self) -> BTFit:
        """The Bradley–Terry fit of every answer (the engine's, cached until the next one)."""
        return self.engine.fit()

    def scores(self, bt: BTFit | None = None) -> dict[int, float]:
        return dict((bt or self.bt()).scores)

    def rater_names(self) -> dict[int, str]:
        """``{rater id: name}`` of the session's raters, in their order."""
        return {r: self.project.raters.get(r).name for r in self.raters}

    def details_input(self) -> DetailsInput:
        """What :class:`MeterDetails` are computed from (read here; computed anywhere)."""
        return DetailsInput(len(self._answers), tuple(self.items),
                            tuple(answer_outcomes(self._answers)),
                            rater_input(self.project, [self.session.id]))


@dataclass(frozen=True)
class MeterDetails:
    """The slower half of the meter, computed off the GUI thread: the ``widest`` 95 %
    intervals of the Bradley–Terry scores as ``(image_id, score, SE)``, widest first (images
    never compared left out), and each rater's Crowd-BT reliability; ``answers`` they are of."""

    answers: int
    widest: list[tuple[int, float, float]]
    raters: list[RaterLine]


@dataclass(frozen=True)
class DetailsInput:
    """A session's answers as plain data (:meth:`ConfidenceRun.details_input`)."""

    answers: int
    items: tuple[int, ...]
    outcomes: tuple[Outcome, ...]
    raters: RaterInput

    def compute(self, widest: int = 5) -> MeterDetails:
        fit = bt_fit(self.items, self.outcomes)
        compared = [i for i in self.items if fit.comparisons[i]]
        order = sorted(compared, key=lambda i: (-fit.se[i], self.items.index(i)))[:widest]
        return MeterDetails(self.answers, [(int(i), fit.scores[i], fit.se[i]) for i in order],
                            self.raters.compute())


def expected_tau(run: RatingRun) -> float:
    """The expected Kendall τ of a pairwise session's ranking: a confidence session's meter;
    for a sort or exhaustive session the same posterior, the Laplace approximation of its
    answers with the engine's pair-choice prior (NaN below two images, and for a sort or
    exhaustive session of more than :data:`~slicereview.engines.ranking.bt.DENSE_LIMIT`
    images: the posterior's covariance would need O(n²) memory and O(n³) time)."""
    if isinstance(run, ConfidenceRun):
        return run.meter(1).expected_tau
    if run.kind == SessionKind.CLASSIFY:
        raise ValueError("a classify session has grades, not pairwise answers")
    if len(run.items) > DENSE_LIMIT:
        return math.nan
    index = {item: i for i, item in enumerate(run.items)}
    rows = [(index[a], index[b], s) for a, b, s in answer_outcomes(run.answers())
            if a in index and b in index]
    wins = win_matrix(len(index), [r[0] for r in rows], [r[1] for r in rows],
                      [r[2] for r in rows])
    return Posterior.laplace(wins, CHOICE_ALPHA).expected_tau()


__all__ = ["ALGORITHM", "DEFAULT_CAP", "ConfidenceRun", "DetailsInput", "Meter",
           "MeterDetails", "StopRule", "confidence_settings", "expected_tau"]
