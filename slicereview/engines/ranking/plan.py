"""How many comparisons reach a target accuracy: simulated sessions of :class:`ActiveRanking`
(and the baselines it was chosen against), for benchmarks and ``plan-rating``.

The simulated rater (:class:`LogisticRater`) is the one of the goals in docs/rate.md: true
scores drawn from N(0, 1), and ``a`` preferred to ``b`` with probability
``1 / (1 + exp(-(s_a - s_b) / T))``, independently each time (so a repeated pair can get another
answer). Accuracy is Kendall's τ between a session's ``ranking()`` and the true scores.

* :func:`simulate` runs ``seeds`` sessions to the largest budget and records τ (and the
  session's own expected τ) at each budget, given in comparisons per image (total answers / n);
* :func:`plan` finds the smallest whole number of comparisons per image whose mean τ reaches a
  target, stopping there;
* ``method`` ``"active"`` is :class:`ActiveRanking` (with ``criterion``); ``"resort"`` repeats
  the tie-aware sort with a new order each pass and pools every answer in one Bradley–Terry fit
  [MaystreGrossglauser2017] — the baseline of the benchmark.

Everything is seeded: the same arguments give the same numbers (and :func:`plan` the same
curve as :func:`simulate` up to where it stops). Cost: one simulated answer is one
``next_pair`` + ``add`` of a session, about 1 ms at n = 100 and 6 ms at n = 500 on a 2-core
machine, plus one Bradley–Terry fit per seed and budget checked, so :func:`plan` runs
``seeds × budget found × n`` answers (n = 100, 5 seeds, a target reached at 10 per image:
about 5 s); for large sets simulate fewer seeds or a smaller n and read the budget per image.

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


class _Simulated:
    """One simulated session: the truth of ``seed``, its rater and the session, advanced
    answer by answer; the opening sort's figures once it ends."""

    def __init__(self, n: int, noise: float, seed: int, method: str, criterion: str) -> None:
        self.truth = np.random.default_rng([seed, n]).normal(size=n)
        self.rater = LogisticRater(self.truth, noise, seed)
        self.session: ActiveRanking | RepeatedSort = (
            ActiveRanking(range(n), seed, criterion) if method == "active" else
            RepeatedSort(range(n), seed))
        self.answers = 0
        #: (answers, τ of ranking(), τ of the sort's own tiers) when the opening sort ended.
        self.sort: tuple[int, float, float] | None = None

    def advance(self, to: int, progress: Callable[[int], None] | None = None) -> None:
        session = self.session
        while self.answers < to:
            a, b = session.next_pair()
            winner = a if self.rater.prefers_first(a, b) else b  # type: ignore[arg-type]
            session.add(a, b, winner)
            self.answers += 1
            if self.sort is None and session.sort_end is not None:
                self.sort = (self.answers, _kendall(self.truth, session.fit().scores),
                             _kendall(self.truth, _tier_scores(session)))
            if progress is not None and self.answers % 50 == 0:
                progress(50)

    def tau(self) -> float:
        return _kendall(self.truth, self.session.fit().scores)

    def expected_tau(self) -> float:
        s = self.session
        return s.posterior().expected_tau() if isinstance(s, ActiveRanking) else math.nan


def simulate(n: int, noise: float, per_image: Sequence[float] = (5, 10, 20), seeds: int = 5,
             method: str = "active", criterion: str = DEFAULT_CRITERION, first_seed: int = 0,
             progress: Progress | None = None) -> Simulation:
    """Simulated sessions (module docstring); ``progress(done, total)`` counts answers."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    budgets = sorted({max(1, int(round(b * n))) for b in per_image})
    runs = [_Simulated(n, noise, seed, method, criterion)
            for seed in range(first_seed, first_seed + seeds)]
    done = 0

    def step(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, seeds * budgets[-1])

    taus, expected = [], []
    for run in runs:
        row, row_e = [], []
        for budget in budgets:
            run.advance(budget, step)
            row.append(run.tau())
            row_e.append(run.expected_tau())
        taus.append(tuple(row))
        expected.append(row_e)
    return _summary(n, noise, method, budgets, taus, expected, runs)


def _summary(n: int, noise: float, method: str, budgets: Sequence[int], taus: list,
             expected: list, runs: list[_Simulated]) -> Simulation:
    by_budget = tuple(float(np.mean([t[i] for t in taus])) for i in range(len(budgets)))
    sorts = [r.sort for r in runs if r.sort is not None]
    return Simulation(
        n, noise, method, tuple(b / n for b in budgets), by_budget,
        tuple(float(np.mean([e[i] for e in expected])) for i in range(len(budgets))),
        tuple(taus), *(float(np.mean([x[k] for x in sorts])) if sorts else math.nan
                       for k in range(3)))


def _tier_scores(session: ActiveRanking | RepeatedSort) -> dict:
    """Minus the tier index of the finished first sort pass, per item."""
    result = session.sort_result()
    assert result is not None
    return {item: -float(t) for t, tier in enumerate(result.tiers) for item in tier}


@dataclass(frozen=True)
class Plan:
    """The smallest budget (comparisons per image, and total answers) whose mean τ reached
    ``target`` in the simulation (``None`` when ``max_per_image`` did not), with the curve
    simulated up to there."""

    target: float
    per_image: float | None
    comparisons: int | None
    simulation: Simulation


def plan(n: int, noise: float, target: float = 0.9, max_per_image: int = 30, seeds: int = 5,
         progress: Progress | None = None) -> Plan:
    """How many comparisons per image an :class:`ActiveRanking` session of ``n`` items needs
    for a mean Kendall τ ≥ ``target`` with a rater of noise ``noise``: ``seeds`` simulated
    sessions run side by side, one comparison per image at a time, and the first whole number
    of comparisons per image whose mean τ reaches the target ends the simulation (so it costs
    ``seeds × found × n`` answers, not ``seeds × max_per_image × n``). ``progress(done,
    total)`` counts answers against the most it could take."""
    if not 0.0 < target < 1.0:
        raise ValueError("the target τ must lie between 0 and 1")
    if n < 2 or seeds < 1 or max_per_image < 1:
        raise ValueError("plan needs at least two images, one seed and one comparison per "
                         "image")
    runs = [_Simulated(n, noise, seed, "active", DEFAULT_CRITERION) for seed in range(seeds)]
    total, done = seeds * max_per_image * n, 0

    def step(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, total)

    budgets: list[int] = []
    taus: list[list[float]] = [[] for _ in runs]
    expected: list[list[float]] = [[] for _ in runs]
    for per_image in range(1, max_per_image + 1):
        budgets.append(per_image * n)
        for k, run in enumerate(runs):
            run.advance(per_image * n, step)
            taus[k].append(run.tau())
            expected[k].append(run.expected_tau())
        if float(np.mean([t[-1] for t in taus])) >= target:
            break
    sim = _summary(n, noise, "active", budgets, [tuple(t) for t in taus], expected, runs)
    if sim.tau[-1] >= target:
        return Plan(target, sim.per_image[-1], budgets[-1], sim)
    return Plan(target, None, None, sim)
