"""Plain-Python helpers behind :class:`~slicereview.gui.session.ProjectSession`'s rating block.

No Qt here: the session list, creating sessions and second passes are computed from the store
so that the Rate page only shows values. Engines (:class:`RatingSession`) are kept per open
project: each holds its session's answers in memory so the next pair is a replay step, not a
re-read of the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from slicereview.cli.rating import CSV_COLUMNS, write_ranking_csv
from slicereview.core.model import Session, SessionKind
from slicereview.core.ranking import DEFAULT
from slicereview.core.ranking.reliability import ReliabilityReport, reliability
from slicereview.core.ranking.replay import Ranking
from slicereview.core.ranking.scoring import DEFAULT_LABELS
from slicereview.core.ranking.session import Comparison, GradeRequest, RatingSession

if TYPE_CHECKING:
    from slicereview.core.store import Project

__all__ = [
    "CSV_COLUMNS", "Comparison", "Current", "GradeRequest", "NewSessionSpec", "Ranking",
    "RatingSession", "ReliabilityReport", "SessionSummary", "create_session", "engine",
    "overview", "reliability", "second_pass", "write_ranking_csv",
]

Current = Comparison | GradeRequest | Ranking
RATING_KINDS = (SessionKind.SORT, SessionKind.EXHAUSTIVE, SessionKind.CLASSIFY)
DEFAULT_QUESTION = "Which image shows more motion artifact?"


@dataclass(frozen=True)
class SessionSummary:
    """One row of the Rate page's session list."""

    session: Session
    rater: str
    simulated: bool
    image_set: str
    images: int
    answered: int
    finished: bool


@dataclass(frozen=True)
class NewSessionSpec:
    """What the "New session" dialog asks for. ``image_set_id`` ``None`` = all images (a new
    set is made); ``name`` empty = "<rater> — <kind> <n>"; ``seed`` ``None`` = random."""

    kind: SessionKind
    rater: str
    image_set_id: int | None
    question: str = DEFAULT_QUESTION
    algorithm: str = DEFAULT
    k: int | None = None
    labels: tuple[str, ...] = DEFAULT_LABELS
    name: str = ""
    seed: int | None = None
    settings: dict = field(default_factory=dict)


def engine(session: object, session_id: int) -> RatingSession:
    """The cached engine of ``session_id`` for ``session.project`` (made on first use)."""
    project = session.project  # type: ignore[attr-defined]
    cache: dict = session.__dict__.setdefault("_rating_engines", {})
    if any(e.project is not project for e in cache.values()):
        cache.clear()  # another project was opened: drop the old engines with their answers
    rs = cache.get(session_id)
    if rs is None or rs.project is not project:
        rs = RatingSession(project, session_id)
        cache[session_id] = rs
    return rs


def overview(session: object) -> list[SessionSummary]:
    """Every rating session of the open project, in creation order."""
    project: Project = session.project  # type: ignore[attr-defined]
    sets = project.image_sets()
    raters = {r.id: r for r in project.raters()}
    rows = []
    for s in project.sessions():
        if s.kind not in RATING_KINDS:
            continue
        rs = engine(session, s.id)
        rater = raters[s.rater_id]
        rows.append(SessionSummary(
            s, rater.name, rater.simulated, sets.get(s.image_set_id, "?"), len(rs.items),
            rs.answer_count, project.session_finished_at(s.id) is not None,
        ))
    return rows


def unique_name(project: Project, base: str) -> str:
    """``base``, or ``base (2)``, ``base (3)``… so that sessions can be named on the CLI."""
    taken = {s.name for s in project.sessions()}
    if base not in taken:
        return base
    n = 2
    while f"{base} ({n})" in taken:
        n += 1
    return f"{base} ({n})"


def create_session(project: Project, spec: NewSessionSpec) -> int:
    """Create the session ``spec`` describes (rater created when new); returns its id."""
    rater_name = spec.rater.strip()
    if not rater_name:
        raise ValueError("a session needs a rater name")
    kind = SessionKind(spec.kind)
    image_set_id = spec.image_set_id
    if image_set_id is None:
        ids = [im.id for im in project.images()]
        if len(ids) < 2:
            raise ValueError("rating needs at least two images in the project")
        image_set_id = project.create_image_set(
            unique_set_name(project, f"All images ({len(ids)})"), ids)
    if len(project.image_set(image_set_id)) < 2:
        raise ValueError("rating needs an image set of at least two images")
    settings = dict(spec.settings)
    if kind == SessionKind.CLASSIFY:
        settings["labels"] = [label.strip() for label in spec.labels if label.strip()]
    if kind == SessionKind.SORT and spec.algorithm == "top-k" and spec.k:
        settings["k"] = int(spec.k)
    rater_id = project.ensure_rater(rater_name)
    passes = sum(1 for s in project.sessions(kind, rater_id, image_set_id))
    name = unique_name(project, spec.name.strip() or f"{rater_name} — {kind} {passes + 1}")
    return project.create_session(
        kind, rater_id, image_set_id, name, spec.question.strip(), seed=spec.seed,
        algorithm=spec.algorithm if kind == SessionKind.SORT else None, settings=settings,
    )


def unique_set_name(project: Project, base: str) -> str:
    taken = set(project.image_sets().values())
    n, name = 2, base
    while name in taken:
        name, n = f"{base} ({n})", n + 1
    return name


def second_pass(project: Project, session_id: int) -> int:
    """A second pass over a finished sort session: same rater, image set, question, algorithm
    and settings, a new random seed (so a new presentation order and placement)."""
    s = project.session(session_id)
    if s.kind != SessionKind.SORT:
        raise ValueError("a second pass follows a sort session")
    if project.session_finished_at(session_id) is None:
        raise ValueError(f"session {s.name!r} is not finished yet")
    settings = {key: v for key, v in s.settings.items() if key != "initial_count"}
    base = s.name.split(" — pass ")[0]
    passes = sum(1 for o in project.sessions(s.kind, s.rater_id, s.image_set_id))
    name = unique_name(project, f"{base} — pass {passes + 1}")
    return project.create_session(s.kind, s.rater_id, s.image_set_id, name, s.question,
                                  phase=s.phase, algorithm=s.algorithm, settings=settings)
