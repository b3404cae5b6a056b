"""The pooled ranking: one Bradley–Terry fit over the answers of several pairwise sessions
(raters, passes) of one image set, with a standard error and a 95 % confidence interval per
image.

The rules, once for the Rate tab and ``slicereview ranking PROJECT --pooled``:

* only pairwise sessions (sort, exhaustive, confidence) have answers to pool; a classify
  session is refused;
* every chosen session must rate the same image set (an image set is the unit a ranking is
  about); none chosen means every pairwise session of the project, which must then be of one
  image set;
* every stored answer counts once, finished session or not (a repeated pair counts each time:
  pooling passes is the point); answers are what the sessions stored, nothing is re-weighted.

The fit is :func:`slicereview.engines.ranking.bt.fit` (MAP, ties as half a win, SE from the
observed Fisher information); the interval is ``score ± 1.96 SE`` (Wald). Rank 1 is the
highest score; images never compared are listed last without a rank.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> from slicereview.app.rating.sessions import create_session
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = [project.images.add_source(pathlib.Path(__file__), f"{i:064x}", "png",
...                                  [NewImage(8, 8)])[0] for i in range(3)]
>>> set_id = project.image_sets.create("s", ids)
>>> s1 = create_session(project, "exhaustive", project.raters.add("ann"), set_id, "a", seed=1)
>>> s2 = create_session(project, "exhaustive", project.raters.add("bob"), set_id, "b", seed=2)
>>> for sid in (s1, s2):
...     _ = project.ratings.record_answer(sid, ids[0], ids[1], "left", 900)
>>> pooled = pooled_ranking(project)
>>> [row.image_id for row in pooled.rows][:2] == [ids[0], ids[1]], pooled.answers
(True, 2)
>>> project.close()
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from slicereview.app.rating.run import answer_outcomes
from slicereview.engines.ranking.bt import Z95
from slicereview.engines.ranking.bt import fit as bt_fit
from slicereview.model import Session, SessionKind

if TYPE_CHECKING:
    from slicereview.store import Project

#: Session kinds with pairwise answers.
PAIRWISE = (SessionKind.SORT, SessionKind.EXHAUSTIVE, SessionKind.CONFIDENCE)
#: Header of ``slicereview ranking --pooled --csv``.
POOLED_COLUMNS = ("image_id", "case_id", "file", "rank", "bt_score", "bt_se", "ci95_low",
                  "ci95_high", "comparisons", "wins", "sessions", "answers")


@dataclass(frozen=True)
class PooledSession:
    """One pooled session: its record, rater name, answers stored and whether it is finished."""

    session: Session
    rater: str
    answers: int
    finished: bool


@dataclass(frozen=True)
class PooledRow:
    """One image of a pooled ranking; ``rank`` is ``None`` for an image never compared (its
    ``score`` is then 0, the prior mean, and ``se`` and the interval NaN)."""

    image_id: int
    case_id: str
    file: str
    rank: int | None
    score: float
    se: float
    ci_low: float
    ci_high: float
    comparisons: int
    wins: float


@dataclass(frozen=True)
class PooledRanking:
    """The pooled ranking of ``sessions`` over image set ``image_set`` (id, name)."""

    image_set: tuple[int, str]
    sessions: list[PooledSession]
    rows: list[PooledRow]
    method: str

    @property
    def answers(self) -> int:
        return sum(s.answers for s in self.sessions)


def pairwise_sessions(project: Project) -> dict[int, list[Session]]:
    """The project's pairwise sessions by image set id, in creation order."""
    out: dict[int, list[Session]] = {}
    for s in project.ratings.sessions():
        if s.kind in PAIRWISE:
            out.setdefault(s.image_set_id, []).append(s)
    return out


def choose_sessions(project: Project, session_ids: Sequence[int] | None = None) -> list[Session]:
    """The sessions to pool (see the module's rules); ``ValueError`` says what to change."""
    if not session_ids:
        by_set = pairwise_sessions(project)
        if not by_set:
            raise ValueError("the project has no pairwise (sort, exhaustive or confidence) "
                             "session to pool")
        if len(by_set) > 1:
            names = project.image_sets.all()
            listing = "; ".join(
                f"{names.get(k, '?')!r}: " + ", ".join(f"{s.id} {s.name!r}" for s in v)
                for k, v in by_set.items())
            raise ValueError(f"pairwise sessions rate {len(by_set)} image sets ({listing}); "
                             "choose the sessions of one image set")
        return next(iter(by_set.values()))
    sessions = []
    for sid in dict.fromkeys(session_ids):
        s = project.ratings.session(sid)
        if s.kind not in PAIRWISE:
            raise ValueError(f"session {s.id} {s.name!r} is a {s.kind} session: only sort, "
                             "exhaustive and confidence sessions have pairwise answers to pool")
        sessions.append(s)
    if len({s.image_set_id for s in sessions}) > 1:
        names = project.image_sets.all()
        listing = ", ".join(f"{s.id} {s.name!r} ({names.get(s.image_set_id, '?')})"
                            for s in sessions)
        raise ValueError(f"the sessions rate different image sets ({listing}); pool sessions "
                         "of one image set")
    return sessions


