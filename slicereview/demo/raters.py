"""Simulated raters for benchmarks, tests and the demo.

A :class:`SimulatedRater` knows a true value per item (more = more of the property) and answers a
pair as a Thurstone-style observer: it perceives the true difference plus Gaussian noise of
standard deviation ``noise`` (so errors are more likely between similar items), and answers
"same" when the perceived difference is within ``same_within``. With ``noise = 0`` and
``same_within = 0`` it is a perfect oracle on the (possibly tied) true values. Its answers and
times are deterministic functions of ``seed`` and the unordered pair, so the same pair always gets
the same answer (as a stored answer would) and runs are reproducible on any platform.

Example
-------
>>> rater = SimulatedRater({"a": 1.0, "b": 2.0})
>>> rater.answer("a", "b")
'right'
>>> run_sort(["a", "b"], rater).ranking.tiers
[['b'], ['a']]
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, TypeVar

from slicereview.engines.ranking.replay import DEFAULT, Ranking, Replayer

Item = Hashable
#: The caller's item type where a function hands back what it was given.
K = TypeVar("K", bound=Hashable)
_NORMAL = NormalDist()


def _uniform(*parts: object) -> float:
    """A uniform number in (0, 1) from a stable hash of ``parts``."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") + 0.5) / 2.0**64


def _pair_key(a: Item, b: Item) -> tuple[tuple[Item, Item], bool]:
    """The pair in a fixed order (by ``repr``) and whether ``(a, b)`` was flipped to get it."""
    return ((a, b), False) if repr(a) <= repr(b) else ((b, a), True)


@dataclass(frozen=True)
class SimulatedRater:
    """A simulated rater; see the module docstring. ``name`` is for display only."""

    #: Any hashable keys (``Mapping`` is invariant in its key, so not ``Mapping[Hashable, ...]``).
    truth: Mapping[Any, float]
    noise: float = 0.0
    same_within: float = 0.0
    seed: int = 0
    name: str = "simulated rater"
    #: Median seconds per answer and the share of answers that take longer than 20 s.
    median_s: float = 3.0
    slow_share: float = 0.02
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def perceived(self, a: Item, b: Item) -> float:
        """Perceived ``truth[a] - truth[b]`` (noise fixed per unordered pair)."""
        (x, y), flipped = _pair_key(a, b)
        diff = float(self.truth[x]) - float(self.truth[y])
        if self.noise > 0:
            diff += self.noise * _NORMAL.inv_cdf(_uniform("noise", self.seed, x, y))
        return -diff if flipped else diff

    def answer(self, left: Item, right: Item) -> str:
        """``"left"``, ``"right"`` or ``"same"`` for the pair as shown."""
        d = self.perceived(left, right)
        if abs(d) <= self.same_within:
            return "same"
        return "left" if d > 0 else "right"

    def grade(self, item: Item, n_labels: int) -> int:
        """An ordinal grade ``0 .. n_labels - 1``: the noisy value binned evenly between the
        lowest and the highest true value."""
        values = [float(v) for v in self.truth.values()]
        lo, hi = min(values), max(values)
        v = float(self.truth[item])
        if self.noise > 0:
            v += self.noise * _NORMAL.inv_cdf(_uniform("grade", self.seed, item))
        if hi <= lo:
            return 0
        return max(0, min(n_labels - 1, int((v - lo) / (hi - lo) * n_labels)))

    def active_ms(self, left: Item, right: Item) -> int:
        """A log-normal answer time around ``median_s``; about ``slow_share`` take over 20 s."""
        (x, y), _ = _pair_key(left, right)
        if _uniform("slow", self.seed, x, y) < self.slow_share:
            return int(20_000 + 40_000 * _uniform("slowtime", self.seed, x, y))
        z = _NORMAL.inv_cdf(_uniform("time", self.seed, x, y))
        return int(1000 * min(19.9, self.median_s * 2.718281828 ** (0.4 * z)))


def distinct_truth(n: int, seed: int = 0) -> dict[int, float]:
    """Items ``0..n-1`` (keys in that order) with distinct true values ``0..n-1`` assigned in
    a seeded random order."""
    order = sorted(range(n), key=lambda i: _uniform("truth", seed, i))
    rank = {item: r for r, item in enumerate(order)}
    return {item: float(rank[item]) for item in range(n)}


def level_truth(n: int, levels: int, seed: int = 0) -> dict[int, float]:
    """Items ``0..n-1`` spread evenly over ``levels`` tied values, in a seeded random order."""
    order = sorted(range(n), key=lambda i: _uniform("truth", seed, i))
    rank = {item: r for r, item in enumerate(order)}
    return {item: float(rank[item] * levels // n) for item in range(n)}


@dataclass(frozen=True)
class SortRun:
    """The outcome of :func:`run_sort`: the ranking and every answer in the order given."""

    ranking: Ranking
    answers: dict[tuple[Item, Item], str]

    @property
    def comparisons(self) -> int:
        return len(self.answers)


def run_sort(
    items: Sequence[Item], rater: SimulatedRater, algorithm: str = DEFAULT,
    k: int | None = None, max_comparisons: int = 1_000_000,
) -> SortRun:
    """Let ``rater`` answer a whole sort session in memory (comparisons in the algorithm's
    order)."""
    replayer = Replayer(items, {}, algorithm, k)
    answers: dict[tuple[Item, Item], str] = {}
    outcome = replayer.result()
    while not isinstance(outcome, Ranking):
        if len(answers) >= max_comparisons:
            raise RuntimeError(f"more than {max_comparisons} comparisons")
        a, b = outcome.pair
        choice = rater.answer(a, b)
        answers[(a, b)] = choice
        replayer.add_answer(a, b, choice)
        outcome = replayer.result()
    return SortRun(outcome, answers)


def ranking_scores(ranking: Ranking, items: Sequence[K]) -> dict[K, float]:
    """A score per item from a ranking: minus the tier index (unranked items share the last)."""
    scores = {item: -float(t) for t, tier in enumerate(ranking.tiers) for item in tier}
    bottom = -float(len(ranking.tiers))
    return {item: scores.get(item, bottom) for item in items}


def kendall_to_truth(ranking: Ranking, truth: Mapping[K, float]) -> float:
    """Kendall τ-b between the true values and a ranking's tiers (unranked items last)."""
    from scipy.stats import kendalltau

    items = list(truth)
    scores = ranking_scores(ranking, items)
    return float(kendalltau([truth[i] for i in items], [scores[i] for i in items])[0])


def comparison_counts(
    algorithm: str, n: int, orders: int, levels: int | None = None, k: int | None = None,
    noise: float = 0.0, same_within: float = 0.0, first_seed: int = 0,
) -> tuple[list[int], list[float]]:
    """Comparisons and Kendall τ-b to the truth over ``orders`` random orders (seeds
    ``first_seed ...``): distinct values, or ``levels`` tied levels; a perfect rater unless
    ``noise``/``same_within`` are given. Used by the benchmark and ``ranking_table.py``."""
    comparisons, taus = [], []
    for seed in range(first_seed, first_seed + orders):
        truth = distinct_truth(n, seed) if levels is None else level_truth(n, levels, seed)
        rater = SimulatedRater(truth, noise, same_within, seed=seed)
        run = run_sort(list(truth), rater, algorithm, k)
        comparisons.append(run.comparisons)
        taus.append(kendall_to_truth(run.ranking, truth))
    return comparisons, taus
