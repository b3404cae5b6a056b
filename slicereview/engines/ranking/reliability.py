"""Reliability between rating sessions (raters or passes) over the same images.

Following [Jang2022], each session becomes an ordinal ranking of the images
(classify: by grade; exhaustive: by win-loss score; sort: by tier). Ties are broken by a random
order and every statistic is averaged over ``randomisations`` (100, as in [Jang2022]) random
tie-breaks; a session without ties gives the same ranking every time. The tie-breaks come from
``seed`` (:data:`SEED` by default, used by both the GUI's reliability panel and
``slicereview reliability``), drawn per session in session-id order over the images in id order,
so the same sessions give the same numbers whichever order they are given in. Between each pair of
sessions we report

* **Pearson r** of the sessions' scores (grade, win-loss score, or minus the tier index of a sort);
* **Spearman ρ** and **Kendall τ-b** of the tie-broken rankings;
* **ICC(2,k)** (two-way random, absolute agreement, mean of k raters) of the rank positions,
  via :func:`slicereview.engines.agreement.icc.intraclass_correlation`;
* **top-N intersection**: how many images are in both sessions' top N, for N = 2..25.

ICC(2,k) and the top-N intersection are also given over all sessions at once (k = number of
sessions; an image counts when it is in every session's top N). Per session: answer count and
active time per answer (mean and median without outliers, the number of outliers > 20 s, and the
total including them — outliers are flagged, never dropped from the record).

Only images present in every session are compared. Degenerate cases: fewer than 2 sessions is a
``ValueError``; fewer than 3 common images gives NaN correlations and ICC; a constant ranking
gives NaN Pearson (no variance).

Correlations and the top-N intersection of a pair come from
:mod:`slicereview.engines.review.rankstats` (shared with the review reports).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from slicereview.engines.ranking.replay import Ranking

#: Answers slower than this are outliers in the time statistics ([Jang2022]'s threshold).
OUTLIER_S = 20.0
TOP_N = tuple(range(2, 26))
#: Default seed of the random tie-breaks (GUI and CLI alike).
SEED = 0


@dataclass(frozen=True)
class TimeStats:
    """Active time per answer in seconds; ``mean_s``/``median_s`` leave out outliers."""

    count: int
    mean_s: float
    median_s: float
    outliers: int
    total_s: float


def time_stats(active_ms: Sequence[int], outlier_s: float = OUTLIER_S) -> TimeStats:
    """Time statistics of one session's answers.

    >>> time_stats([1000, 3000, 25000])
    TimeStats(count=3, mean_s=2.0, median_s=2.0, outliers=1, total_s=29.0)
    """
    seconds = [ms / 1000.0 for ms in active_ms]
    kept = [s for s in seconds if s <= outlier_s]
    nan = float("nan")
    return TimeStats(
        count=len(seconds),
        mean_s=statistics.fmean(kept) if kept else nan,
        median_s=float(statistics.median(kept)) if kept else nan,
        outliers=len(seconds) - len(kept),
        total_s=sum(seconds),
    )


@dataclass(frozen=True)
class SessionScores:
    """One session reduced to a score per image (higher = more of the property)."""

    session_id: int
    name: str
    rater: str
    kind: str
    scores: dict
    times: TimeStats

    @property
    def has_ties(self) -> bool:
        return len(set(self.scores.values())) < len(self.scores)


def scores_from_ranking(ranking: Ranking) -> dict:
    """Minus the tier index per item; unranked items (top-k) share the tier after the last."""
    out = {item: -float(t) for t, tier in enumerate(ranking.tiers) for item in tier}
    out.update(dict.fromkeys(ranking.unranked, -float(len(ranking.tiers))))
    return out


@dataclass(frozen=True)
class PairStats:
    a: int
    b: int
    pearson: float
    spearman: float
    kendall_tau_b: float
    icc2k: float
    top_n: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ReliabilityReport:
    sessions: list[SessionScores]
    n_images: int
    randomisations: int
    pairs: list[PairStats]
    icc2k: float
    top_n_all: dict

    def to_dict(self) -> dict:
        """Plain JSON-friendly values (session scores left out)."""
        d = asdict(self)
        for s in d["sessions"]:
            s.pop("scores")
        return d


def _positions(scores: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """Rank positions 0 (most) .. n-1; ties broken by ``rng`` (or by index without one)."""
    tiebreak = rng.random(len(scores)) if rng is not None else np.arange(len(scores))
    order = np.lexsort((tiebreak, -scores))
    pos = np.empty(len(scores), dtype=float)
    pos[order] = np.arange(len(scores))
    return pos


def _corr(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(Pearson, Spearman, Kendall τ-b); NaN below 3 items or for a constant vector."""
    if len(x) < 3:
        return (math.nan,) * 3
    # lazy: the review package loads the agreement engines (scipy.ndimage) on import
    from slicereview.engines.review.rankstats import rank_correlations

    c = rank_correlations(x, y)
    return c.pearson, c.spearman, c.kendall_tau_b


def _icc2k(table: np.ndarray) -> float:
    # lazy: the agreement package loads scipy.ndimage, which the GUI's start-up never needs
    from slicereview.engines.agreement.icc import intraclass_correlation

    if table.shape[0] < 3:
        return float("nan")
    return float(intraclass_correlation(table).icc2k)


