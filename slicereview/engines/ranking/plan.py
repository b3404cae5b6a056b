"""How many comparisons reach a target accuracy: simulated sessions of :class:`ActiveRanking`
(and the baselines it was chosen against), for benchmarks and ``plan-rating``.

The simulated rater (:class:`LogisticRater`) is the one of the goals in docs/rate.md: true
scores drawn from N(0, 1), and ``a`` preferred to ``b`` with probability
``1 / (1 + exp(-(s_a - s_b) / T))``, independently each time (so a repeated pair can get another
answer). Accuracy is Kendall's τ between a session's ``ranking()`` and the true scores.

* :func:`simulate` runs ``seeds`` sessions to the largest budget and records τ (and the
  session's own expected τ) at each budget, given in comparisons per image (total answers / n);
* :func:`plan` finds the smallest number of comparisons per image whose mean τ reaches a target;
* ``method`` ``"active"`` is :class:`ActiveRanking` (with ``criterion``); ``"resort"`` repeats
  the tie-aware sort with a new order each pass and pools every answer in one Bradley–Terry fit
  [MaystreGrossglauser2017] — the baseline of the benchmark.

Everything is seeded: the same arguments give the same numbers. Cost: one simulated answer is
one ``next_pair`` + ``add`` of a session, about 1 ms at n = 100 and 6 ms at n = 500 on a 2-core
machine, so :func:`plan` runs ``seeds × max_per_image × n`` of them (n = 100, 5 seeds, up to
30 per image: about 15 s); for large sets simulate fewer seeds or a smaller n and read the
budget per image.

Example
-------
>>> sim = simulate(12, noise=0.15, per_image=(3,), seeds=1)
>>> sim.per_image, 0.0 < sim.tau[0] <= 1.0
((3.0,), True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.engines.ranking.active import DEFAULT_CRITERION, ActiveRanking, Answer
from slicereview.engines.ranking.bt import BT_ALPHA, fit
from slicereview.engines.ranking.replay import Ranking, Replayer

METHODS = ("active", "resort")
Progress = Callable[[int, int], None]


class LogisticRater:
    """Prefers ``a`` with probability ``σ((truth[a] - truth[b]) / T)``, a fresh draw per call
    from its own seeded generator."""

    def __init__(self, truth: Sequence[float] | np.ndarray, noise: float, seed: int = 0) -> None:
        if noise <= 0:
            raise ValueError("the rater noise T must be > 0")
        self.truth = np.asarray(truth, dtype=float)
        self.noise = float(noise)
        self.rng = np.random.default_rng(seed)

    def prefers_first(self, a: int, b: int) -> bool:
        z = (self.truth[a] - self.truth[b]) / self.noise
        return bool(self.rng.random() < 1.0 / (1.0 + math.exp(-z)))


class RepeatedSort:
    """The baseline: tie-aware sort passes, each over a new seeded order, all answers pooled
    (same ``next_pair``/``add``/``fit`` as :class:`ActiveRanking`)."""

    def __init__(self, items: Sequence[Hashable], seed: int = 0, alpha: float = BT_ALPHA) -> None:
        self.items = tuple(items)
        self.seed = seed
        self.alpha = alpha
        self.passes = 0
        self.answers: list[Answer] = []
        #: Answers when the first pass ended, and its tiers.
        self.sort_end: int | None = None
        self._first: Ranking | None = None
        self._new_pass()

    def _new_pass(self) -> None:
        from slicereview.engines.ranking.schedule import shuffled

        self._sort = Replayer(shuffled(self.items, self.seed, f"pass {self.passes}"), {},
                              "tie-aware-merge-insertion")

    def next_pair(self) -> tuple[Hashable, Hashable]:
        question = self._sort.result()
        if isinstance(question, Ranking):
            self.passes += 1
            self._new_pass()
            question = self._sort.result()
        assert not isinstance(question, Ranking)
        return question.pair

    def add(self, a: Hashable, b: Hashable, winner: Hashable | None) -> None:
        s = 0.5 if winner is None else (1.0 if winner == a else 0.0)
        self.answers.append(Answer(a, b, s))
        self._sort.add_answer(a, b, {1.0: "left", 0.0: "right", 0.5: "same"}[s])
        result = self._sort.result()
        if self._first is None and isinstance(result, Ranking):
            self._first, self.sort_end = result, len(self.answers)

    def sort_result(self) -> Ranking | None:
        """The first pass's tiers once it has finished."""
        return self._first

    def fit(self):
        return fit(self.items, [(x.a, x.b, x.s) for x in self.answers], self.alpha)