@dataclass(frozen=True)
class PooledInput:
    """What a pooled ranking is computed from, read from the project (plain values, so the
    fit can run in a worker thread): the image set, the sessions, the image ids in set order,
    every answer as an outcome and each image's ``(case_id, file)``."""

    image_set: tuple[int, str]
    sessions: list[PooledSession]
    items: list[int]
    outcomes: list[tuple[int, int, float]]
    images: dict[int, tuple[str, str]]


def gather(project: Project, session_ids: Sequence[int] | None = None) -> PooledInput:
    """Read what :func:`rank_pooled` needs (the sessions checked by :func:`choose_sessions`)."""
    sessions = choose_sessions(project, session_ids)
    set_id = sessions[0].image_set_id
    items = project.image_sets.members(set_id)
    answers = {s.id: project.ratings.answers(s.id) for s in sessions}
    raters = {r.id: r.name for r in project.raters.all()}
    chosen = [PooledSession(s, raters.get(s.rater_id, "?"), len(answers[s.id]),
                            project.ratings.session_finished_at(s.id) is not None)
              for s in sessions]
    images = {im.id: (im.case_id, im.path) for im in project.images.all(items)}
    return PooledInput((set_id, project.image_sets.all().get(set_id, "?")), chosen, items,
                       [o for s in sessions for o in answer_outcomes(answers[s.id])], images)


def rank_pooled(data: PooledInput) -> PooledRanking:
    """The pooled ranking of ``data`` (pure: no project; safe in a worker thread)."""
    result = bt_fit(data.items, data.outcomes)
    compared = [cast(int, i) for i, _, _ in result.ranked() if result.comparisons[i]]
    ranks: dict[int, int] = {}
    for k, image_id in enumerate(compared):
        previous = compared[k - 1] if k else None
        same = previous is not None and result.scores[previous] == result.scores[image_id]
        ranks[image_id] = ranks[previous] if same and previous is not None else k + 1
    rows = []
    for image_id in compared + [i for i in data.items if not result.comparisons[i]]:
        case_id, path = data.images[image_id]
        lo, hi = result.interval(image_id)
        rows.append(PooledRow(image_id, case_id, path, ranks.get(image_id),
                              result.scores[image_id], result.se[image_id], lo, hi,
                              result.comparisons[image_id], result.wins[image_id]))
    return PooledRanking(data.image_set, data.sessions, rows, result.method)


def pooled_ranking(project: Project, session_ids: Sequence[int] | None = None
                   ) -> PooledRanking:
    """One Bradley–Terry fit over the answers of ``session_ids`` (default: every pairwise
    session, if they share one image set); see the module docstring."""
    return rank_pooled(gather(project, session_ids))


def _fmt(x: float | None) -> str:
    return "" if x is None or math.isnan(x) else f"{x:.6g}"


def pooled_table(pooled: PooledRanking) -> list[tuple]:
    """The CSV cells (:data:`POOLED_COLUMNS`) of a pooled ranking."""
    names = "; ".join(s.session.name for s in pooled.sessions)
    return [(r.image_id, r.case_id, r.file, "" if r.rank is None else r.rank,
             _fmt(r.score) if r.comparisons else "", _fmt(r.se), _fmt(r.ci_low),
             _fmt(r.ci_high), r.comparisons, _fmt(r.wins), names, pooled.answers)
            for r in pooled.rows]


def write_pooled_csv(path: Path, pooled: PooledRanking) -> int:
    """Write a pooled ranking as ``slicereview ranking --pooled --csv`` does; returns rows."""
    table = pooled_table(pooled)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(POOLED_COLUMNS)
        writer.writerows(table)
    return len(table)


__all__ = ["PAIRWISE", "POOLED_COLUMNS", "PooledInput", "PooledRanking", "PooledRow",
           "PooledSession", "Z95", "choose_sessions", "gather", "pairwise_sessions",
           "pooled_ranking", "pooled_table", "rank_pooled", "write_pooled_csv"]