def reliability(
    sessions: Sequence[SessionScores], randomisations: int = 100, seed: int = SEED,
    top_n: Sequence[int] = TOP_N,
) -> ReliabilityReport:
    """Agreement between two or more sessions; see the module docstring.

    Example
    -------
    >>> t = TimeStats(0, float("nan"), float("nan"), 0, 0.0)
    >>> a = SessionScores(1, "A", "ann", "classify", {1: 0, 2: 1, 3: 2, 4: 3}, t)
    >>> b = SessionScores(2, "B", "bob", "sort", {1: 0, 2: 2, 3: 1, 4: 3}, t)
    >>> r = reliability([a, b])
    >>> round(r.pairs[0].spearman, 2), r.pairs[0].top_n[2]
    (0.8, 1.0)
    """
    if len(sessions) < 2:
        raise ValueError("reliability needs at least two sessions")
    # Images by id, tie-breaks drawn session by session in id order: the result does not
    # depend on the order the caller lists sessions or answered images in (GUI = CLI).
    common = sorted(i for i in sessions[0].scores if all(i in s.scores for s in sessions[1:]))
    n = len(common)
    scores = np.array([[s.scores[i] for i in common] for s in sessions], dtype=float)
    ties = any(s.has_ties for s in sessions)
    rounds = max(1, randomisations) if ties else 1
    rng = np.random.default_rng(seed) if ties else None
    from slicereview.engines.review.rankstats import top_n_intersection  # lazy, see _corr

    ns = [k for k in top_n if 1 <= k <= n]
    k = len(sessions)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    acc = {p: np.zeros(3 + len(ns)) for p in pairs}
    icc_all, top_all = 0.0, np.zeros(len(ns))
    for _ in range(rounds):
        drawn = {s.session_id: _positions(row, rng) for s, row in sorted(
            zip(sessions, scores, strict=True), key=lambda p: p[0].session_id)}
        pos = np.array([drawn[s.session_id] for s in sessions])
        rankings = [list(np.argsort(p)) for p in pos]  # item indices, first = most
        for i, j in pairs:
            _, rho, tau = _corr(-pos[i], -pos[j])
            top = top_n_intersection(rankings[i], rankings[j], ns)
            acc[(i, j)] += [rho, tau, _icc2k(pos[[i, j]].T)] + [top[m] for m in ns]
        icc_all += _icc2k(pos.T)
        top_all += [np.count_nonzero(np.all(pos < m, axis=0)) for m in ns]
    out_pairs = []
    for i, j in pairs:
        mean = acc[(i, j)] / rounds
        out_pairs.append(PairStats(
            sessions[i].session_id, sessions[j].session_id,
            pearson=_corr(scores[i], scores[j])[0],
            spearman=float(mean[0]), kendall_tau_b=float(mean[1]), icc2k=float(mean[2]),
            top_n={m: float(v) for m, v in zip(ns, mean[3:], strict=True)},
        ))
    return ReliabilityReport(
        list(sessions), n, rounds, out_pairs, float(icc_all / rounds),
        {m: float(v) for m, v in zip(ns, top_all / rounds, strict=True)},
    )


def aligned(rows: list[list[str]], left: int = 1) -> list[str]:
    """Rows of cells as lines of aligned columns: the first ``left`` columns left-aligned
    (names), the others right-aligned (numbers), two spaces apart.

    >>> print("\\n".join(aligned([["pair", "r"], ["1-2", "0.9"], ["10-11", "-0.25"]])))
    pair       r
    1-2      0.9
    10-11  -0.25
    """
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if c < left else cell.rjust(w)
                      for c, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows]


def format_report(report: ReliabilityReport) -> str:
    """A plain-text report (for the CLI): every table's columns aligned."""
    def f(x: float) -> str:
        return "nan" if math.isnan(x) else f"{x:.3f}"

    lines = [f"{report.n_images} common images; statistics averaged over "
             f"{report.randomisations} random tie-break(s)", ""]
    sessions = [["session", "rater", "kind", "answers", "mean s", "median s", "outliers>20s",
                 "total min"]]
    for s in report.sessions:
        t = s.times
        sessions.append([f"{s.session_id}:{s.name}", s.rater, s.kind, str(t.count), f(t.mean_s),
                         f(t.median_s), str(t.outliers), f"{t.total_s / 60:.2f}"])
    lines += aligned(sessions, left=3)
    pairs = [["pair", "Pearson", "Spearman", "Kendall tau-b", "ICC(2,k)"]]
    pairs += [[f"{p.a}-{p.b}", f(p.pearson), f(p.spearman), f(p.kendall_tau_b), f(p.icc2k)]
              for p in report.pairs]
    pairs.append(["all sessions", "", "", "", f(report.icc2k)])
    lines += ["", *aligned(pairs)]
    if report.top_n_all:
        many = len(report.sessions) > 2
        top = [["N", *[f"{p.a}-{p.b}" for p in report.pairs], *(["all"] if many else [])]]
        for m in report.top_n_all:
            values = [p.top_n[m] for p in report.pairs]
            if many:
                values.append(report.top_n_all[m])
            top.append([str(m), *[f"{v:.2f}" for v in values]])
        lines += ["", "top-N intersection: images in the top N of both sessions (all: of every "
                  "session), mean over the tie-breaks",
                  *aligned(top, left=0)]
    return "\n".join(lines)
