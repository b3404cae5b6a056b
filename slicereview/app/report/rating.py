"""The owner's report, rating part: per rated image set its sessions (each with its method,
comparisons per image and the expected Kendall τ of its ranking), each rater's estimated
reliability, each exhaustive session's ranking with wins − losses and the Bradley–Terry score ±
SE, and the pooled ranking when two or more pairwise sessions rate the set.

:func:`collect` reads the values (one :class:`ImageSetRating` per image set with a rating
session), :func:`render` turns them into the report's HTML. Methods: wins − losses is the
counting score of exhaustive sessions; Bradley–Terry is
:func:`slicereview.engines.ranking.bt.fit` (named in the report with its α); the interval is
score ± 1.96 SE (Wald). In a finished exhaustive session (a round robin) the two give the same
order, ties included; they differ only while pairs are missing. The expected τ is
:func:`slicereview.app.rating.confidence.expected_tau` (a confidence session's meter; for sort
and exhaustive sessions the same posterior of their answers); the reliability is Crowd-BT over
every pairwise answer of the set (:mod:`slicereview.app.rating.raters`), each answer with its
own rater.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj") as project:
...     collect(project)
[]
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from slicereview.app.rating.confidence import expected_tau
from slicereview.app.rating.confidence_rules import method_of
from slicereview.app.rating.pooled import PAIRWISE, PooledRanking, pooled_ranking
from slicereview.app.rating.raters import RaterLine, rater_input
from slicereview.app.rating.run import RankingRow, open_run
from slicereview.engines.ranking.bt import BT_ALPHA, DENSE_LIMIT, METHOD, Z95
from slicereview.model import SessionKind
from slicereview.shares import percent

if TYPE_CHECKING:
    from slicereview.store import Project


@dataclass(frozen=True)
class SessionLine:
    """One rating session in the report."""

    name: str
    kind: str
    rater: str
    answers: int
    finished: bool
    active_min: float
    method: str = ""
    per_image: float = math.nan
    expected_tau: float = math.nan


@dataclass
class ImageSetRating:
    """The rating sessions of one image set (``name``, ``images`` images)."""

    name: str
    images: int
    sessions: list[SessionLine]
    exhaustive: list[tuple[str, list[RankingRow]]] = field(default_factory=list)
    pooled: PooledRanking | None = None
    raters: list[RaterLine] = field(default_factory=list)


def collect(project: Project) -> list[ImageSetRating]:
    """Every image set with a rating session, in the order of its first session."""
    names = project.image_sets.all()
    raters = {r.id: r.name for r in project.raters.all()}
    out: dict[int, ImageSetRating] = {}
    rating_kinds = (*PAIRWISE, SessionKind.CLASSIFY)
    for s in project.ratings.sessions():
        if s.kind not in rating_kinds:
            continue
        entry = out.get(s.image_set_id)
        if entry is None:
            entry = out[s.image_set_id] = ImageSetRating(
                names.get(s.image_set_id, "?"),
                len(project.image_sets.members(s.image_set_id)), [])
        run = open_run(project, s.id)
        who = ", ".join(raters.get(int(r), "?") for r in s.settings.get("raters")
                        or [s.rater_id])
        is_pairwise = s.kind in PAIRWISE
        entry.sessions.append(SessionLine(
            s.name, str(s.kind), who, run.answer_count, run.done, run.active_ms / 60000,
            method_of(s), run.answer_count / max(1, len(run.items)),
            expected_tau(run) if is_pairwise else math.nan))
        if s.kind == SessionKind.EXHAUSTIVE:
            entry.exhaustive.append((s.name, run.rows()))
    for set_id, entry in out.items():
        pairwise = [s.id for s in project.ratings.sessions(image_set_id=set_id)
                    if s.kind in PAIRWISE]
        if len(pairwise) >= 2:
            entry.pooled = pooled_ranking(project, pairwise)
        if pairwise:
            entry.raters = rater_input(project, pairwise).compute()
    return list(out.values())


def _f(x: float | None, digits: int = 2) -> str:
    return "–" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _ci(score: float, se: float) -> str:
    if math.isnan(se):
        return "–"
    return f"{score - Z95 * se:.2f} … {score + Z95 * se:.2f}"


def _large_note(entry: ImageSetRating) -> str:
    """What is not computed for a set of more than :data:`DENSE_LIMIT` images ("" otherwise)."""
    if entry.images <= DENSE_LIMIT:
        return ""
    return (f" This set has more than {DENSE_LIMIT:,} images: the expected τ of its sort and "
            f"exhaustive sessions is not computed, nor the standard errors and intervals of a "
            f"ranking of more than {DENSE_LIMIT:,} compared images (they need the inverse of "
            f"an n × n matrix: O(n²) memory, O(n³) time); the scores are the same fit, by "
            f"sparse Newton steps.")


def render(sets: list[ImageSetRating], table: Callable[..., str]) -> str:
    """The rating part of the report; ``table(head, rows, left)`` makes an HTML table."""
    if not sets:
        return ""
    e = html.escape
    method = e(METHOD.format(alpha=BT_ALPHA))
    parts = []
    for entry in sets:
        parts.append(f"<h2>Rating: {e(entry.name)} ({entry.images} images)</h2>")
        parts.append(table(
            ["session", "method", "rater", "answers / grades", "per image", "expected τ",
             "state", "active min"],
            [[e(s.name), e(s.method or s.kind), e(s.rater), str(s.answers), _f(s.per_image, 1),
              _f(s.expected_tau, 3), "finished" if s.finished else "in progress",
              f"{s.active_min:.1f}"] for s in entry.sessions], 3))
        if entry.raters:
            parts.append("<h3>Raters' reliability (Crowd-BT)</h3>")
            parts.append(table(
                ["rater", "answers", "η", "agrees with the pooled ranking"],
                [[e(r.name), str(r.answers), _f(r.eta, 3),
                  percent(r.agreement, 0)]
                 for r in entry.raters], 1))
        for name, rows in entry.exhaustive:
            parts.append(f"<h3>Exhaustive session {e(name)}: wins − losses and "
                         f"Bradley–Terry</h3>")
            parts.append(table(
                ["rank", "case", "wins − losses", "BT score", "SE", "95% CI", "comparisons"],
                [["–" if r.rank is None else str(r.rank), e(r.case_id), _f(r.score, 0),
                  _f(r.bt_score) if r.comparisons else "not compared", _f(r.bt_se),
                  _ci(r.bt_score or 0.0, math.nan if r.bt_se is None else r.bt_se),
                  str(r.comparisons or 0)] for r in rows], 2))
        if entry.pooled is not None:
            p = entry.pooled
            sessions = ", ".join(e(s.session.name) for s in p.sessions)
            parts.append(f"<h3>Pooled ranking: {p.answers} answers of {len(p.sessions)} "
                         f"pairwise sessions ({sessions})</h3>")
            parts.append(table(
                ["rank", "case", "BT score", "SE", "95% CI", "comparisons", "wins"],
                [["–" if r.rank is None else str(r.rank), e(r.case_id),
                  _f(r.score) if r.comparisons else "not compared", _f(r.se),
                  _ci(r.score, r.se), str(r.comparisons), f"{r.wins:g}"] for r in p.rows], 2))
        parts.append(f"<p class=note>Per image: answers (grades) per image of the set. "
                     f"Expected τ: the expected Kendall τ between a pairwise session's ranking "
                     f"and the truth under the Gaussian posterior of its answers (the "
                     f"confidence meter's); measured against simulated raters it is "
                     f"conservative for a reliable rater and about 0.02 optimistic for a noisy "
                     f"one. η: each rater's Crowd-BT reliability over every pairwise answer of "
                     f"the set (1 = answers as the pooled ranking says, 0.5 = a coin; with one "
                     f"rater, their consistency; three raters are needed to tell which of two "
                     f"disagreeing ones is off). "
                     f"Ranks: exhaustive sessions by wins − losses (a finished "
                     f"session orders exactly as its Bradley–Terry scores); the pooled ranking "
                     f"by the Bradley–Terry score of every answer of the set's sort and "
                     f"exhaustive sessions. BT: {method}. 95% CI: score ± 1.96 SE (Wald). An "
                     f"image that won or lost all its comparisons has a score held by the "
                     f"prior and a wide interval.{_large_note(entry)}</p>")
    return "\n".join(parts)