@dataclass(frozen=True)
class Simulation:
    """Mean Kendall τ (and the sessions' mean expected τ; NaN for the baseline) per budget
    ``per_image``, over ``seeds`` sessions of ``n`` items at noise ``noise``; ``taus[s][k]`` is
    seed ``s`` at budget ``k``. ``sort_answers``/``sort_tau``: mean answers and τ of
    ``ranking()`` when the opening sort pass ended; ``sort_pass_tau``: mean τ of that sort
    pass's own tiers (the sort mode's result at the same budget)."""

    n: int
    noise: float
    method: str
    per_image: tuple[float, ...]
    tau: tuple[float, ...]
    expected_tau: tuple[float, ...]
    taus: tuple[tuple[float, ...], ...]
    sort_answers: float
    sort_tau: float
    sort_pass_tau: float


def _kendall(truth: np.ndarray, scores: dict) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(truth, [scores[i] for i in range(len(truth))])[0])


def simulate(n: int, noise: float, per_image: Sequence[float] = (5, 10, 20), seeds: int = 5,
             method: str = "active", criterion: str = DEFAULT_CRITERION, first_seed: int = 0,
             progress: Progress | None = None) -> Simulation:
    """Simulated sessions (module docstring); ``progress(done, total)`` counts answers."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    budgets = sorted({max(1, int(round(b * n))) for b in per_image})
    total = seeds * budgets[-1]
    taus, expected, sort_m, sort_tau, pass_tau = [], [], [], [], []
    for k, seed in enumerate(range(first_seed, first_seed + seeds)):
        truth = np.random.default_rng([seed, n]).normal(size=n)
        rater = LogisticRater(truth, noise, seed)
        session: ActiveRanking | RepeatedSort = (
            ActiveRanking(range(n), seed, criterion) if method == "active" else
            RepeatedSort(range(n), seed))
        row, row_e = [], []
        sorted_at: int | None = None
        for m in range(1, budgets[-1] + 1):
            a, b = session.next_pair()
            session.add(a, b, a if rater.prefers_first(a, b) else b)  # type: ignore[arg-type]
            if sorted_at is None and session.sort_end is not None:
                sorted_at = m
                sort_m.append(m)
                sort_tau.append(_kendall(truth, session.fit().scores))
                pass_tau.append(_kendall(truth, _tier_scores(session)))
            if m in budgets:
                row.append(_kendall(truth, session.fit().scores))
                row_e.append(session.posterior().expected_tau()
                             if isinstance(session, ActiveRanking) else math.nan)
            if progress is not None and m % 50 == 0:
                progress(k * budgets[-1] + m, total)
        taus.append(tuple(row))
        expected.append(row_e)
    by_budget = tuple(float(np.mean([t[i] for t in taus])) for i in range(len(budgets)))
    return Simulation(
        n, noise, method, tuple(b / n for b in budgets), by_budget,
        tuple(float(np.mean([e[i] for e in expected])) for i in range(len(budgets))),
        tuple(taus), *(float(np.mean(x)) if x else math.nan
                       for x in (sort_m, sort_tau, pass_tau)))


def _tier_scores(session: ActiveRanking | RepeatedSort) -> dict:
    """Minus the tier index of the finished first sort pass, per item."""
    result = session.sort_result()
    assert result is not None
    return {item: -float(t) for t, tier in enumerate(result.tiers) for item in tier}


@dataclass(frozen=True)
class Plan:
    """The smallest budget (comparisons per image, and total answers) whose mean τ reached
    ``target`` in the simulation (``None`` when ``max_per_image`` did not), with the curve."""

    target: float
    per_image: float | None
    comparisons: int | None
    simulation: Simulation


def plan(n: int, noise: float, target: float = 0.9, max_per_image: int = 30, seeds: int = 5,
         progress: Progress | None = None) -> Plan:
    """How many comparisons per image an :class:`ActiveRanking` session of ``n`` items needs
    for a mean Kendall τ ≥ ``target`` with a rater of noise ``noise`` (simulated, checked at
    every whole number of comparisons per image up to ``max_per_image``)."""
    sim = simulate(n, noise, tuple(range(1, max_per_image + 1)), seeds, progress=progress)
    for per_image, tau in zip(sim.per_image, sim.tau, strict=True):
        if tau >= target:
            return Plan(target, per_image, int(round(per_image * n)), sim)
    return Plan(target, None, None, sim)
