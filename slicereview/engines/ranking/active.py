"""Rating to a stated accuracy: active choice of pairs for noisy raters (:class:`ActiveRanking`).

A session first runs the tie-aware sort's first pass (``"tie-aware-merge-insertion"`` over the
items in a seeded order, :mod:`slicereview.engines.ranking.algorithms`), so a consistent rater
pays no more than in the sort mode. From then on it asks the pair with the highest value under
a Gaussian posterior of the Bradley–Terry log-strengths
(:mod:`slicereview.engines.ranking.posterior`; default criterion :data:`DEFAULT_CRITERION`,
chosen by the benchmark in docs/rate.md): it never stops by itself — stopping is the session's
call — and it may ask a pair again. ``ranking()`` is the Bradley–Terry fit of every answer with
standard errors (:func:`slicereview.engines.ranking.bt.fit`). A "same" is half a win each way.

**Deterministic.** The state is a pure function of the items, the seed and the answers in
order: the sort replays its answers (the first answer of each pair while it runs); the posterior
is the Laplace approximation of every answer at an *anchor* (the end of the sort, then every
:attr:`ActiveRanking.anchor_every` answers), fitted from scratch, followed by one O(n²) update
per answer since. Rebuilding from stored answers therefore recomputes one anchor and replays the
updates after it, and proposes exactly the pair the live session would (same machine and
numerical libraries: floating point is not guaranteed to be bit-identical across platforms;
stored answers always stay valid). :meth:`ActiveRanking.undo` is a rebuild without the last
answer.

**Several raters.** Every answer may name its rater; :meth:`ActiveRanking.next_pair` takes
``exclude``, the pairs now shown to other raters, so concurrent raters get different pairs.

Example
-------
>>> r = ActiveRanking(["a", "b", "c", "d"], seed=0)
>>> truth = {"a": 3, "b": 1, "c": 4, "d": 2}
>>> for _ in range(12):
...     x, y = r.next_pair()
...     r.add(x, y, x if truth[x] > truth[y] else y)
>>> [item for item, _, _ in r.ranking()]
['c', 'a', 'd', 'b']
>>> again = ActiveRanking.rebuild(["a", "b", "c", "d"], r.answers, seed=0)
>>> again.next_pair() == r.next_pair()
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.engines.ranking.bt import BT_ALPHA, BTFit, fit
from slicereview.engines.ranking.posterior import CRITERIA, Posterior
from slicereview.engines.ranking.raters import (
    NoiseEstimate,
    RaterReliability,
    crowd_bt,
    estimate_noise,
)
from slicereview.engines.ranking.replay import Ranking, Replayer
from slicereview.engines.ranking.schedule import shuffled

#: The sort that opens every session.
SORT_ALGORITHM = "tie-aware-merge-insertion"
#: The pair criterion after the sort (see docs/rate.md for the comparison that chose it).
DEFAULT_CRITERION = "misorder"
#: The L2 penalty of the posterior pairs are chosen from: a prior standard deviation of
#: 1 / √(2 · 0.05) ≈ 3.2 log-odds units, between a reliable rater's spread (T = 0.15 in the
#: benchmark: 6.7) and a noisy one's (T = 0.5: 2). A sort never shows how noisy the rater is,
#: and with the wider prior of the ranking fit the choice after a noisy rater's sort trusted
#: it too much (τ 0.867 instead of 0.898 at 20 comparisons per image, docs/rate.md).
CHOICE_ALPHA = 0.05
#: Bumped whenever a change would make a stored session propose different pairs.
VERSION = 1

_CHOICE = {1.0: "left", 0.0: "right", 0.5: "same"}


@dataclass(frozen=True)
class Answer:
    """One answer: ``s`` = 1.0 when ``a`` was preferred, 0.0 when ``b`` was, 0.5 for "same"."""

    a: Hashable
    b: Hashable
    s: float
    rater: str | None = None

    @property
    def winner(self) -> Hashable | None:
        return self.a if self.s == 1.0 else self.b if self.s == 0.0 else None


@dataclass(frozen=True)
class Confidence:
    """What a live confidence meter shows.

    ``expected_tau`` is the expected Kendall τ between the current ranking and the truth under
    the posterior pairs are chosen from (mean over pairs of ``2 P(right order) - 1``; docs/
    rate.md gives its calibration against simulated raters); ``answers`` and ``per_image``
    (answers / items) the budget spent; ``least_certain`` the items whose rank is least sure,
    as ``(item, expected rank, rank standard deviation)`` (rank 1 = most), widest first.
    """

    expected_tau: float
    answers: int
    per_image: float
    least_certain: list[tuple[Hashable, float, float]]


def default_anchor_every(n: int) -> int:
    """Answers between two Laplace refits: ``max(10, n // 5)`` — an O(n³) refit amortised
    over O(n²) updates (n = 100: every 20 answers; n = 500: every 100)."""
    return max(10, n // 5)


class ActiveRanking:
    """Active pairwise ranking of ``items`` (distinct, hashable); see the module docstring.

    Parameters
    ----------
    items : the items to rank.
    seed : fixes the order the opening sort sees the items in.
    criterion : the pair criterion after the sort (:data:`slicereview.engines.ranking.posterior.
        CRITERIA`).
    alpha : the L2 penalty of the Bradley–Terry fit of :meth:`ranking` (its prior).
    prior : the L2 penalty of the posterior pairs are chosen from (:data:`CHOICE_ALPHA`).
    anchor_every : answers between Laplace refits (default :func:`default_anchor_every`).
    """

    def __init__(self, items: Sequence[Hashable], seed: int = 0,
                 criterion: str = DEFAULT_CRITERION, alpha: float = BT_ALPHA,
                 prior: float | None = None,
                 anchor_every: int | None = None) -> None:
        self.items = tuple(items)
        self.index = {item: i for i, item in enumerate(self.items)}
        if len(self.index) != len(self.items):
            raise ValueError("items must be distinct")
        if criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {criterion!r} (known: {', '.join(CRITERIA)})")
        self.seed = int(seed)
        self.criterion = criterion
        self.alpha = float(alpha)
        self.prior = float(CHOICE_ALPHA if prior is None else prior)
        self.anchor_every = int(anchor_every or default_anchor_every(len(self.items)))
        self._reset()

    def _reset(self) -> None:
        """No answers: the sort at its first question, no posterior."""
        n = len(self.items)
        self._answers: list[Answer] = []
        self._wins = np.zeros((n, n))
        self._sort = Replayer(shuffled(self.items, self.seed), {}, SORT_ALGORITHM)
        self._sorted_pairs: set[frozenset] = set()
        #: Answers when the opening sort finished (``None`` while it runs).
        self.sort_end: int | None = None if n >= 2 else 0
        self._posterior: Posterior | None = None
        self._cache: dict[str, tuple[int, object]] = {}

    @classmethod
    def rebuild(cls, items: Sequence[Hashable], answers: Iterable[Answer], seed: int = 0,
                **options: object) -> ActiveRanking:
        """The session after ``answers`` (in the order given): recomputes the last anchor and
        replays the updates after it (see the module docstring)."""
        r = cls(items, seed, **options)  # type: ignore[arg-type]
        r._replay(list(answers))
        return r

    # -- answers ---------------------------------------------------------------------------
    @property
    def answers(self) -> list[Answer]:
        """Every answer so far, in order."""
        return list(self._answers)

    def add(self, a: Hashable, b: Hashable, winner: Hashable | None,
            rater: str | None = None) -> None:
        """Store an answer about ``a`` and ``b``: ``winner`` is ``a``, ``b`` or ``None`` for
        "same" ("equal"). Any pair may be answered, not only the one proposed."""
        if a not in self.index or b not in self.index:
            raise ValueError(f"{a!r} and {b!r} must both be items of this ranking")
        if a == b:
            raise ValueError("an item cannot be compared with itself")
        if winner is not None and winner not in (a, b):
            raise ValueError(f"the winner must be {a!r}, {b!r} or None, not {winner!r}")
        s = 0.5 if winner is None else (1.0 if winner == a else 0.0)
        self._apply(Answer(a, b, s, rater), live=True)

    def undo(self) -> Answer | None:
        """Remove the last answer and return it (``None`` when there is none): the session is
        rebuilt from the answers before it, so it proposes what it proposed then."""
        if not self._answers:
            return None
        *before, last = self._answers
        self._reset()
        self._replay(before)
        return last

    def _apply(self, answer: Answer, live: bool) -> None:
        """Record ``answer``; ``live`` also folds it into the posterior (a rebuild replays the
        posterior in one go instead)."""
        i, j = self.index[answer.a], self.index[answer.b]
        self._answers.append(answer)
        self._wins[i, j] += answer.s
        self._wins[j, i] += 1.0 - answer.s
        self._cache.clear()
        k = len(self._answers)
        if self.sort_end is None:
            pair = frozenset((answer.a, answer.b))
            if pair not in self._sorted_pairs:
                self._sorted_pairs.add(pair)
                self._sort.add_answer(answer.a, answer.b, _CHOICE[answer.s])
            if isinstance(self._sort.result(), Ranking):
                self.sort_end = k
                if live:
                    self._posterior = Posterior.laplace(self._wins, self.prior)
        elif live:
            if self._posterior is None or (k - self.sort_end) % self.anchor_every == 0:
                self._posterior = Posterior.laplace(self._wins, self.prior)
            else:
                self._posterior.update(i, j, answer.s)

    def _replay(self, answers: list[Answer]) -> None:
        for answer in answers:
            if answer.a not in self.index or answer.b not in self.index or answer.a == answer.b:
                raise ValueError(f"answer {answer!r} is not about two items of this ranking")
            self._apply(answer, live=False)
        if self.sort_end is None:
            return
        k = len(self._answers)
        anchor = self.sort_end + (k - self.sort_end) // self.anchor_every * self.anchor_every
        wins = np.zeros_like(self._wins)
        for answer in self._answers[:anchor]:
            i, j = self.index[answer.a], self.index[answer.b]
            wins[i, j] += answer.s
            wins[j, i] += 1.0 - answer.s
        posterior = Posterior.laplace(wins, self.prior)
        for answer in self._answers[anchor:]:
            posterior.update(self.index[answer.a], self.index[answer.b], answer.s)
        self._posterior = posterior

    # -- proposing -------------------------------------------------------------------------
    @property
    def sorting(self) -> bool:
        """True while the opening sort runs."""
        return self.sort_end is None

    def next_pair(self, exclude: Iterable[tuple[Hashable, Hashable]] = ()
                  ) -> tuple[Hashable, Hashable]:
        """The pair to ask now (always a pair, possibly one asked before). ``exclude``: pairs
        shown to other raters right now, never proposed (unless every pair is excluded)."""
        if len(self.items) < 2:
            raise ValueError("ranking needs at least two items")
        banned = {frozenset(p) for p in exclude}
        if self.sort_end is None:
            question = self._sort.result()
            assert not isinstance(question, Ranking)
            if frozenset(question.pair) not in banned:
                return question.pair
        n = len(self.items)
        mask = None
        if banned:
            mask = np.zeros((n, n), dtype=bool)
            for pair in banned:
                if len(pair) == 2 and pair <= self.index.keys():
                    i, j = (self.index[x] for x in pair)
                    mask[i, j] = mask[j, i] = True
        i, j = self.posterior().best_pair(self.criterion, mask)
        return self.items[i], self.items[j]

    def sort_result(self) -> Ranking | None:
        """The opening sort's tiers once it has finished (the sort mode's ranking of the same
        answers), else ``None``."""
        result = self._sort.result()
        return result if isinstance(result, Ranking) else None

    def posterior(self) -> Posterior:
        """The Gaussian posterior pairs are chosen from (during the sort: the Laplace
        approximation of the answers so far)."""
        if self._posterior is not None and self.sort_end is not None:
            return self._posterior
        return self._cached("laplace", lambda: Posterior.laplace(self._wins, self.prior))

    # -- results ---------------------------------------------------------------------------
    def fit(self) -> BTFit:
        """The Bradley–Terry fit of every answer (cached until the next answer)."""
        return self._cached("fit", lambda: fit(
            self.items, [(x.a, x.b, x.s) for x in self._answers], self.alpha, covariance=True))

    def ranking(self) -> list[tuple[Hashable, float, float]]:
        """``[(item, score, standard_error), …]`` best first (:meth:`fit`; an item never
        compared has score 0 and SE NaN)."""
        return self.fit().ranked()

    def confidence(self, least: int = 5) -> Confidence:
        """The live confidence meter: the posterior's expected Kendall τ and the ``least``
        items whose place is least certain (see :class:`Confidence`; cached until the next
        answer)."""
        return self._cached(f"confidence {least}", lambda: self._confidence(least))

    def _confidence(self, least: int) -> Confidence:
        post = self.posterior()
        q = post.order_probabilities()
        rank, spread = post.rank_spread(q.copy())
        order = sorted(range(len(self.items)), key=lambda i: (-spread[i], i))[:max(0, least)]
        return Confidence(
            post.expected_tau(q), len(self._answers), len(self._answers) / max(1, len(self.items)),
            [(self.items[i], float(rank[i]), float(spread[i])) for i in order])

    def raters(self) -> dict[str | None, RaterReliability]:
        """Per-rater Crowd-BT reliability of the answers so far
        (:func:`slicereview.engines.ranking.raters.crowd_bt`)."""
        return crowd_bt(self.items, [(x.a, x.b, x.s, x.rater) for x in self._answers],
                        self.alpha).raters

    def noise(self) -> NoiseEstimate:
        """The rater noise ``T`` estimated from repeats and intransitive triads
        (:func:`slicereview.engines.ranking.raters.estimate_noise`)."""
        return estimate_noise(self.items, [(x.a, x.b, x.s, x.rater) for x in self._answers])

    def _cached(self, key: str, make):
        k = len(self._answers)
        hit = self._cache.get(key)
        if hit is None or hit[0] != k:
            hit = self._cache[key] = (k, make())
        return hit[1]


__all__ = ["CHOICE_ALPHA", "DEFAULT_CRITERION", "SORT_ALGORITHM", "VERSION", "ActiveRanking",
           "Answer", "Confidence",
           "default_anchor_every"]
