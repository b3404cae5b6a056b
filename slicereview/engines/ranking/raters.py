"""What the answers say about the raters: per-rater reliability (Crowd-BT) and the rater noise
``T`` of the logistic model (from repeats and intransitive triads).

**Reliability** (Crowd-BT, [Chen2013]): rater ``k`` answers a pair as the Bradley–Terry model
says with probability ``η_k`` and the other way round otherwise, ``P(a over b) = η_k σ(θ_a - θ_b) +
(1 - η_k) σ(θ_b - θ_a)``; ``η = 1`` is a perfect rater, ½ a coin, below ½ a rater who
answers the opposite question. :func:`crowd_bt` estimates the scores and every ``η_k``
jointly by maximum likelihood (EM, with the prior of the Bradley–Terry fit on the scores). With
one rater ``η`` measures consistency with their own ranking; with two, a disagreement can be
blamed on either: it takes three or more raters to tell which one disagrees. The ranking of a
session stays the plain Bradley–Terry fit; Crowd-BT is shown to the owner.

**Noise** (:func:`estimate_noise`): the simulation of docs/rate.md draws true scores from
N(0, 1) and lets the rater prefer ``a`` with probability ``1 / (1 + exp(-(s_a - s_b) / T))``.
Answers that contradict each other show ``T``: two answers of one rater about the same pair
that differ (a *repeat* disagreement; "same" against a win counts ½) and decided triads
``a > b > c > a`` (*intransitive* triads). Placing the items at normal scores of their fitted
rank (``Φ⁻¹((n - rank + ½) / n)``), the expected number of both is an increasing function of
``T``; the estimate is the ``T`` at which it equals the number seen (method of moments). A sort
alone never shows noise (it never asks a pair whose answer its earlier answers imply): repeats
need a second pass or an exhaustive or active session.

Example
-------
>>> right = [("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 1.0)]
>>> answers = [(*x, rater) for rater in ("ann", "cy") for x in right]
>>> answers += [(a, b, 1.0 - s, "bob") for a, b, s in right]  # bob answers the other way
>>> rel = rater_reliability(["a", "b", "c"], answers)
>>> bool(rel["ann"].eta > 0.5 > rel["bob"].eta), float(rel["bob"].agreement)
(True, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from slicereview.engines.ranking.blas import one_thread
from slicereview.engines.ranking.bt import (
    BT_ALPHA,
    SPARSE_FROM,
    fit,
    newton_map,
    newton_map_edges,
)

#: ``(a, b, s, rater)``: ``s`` = 1.0 when ``a`` was preferred, 0.0 when ``b``, 0.5 "same".
RatedOutcome = tuple[Hashable, Hashable, float, "str | None"]


@dataclass(frozen=True)
class RaterReliability:
    """One rater: answers given, Crowd-BT ``eta`` (NaN without answers) and ``agreement``, the
    share of their decided answers that agree with the Crowd-BT ranking."""

    rater: str | None
    answers: int
    eta: float
    agreement: float


@dataclass(frozen=True)
class CrowdBT:
    """The Crowd-BT fit: ``scores`` (log-strengths, mean 0) and each rater's reliability;
    ``iterations`` of EM used."""

    scores: dict
    raters: dict
    iterations: int


@one_thread
def crowd_bt(items: Sequence[Hashable], answers: Sequence[RatedOutcome],
             alpha: float = BT_ALPHA, max_iter: int = 200, tol: float = 1e-8) -> CrowdBT:
    """Crowd-BT by expectation–maximisation (see the module docstring).

    E-step: the probability ``r`` that each answer is an honest one (it follows the model
    rather than its reverse). M-step: the scores are the Bradley–Terry MAP of the answers
    counted as ``r`` of a win for the stated winner and ``1 - r`` for the other (the penalised
    fit of :mod:`slicereview.engines.ranking.bt`), and ``η_k`` is the mean ``r`` of rater
    ``k``. Every rater starts at ``η = 0.9`` (trusted) and the scores at the plain fit, so
    when most answers come from good raters the fit settles on the ranking they agree on; a
    majority answering the reverse question would be taken for the truth (the model cannot
    tell which way is "more").
    A "same" is half an answer each way.
    """
    index = {item: i for i, item in enumerate(items)}
    rows = [(index[a], index[b], s, r) for a, b, s, r in answers
            if a in index and b in index and a != b]
    raters = list(dict.fromkeys(r for *_, r in rows))
    n = len(index)
    if not rows or n < 2:
        return CrowdBT(dict.fromkeys(items, 0.0), {
            r: RaterReliability(r, 0, math.nan, math.nan) for r in raters}, 0)
    # Each answer as two directed half-answers: (winner, loser, weight) with weight s, 1 - s.
    win = np.array([a if w else b for a, b, s, _ in rows for w in (True, False)])
    lose = np.array([b if w else a for a, b, s, _ in rows for w in (True, False)])
    weight = np.array([s if w else 1.0 - s for _, _, s, _ in rows for w in (True, False)])
    who = np.array([raters.index(r) for *_, r in rows for _ in (0, 1)])
    eta = np.full(len(raters), 0.9)
    theta = _scores(n, win, lose, weight, alpha)  # every answer taken as honest
    iterations = 0
    both, other = np.concatenate([win, lose]), np.concatenate([lose, win])
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        p = 1.0 / (1.0 + np.exp(-(theta[win] - theta[lose])))
        e = eta[who]
        r = e * p / np.maximum(e * p + (1.0 - e) * (1.0 - p), 1e-300)
        new_theta = _scores(n, both, other, np.concatenate([weight * r, weight * (1.0 - r)]),
                            alpha, theta)
        new = np.array([np.sum((weight * r)[who == k]) / np.sum(weight[who == k])
                        for k in range(len(raters))])
        done = max(np.max(np.abs(new - eta)), np.max(np.abs(new_theta - theta))) < tol
        eta, theta = new, new_theta
        if done:
            break
    theta -= theta.mean()
    out = {}
    for k, rater in enumerate(raters):
        own = [(a, b, s) for a, b, s, x in rows if x == rater]
        decided = [(a, b, s) for a, b, s in own if s != 0.5 and theta[a] != theta[b]]
        agree = sum((s == 1.0) == (theta[a] > theta[b]) for a, b, s in decided)
        out[rater] = RaterReliability(rater, len(own), float(eta[k]),
                                      float(agree) / len(decided) if decided else math.nan)
    return CrowdBT({item: float(theta[i]) for item, i in index.items()}, out, iterations)


def _scores(n: int, win: np.ndarray, lose: np.ndarray, weight: np.ndarray, alpha: float,
            start: np.ndarray | None = None) -> np.ndarray:
    """The MAP scores of weighted directed answers: a dense win matrix below
    :data:`~slicereview.engines.ranking.bt.SPARSE_FROM` items, else sparse Newton steps."""
    if n < SPARSE_FROM:
        w = np.zeros((n, n))
        np.add.at(w, (win, lose), weight)
        return newton_map(w, alpha, start=start)
    keep = weight > 0
    return newton_map_edges(n, win[keep], lose[keep], weight[keep], alpha, start)


def rater_reliability(items: Sequence[Hashable], answers: Sequence[RatedOutcome]
                      ) -> dict[str | None, RaterReliability]:
    """Crowd-BT reliability per rater (:func:`crowd_bt`)."""
    return crowd_bt(items, answers).raters


@dataclass(frozen=True)
class NoiseEstimate:
    """The estimated rater noise ``T`` (``None``: no repeat or decided triad to tell) and the
    evidence: repeated answer pairs and their disagreements, decided triads and how many were
    intransitive. ``bound`` is True when nothing contradicted anything: ``T`` is then the
    value at which half a contradiction was expected (an upper guess, not a measurement)."""

    T: float | None
    repeat_pairs: int
    repeat_disagreements: float
    triads: int
    intransitive: int
    bound: bool = False


@one_thread
def estimate_noise(items: Sequence[Hashable], answers: Sequence[RatedOutcome]) -> NoiseEstimate:
    """The rater noise ``T`` from repeats and intransitive triads (module docstring)."""
    index = {item: i for i, item in enumerate(items)}
    n = len(items)
    rows = [(index[a], index[b], s, r) for a, b, s, r in answers
            if a in index and b in index and a != b]
    scores = fit(items, [(items[a], items[b], s) for a, b, s, _ in rows]).scores
    order = sorted(range(n), key=lambda i: -scores[items[i]])
    position = np.empty(n)
    normal = NormalDist()
    for rank, i in enumerate(order):
        position[i] = normal.inv_cdf((n - rank - 0.5) / n)
    # Repeats: answer pairs of one rater about one pair.
    seen: dict[tuple, list[float]] = {}
    for a, b, s, r in rows:
        key = (min(a, b), max(a, b), r)
        seen.setdefault(key, []).append(s if a < b else 1.0 - s)
    rep_i, rep_j, disagreements, repeat_pairs = [], [], 0.0, 0
    for (a, b, _), values in seen.items():
        for k in range(len(values)):
            for m in range(k + 1, len(values)):
                rep_i.append(a)
                rep_j.append(b)
                disagreements += abs(values[k] - values[m])
                repeat_pairs += 1
    # Triads: decided answers only, the first per pair, all raters.
    direction = np.zeros((n, n))
    decided = np.zeros((n, n), dtype=bool)
    for a, b, s, _ in rows:
        if s == 0.5 or decided[a, b]:
            continue
        decided[a, b] = decided[b, a] = True
        winner, loser = (a, b) if s == 1.0 else (b, a)
        direction[winner, loser] = 1.0
    present = decided.astype(float)
    triads = int(round(np.trace(present @ present @ present) / 6))
    intransitive = int(round(np.trace(direction @ direction @ direction) / 3))
    if repeat_pairs == 0 and triads == 0:
        return NoiseEstimate(None, 0, 0.0, 0, 0)
    ri, rj = np.array(rep_i, dtype=int), np.array(rep_j, dtype=int)
    gaps = position[:, None] - position[None, :]

    def expected(t: float) -> float:
        p = 1.0 / (1.0 + np.exp(-gaps / t))
        pr = p[ri, rj]
        m = present * p
        return float((2 * pr * (1 - pr)).sum() + np.trace(m @ m @ m) / 3)

    seen_events = disagreements + intransitive
    target = max(seen_events, 0.5)
    lo, hi = math.log(1e-3), math.log(1e3)
    for _ in range(60):  # bisection on log T: expected() increases with T
        mid = (lo + hi) / 2
        if expected(math.exp(mid)) < target:
            lo = mid
        else:
            hi = mid
    return NoiseEstimate(math.exp((lo + hi) / 2), repeat_pairs, disagreements, triads,
                         intransitive, bound=seen_events == 0)
