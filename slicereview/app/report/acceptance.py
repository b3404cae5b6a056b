"""Rounds and acceptance: [CrowdSegQA, Table 2] (acceptance ratio on round 1 per phase and group,
annotation times with a Welch t-test between accepted and rejected), held once.

Definitions (the report and the CLI name them):

* **round 1** — an annotator's first pass over an image (a rejected annotation's revision is
  round 2, ...). Acceptance is measured on round 1 only, so revisions do not inflate it.
* **the decision in force** — the newest review decision of the annotation. *Accepted* and
  *rejected* count ``accept`` and ``reject``; ``expert_review`` and undecided annotations are
  neither (they are counted apart).
* **acceptance ratio** — accepted / (accepted + rejected) of the finished round-1 annotations
  of a phase and group (``NaN`` when nothing was decided). Gold annotations are left out.
* **group** — the annotator's group; annotators without one form ``"(no group)"``.
* **annotation time** — the active time of the round-1 annotation in seconds: mean ± sample
  standard deviation (``ddof=1``; NaN below two values) of all, accepted and rejected, and a
  two-sided Welch t-test (``scipy.stats.ttest_ind(..., equal_var=False)``) between accepted
  and rejected (NaN below two values on either side).
* **outliers** — times over the limit are *flagged, not dropped*: by default Tukey's far-out
  fence ``Q3 + 3 · IQR`` of the cell's times (robust to the long idle times that inflate a
  mean), or a fixed ``outlier_limit_s``.

Example
-------
>>> t = time_summary([10.0, 20.0, 30.0])
>>> t.n, t.mean, t.sd, t.text
(3, 20.0, 10.0, '20±10')
>>> w = welch([1.0, 2.0, 3.0], [4.0, 6.0, 8.0])
>>> round(w.t, 4), round(w.p, 4)
(-3.0984, 0.0548)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.app.models.raters import model_ids
from slicereview.model import Annotation, AnnotationStatus, Decision, Phase
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
NO_GROUP = "(no group)"
PHASES = tuple(str(p) for p in Phase)


@dataclass(frozen=True)
class TimeSummary:
    """Mean ± sample sd (``ddof=1``) of annotation times in seconds."""

    n: int
    mean: float
    sd: float

    @property
    def text(self) -> str:
        """``"107±138"`` (rounded seconds), ``"–"`` without values."""
        if self.n == 0:
            return "–"
        sd = "–" if math.isnan(self.sd) else f"{self.sd:.0f}"
        return f"{self.mean:.0f}±{sd}"


@dataclass(frozen=True)
class WelchTest:
    """Two-sided Welch t-test [Welch1947]: statistic ``t``, ``p`` value, Welch–Satterthwaite
    ``df``."""

    t: float
    p: float
    df: float

    def significant(self, level: float = 0.05) -> bool:
        return not math.isnan(self.p) and self.p < level


def time_summary(seconds: Sequence[float]) -> TimeSummary:
    """:class:`TimeSummary` of ``seconds`` (sd NaN below two values, mean NaN without)."""
    x = np.asarray(seconds, dtype=float)
    mean = float(x.mean()) if x.size else math.nan
    sd = float(x.std(ddof=1)) if x.size > 1 else math.nan
    return TimeSummary(int(x.size), mean, sd)


def welch(a: Sequence[float], b: Sequence[float]) -> WelchTest:
    """Two-sided Welch t-test of ``a`` against ``b``; NaN below two values each.

    ``t = (mean a − mean b) / √(s²a/na + s²b/nb)`` with Welch–Satterthwaite degrees of
    freedom and ``p = 2 · F_t(−|t|; df)`` from scipy's Student t distribution
    (``scipy.special.stdtr``) — what ``scipy.stats.ttest_ind(equal_var=False)`` computes
    (tested equal), without importing scipy.stats (about a second of the report). Both samples
    constant: t and p are NaN.

    >>> round(welch([1.0, 2.0, 3.0, 4.0], [3.0, 5.0, 7.0]).p, 4)
    0.1485
    """
    if len(a) < 2 or len(b) < 2:
        return WelchTest(math.nan, math.nan, math.nan)
    from scipy.special import stdtr

    x, y = np.asarray(a, float), np.asarray(b, float)
    va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    if not va + vb:
        return WelchTest(math.nan, math.nan, math.nan)
    t = float((x.mean() - y.mean()) / math.sqrt(va + vb))
    df = float((va + vb) ** 2 / (va**2 / (x.size - 1) + vb**2 / (y.size - 1)))
    return WelchTest(t, float(2.0 * stdtr(df, -abs(t))), df)


def outlier_limit(seconds: Sequence[float]) -> float:
    """Tukey's far-out fence ``Q3 + 3 · IQR`` (inf below four values).

    >>> outlier_limit([10, 12, 14, 16, 300])
    28.0
    """
    if len(seconds) < 4:
        return math.inf
    q1, q3 = np.percentile(np.asarray(seconds, float), [25, 75])
    return float(q3 + 3 * (q3 - q1))


@dataclass(frozen=True)
class AcceptanceRow:
    """One phase × group of [CrowdSegQA, Table 2].

    ``images``: distinct images with a finished round-1 annotation; ``annotations``: those
    annotations; ``accepted``/``rejected``/``expert``/``undecided``: by the decision in force;
    ``ratio``: accepted / (accepted + rejected), NaN when none is decided; ``all_time``,
    ``accepted_time``, ``rejected_time``: seconds; ``test``: Welch accepted vs rejected;
    ``outliers``: annotation ids whose time exceeds ``limit_s`` (kept in every number).
    """

    phase: str
    group: str
    images: int
    annotations: int
    accepted: int
    rejected: int
    expert: int
    undecided: int
    ratio: float
    all_time: TimeSummary
    accepted_time: TimeSummary
    rejected_time: TimeSummary
    test: WelchTest
    limit_s: float
    outliers: tuple[int, ...]


def round_one(project: Project) -> list[Annotation]:
    """Finished round-1 annotations of annotators (gold and models' predictions left out)."""
    gold, models = project.workflow.gold_annotation_ids(), model_ids(project)
    return [a for a in project.annotations.all(round=1, status=FINISHED)
            if a.id not in gold and a.rater_id not in models]


def acceptance_table(project: Project, outlier_limit_s: float | None = None
                     ) -> list[AcceptanceRow]:
    """[CrowdSegQA, Table 2]: one row per phase × group with round-1 work, in process order."""
    groups = {r.id: r.group or NO_GROUP for r in project.raters.all()}
    decided = project.reviews.current_decisions()
    cells: dict[tuple[str, str], list[Annotation]] = {}
    for ann in round_one(project):
        cells.setdefault((str(ann.phase), groups[ann.rater_id]), []).append(ann)
    rows = []
    for phase, group in sorted(cells, key=lambda k: (PHASES.index(k[0]), k[1])):
        anns = cells[(phase, group)]
        kind = {a.id: decided[a.id].decision if a.id in decided else None for a in anns}
        secs = {a.id: a.active_ms / 1000.0 for a in anns}
        acc = [secs[i] for i, d in kind.items() if d is Decision.ACCEPT]
        rej = [secs[i] for i, d in kind.items() if d is Decision.REJECT]
        limit = outlier_limit(list(secs.values())) if outlier_limit_s is None else float(
            outlier_limit_s)
        n_dec = len(acc) + len(rej)
        rows.append(AcceptanceRow(
            phase, group, len({a.image_id for a in anns}), len(anns), len(acc), len(rej),
            sum(d is Decision.EXPERT_REVIEW for d in kind.values()),
            sum(d is None for d in kind.values()),
            len(acc) / n_dec if n_dec else math.nan,
            time_summary(list(secs.values())), time_summary(acc), time_summary(rej),
            welch(acc, rej), limit,
            tuple(sorted(i for i, s in secs.items() if s > limit))))
    return rows


def acceptance_by_annotator(project: Project) -> dict[int, tuple[int, int, float]]:
    """rater id → ``(accepted, rejected, ratio)`` on round 1 (ratio NaN when undecided)."""
    decided = project.reviews.current_decisions()
    counts: dict[int, list[int]] = {}
    for ann in round_one(project):
        c = counts.setdefault(ann.rater_id, [0, 0])
        d = decided[ann.id].decision if ann.id in decided else None
        c[0] += d is Decision.ACCEPT
        c[1] += d is Decision.REJECT
    return {r: (a, j, a / (a + j) if a + j else math.nan) for r, (a, j) in counts.items()}


def times_by_phase(project: Project) -> dict[str, list[float]]:
    """phase → active times (s) of its finished round-1 annotations (for the time plot)."""
    found: dict[str, list[float]] = {p: [] for p in PHASES}
    for ann in round_one(project):
        found[str(ann.phase)].append(ann.active_ms / 1000.0)
    return {p: t for p, t in found.items() if t}
