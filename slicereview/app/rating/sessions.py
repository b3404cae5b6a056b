"""The rating job: creating rating sessions (every rule once), the session list, the running
engines of one open project, and the ranking CSV.

The GUI's gateway and the CLI both call this module, so a session made from either gets the
same defaults and checks: at least two images, a default algorithm and its version, 2–9
classify labels, a random seed, a unique name. :class:`RatingRuns` keeps one
:class:`~slicereview.app.rating.run.RatingRun` per session of an open project, so the next pair
is a replay step, not a re-read of the file.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = [project.images.add_source(pathlib.Path(__file__), f"{i:064x}", "png",
...                                  [NewImage(8, 8)])[0] for i in range(3)]
>>> sid = create_session(project, "sort", project.raters.add("ann"),
...                      project.image_sets.create("s", ids), "pass 1", seed=5)
>>> project.ratings.session(sid).algorithm
'tie-aware-merge-insertion'
>>> project.close()
"""

from __future__ import annotations

import csv
import math
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.app.rating.confidence import ConfidenceRun
from slicereview.app.rating.confidence_rules import ALGORITHM as CONFIDENCE_ALGORITHM
from slicereview.app.rating.confidence_rules import StopRule, confidence_settings
from slicereview.app.rating.run import (
    Comparison,
    Current,
    GradeRequest,
    RankingRow,
    RatingRun,
    open_run,
)
from slicereview.engines.ranking import DEFAULT, DEFAULT_K, algorithm_version
from slicereview.engines.ranking.active import VERSION as ACTIVE_VERSION
from slicereview.engines.ranking.replay import Ranking
from slicereview.engines.ranking.scoring import DEFAULT_LABELS
from slicereview.model import Phase, Session, SessionKind

if TYPE_CHECKING:
    from slicereview.store import Project

__all__ = [
    "CSV_COLUMNS", "Comparison", "Current", "GradeRequest", "NewSessionSpec", "Ranking",
    "RatingRun", "RatingRuns", "SessionSummary", "create_session", "second_pass",
    "start_session", "write_ranking_csv",
]

#: Header of ``slicereview ranking --csv`` (``answers`` and ``active_time_s`` are the session's
#: totals, repeated on every row; ``bt_score``/``bt_se`` are the Bradley–Terry score and its
#: standard error of pairwise sessions, ``comparisons`` the answers the image took part in).
CSV_COLUMNS = ("image_id", "case_id", "file", "rank", "tier", "score", "rater", "session",
               "answers", "active_time_s", "bt_score", "bt_se", "comparisons")

RATING_KINDS = (SessionKind.SORT, SessionKind.EXHAUSTIVE, SessionKind.CONFIDENCE,
                SessionKind.CLASSIFY)
DEFAULT_PROMPT = "Which image shows more motion artifact?"
#: The default prompt of a classify session (one image at a time: a grade, not a choice).
DEFAULT_GRADE_PROMPT = "How much motion artifact does this image show?"


def default_prompt(kind: SessionKind | str) -> str:
    """The prompt a new session of ``kind`` starts with.

    >>> default_prompt("classify")
    'How much motion artifact does this image show?'
    """
    return DEFAULT_GRADE_PROMPT if str(kind) == "classify" else DEFAULT_PROMPT


@dataclass(frozen=True)
class SessionSummary:
    """One row of the Rate page's session list (``rater``: the raters' names, comma-separated
    when they share a confidence session)."""

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
    set is made); ``name`` empty = "<rater> — <kind> <n>"; ``seed`` ``None`` = random. A
    confidence session also takes the other raters sharing it (``shared_with``, names; new
    names become raters) and its ``stop`` rule."""

    kind: SessionKind
    rater: str
    image_set_id: int | None
    prompt: str = DEFAULT_PROMPT
    algorithm: str = DEFAULT
    k: int | None = None
    labels: tuple[str, ...] = DEFAULT_LABELS
    name: str = ""
    seed: int | None = None
    settings: dict = field(default_factory=dict)
    shared_with: tuple[str, ...] = ()
    stop: StopRule | None = None


class RatingRuns:
    """The running engines of one open project's rating sessions, made on first use.

    Each :class:`RatingRun` holds its session's answers in memory, so keep one ``RatingRuns``
    per open project (the GUI's gateway does) and drop it when the project closes.
    """

    def __init__(self, project: Project) -> None:
        self.project = project
        self._runs: dict[int, RatingRun] = {}
        #: Who answers in this window, per shared confidence session (kept when a run is
        #: dropped and made again, e.g. after another instance's answers).
        self._acting: dict[int, int] = {}

    def run(self, session_id: int) -> RatingRun:
        """The engine of ``session_id`` (made and cached on first use)."""
        rs = self._runs.get(session_id)
        if rs is None:
            rs = self._runs[session_id] = open_run(self.project, session_id)
            acting = self._acting.get(session_id)
            if isinstance(rs, ConfidenceRun) and acting in rs.raters:
                rs.set_rater(acting)
        return rs

    def set_acting_rater(self, session_id: int, rater_id: int) -> None:
        """Answer ``session_id`` (a confidence session) as ``rater_id`` in this window."""
        rs = self.run(session_id)
        if not isinstance(rs, ConfidenceRun):
            raise ValueError(f"session {session_id} has one rater")
        rs.set_rater(rater_id)
        self._acting[session_id] = rater_id

    def acting_rater(self, session_id: int) -> int | None:
        """The rater chosen with :meth:`set_acting_rater`, or ``None``."""
        return self._acting.get(session_id)

    def cached(self, session_id: int) -> RatingRun | None:
        """The engine kept for a session, or ``None`` (none made yet)."""
        return self._runs.get(session_id)

    def forget(self, session_id: int | None = None) -> None:
        """Drop one cached engine (or all): the next :meth:`run` re-reads the file."""
        if session_id is None:
            self._runs.clear()
        else:
            self._runs.pop(session_id, None)

    def overview(self) -> list[SessionSummary]:
        """Every rating session of the project, in creation order."""
        project = self.project
        sets = project.image_sets.all()
        raters = {r.id: r for r in project.raters.all()}
        rows = []
        for s in project.ratings.sessions():
            if s.kind not in RATING_KINDS:
                continue
            rs = self.run(s.id)
            rater = raters[s.rater_id]
            shared = s.settings.get("raters") or [s.rater_id]
            names = ", ".join(raters[int(r)].name for r in shared)
            rows.append(SessionSummary(
                s, names, rater.simulated, sets.get(s.image_set_id, "?"), len(rs.items),
                rs.answer_count, project.ratings.session_finished_at(s.id) is not None,
            ))
        return rows


def unique_name(project: Project, base: str) -> str:
    """``base``, or ``base (2)``, ``base (3)``… so that sessions can be named on the CLI."""
    taken = {s.name for s in project.ratings.sessions()}
    if base not in taken:
        return base
    n = 2
    while f"{base} ({n})" in taken:
        n += 1
    return f"{base} ({n})"


def create_session(
    project: Project, kind: SessionKind | str, rater_id: int, image_set_id: int, name: str,
    prompt: str = "", seed: int | None = None, phase: Phase | str = Phase.FORMAL,
    algorithm: str | None = None, settings: dict | None = None,
) -> int:
    """Create a rating session and return its id: the one place its defaults are applied.

    ``seed`` (random when ``None``) fixes the presentation order and left/right placement.
    Sort sessions store ``algorithm`` (default :data:`slicereview.engines.ranking.DEFAULT`)
    and its version; ``"top-k"`` gets ``k`` (default 10). Classify sessions get ``labels``
    (default none / mild / moderate / severe; 2 to 9, keys 1-9). Confidence sessions store
    the active-ranking engine's name and version, and need ``settings`` of
    :func:`slicereview.app.rating.confidence.confidence_settings` (the raters sharing the
    session, ``rater_id`` first, and the stop rule). Other kinds have no algorithm.
    """
    kind = SessionKind(kind)
    settings = dict(settings or {})
    version = None
    if kind == SessionKind.SORT:
        algorithm = algorithm or DEFAULT
        version = algorithm_version(algorithm)
        if algorithm == "top-k":
            settings.setdefault("k", DEFAULT_K)
    elif kind == SessionKind.CONFIDENCE:
        if algorithm not in (None, CONFIDENCE_ALGORITHM):
            raise ValueError(f"a confidence session runs {CONFIDENCE_ALGORITHM!r}, not "
                             f"{algorithm!r}")
        algorithm, version = CONFIDENCE_ALGORITHM, ACTIVE_VERSION
        raters = [int(r) for r in settings.pop("raters", None) or []]
        raters = [rater_id] + [r for r in raters if r != rater_id]
        rule = StopRule.from_settings(settings)
        settings.update(confidence_settings(raters, rule.budget_per_image, rule.target_tau,
                                            rule.target_rank_se))
        for r in raters:
            project.raters.get(r)  # KeyError for a rater not in the project
    elif algorithm is not None:
        raise ValueError(f"only sort sessions have an algorithm, not {kind} sessions")
    if kind == SessionKind.CLASSIFY:
        labels = list(settings.setdefault("labels", list(DEFAULT_LABELS)))
        if not 2 <= len(labels) <= 9:
            raise ValueError("a classify session needs 2 to 9 labels (keys 1-9)")
    if seed is None:
        seed = secrets.randbits(31)
    return project.ratings.create_session(kind, rater_id, image_set_id, name, prompt, seed,
                                          Phase(phase), algorithm, version, settings)


def start_session(project: Project, spec: NewSessionSpec) -> int:
    """Create the session ``spec`` describes (rater created when new); returns its id."""
    rater_name = spec.rater.strip()
    if not rater_name:
        raise ValueError("a session needs a rater name")
    kind = SessionKind(spec.kind)
    image_set_id = spec.image_set_id
    if image_set_id is None:
        ids = [im.id for im in project.images.all()]
        if len(ids) < 2:
            raise ValueError("rating needs at least two images in the project")
        image_set_id = project.image_sets.create(
            unique_set_name(project, f"All images ({len(ids)})"), ids)
    if len(project.image_sets.members(image_set_id)) < 2:
        raise ValueError("rating needs an image set of at least two images")
    settings = dict(spec.settings)
    if kind == SessionKind.CLASSIFY:
        settings["labels"] = [label.strip() for label in spec.labels if label.strip()]
    if kind == SessionKind.SORT and spec.algorithm == "top-k" and spec.k:
        settings["k"] = int(spec.k)
    others = [name.strip() for name in spec.shared_with if name.strip()]
    if kind == SessionKind.CONFIDENCE:
        if spec.stop is None:
            raise ValueError("a confidence session needs a budget or a target")
        if rater_name in others or len(set(others)) != len(others):
            raise ValueError("a rater is named twice")
    elif others:
        raise ValueError("only a confidence session is shared by several raters")
    rater_id = project.raters.ensure(rater_name)
    if kind == SessionKind.CONFIDENCE:
        assert spec.stop is not None
        raters = [rater_id, *(project.raters.ensure(name) for name in others)]
        settings.update(confidence_settings(raters, spec.stop.budget_per_image,
                                            spec.stop.target_tau, spec.stop.target_rank_se))
    passes = sum(1 for s in project.ratings.sessions(kind, rater_id, image_set_id))
    name = unique_name(project, spec.name.strip() or f"{rater_name} — {kind} {passes + 1}")
    return create_session(
        project, kind, rater_id, image_set_id, name, spec.prompt.strip(), seed=spec.seed,
        algorithm=spec.algorithm if kind == SessionKind.SORT else None, settings=settings,
    )


def unique_set_name(project: Project, base: str) -> str:
    taken = set(project.image_sets.all().values())
    n, name = 2, base
    while name in taken:
        name, n = f"{base} ({n})", n + 1
    return name


def second_pass(project: Project, session_id: int) -> int:
    """A second pass over a finished sort session: same rater, image set, prompt, algorithm
    and settings, a new random seed (so a new presentation order and placement)."""
    s = project.ratings.session(session_id)
    if s.kind != SessionKind.SORT:
        raise ValueError("a second pass follows a sort session")
    if project.ratings.session_finished_at(session_id) is None:
        raise ValueError(f"session {s.name!r} is not finished yet")
    settings = {key: v for key, v in s.settings.items() if key != "initial_count"}
    base = s.name.split(" — pass ")[0]
    passes = sum(1 for o in project.ratings.sessions(s.kind, s.rater_id, s.image_set_id))
    name = unique_name(project, f"{base} — pass {passes + 1}")
    return create_session(project, s.kind, s.rater_id, s.image_set_id, name, s.prompt,
                          phase=s.phase, algorithm=s.algorithm, settings=settings)


def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.6g}"


def ranking_table(rows: list[RankingRow]) -> list[tuple]:
    """The CSV cells (:data:`CSV_COLUMNS`) of a session's :meth:`RatingRun.rows`; an image
    never compared has empty ``bt_score`` and ``bt_se``."""
    return [(r.image_id, r.case_id, r.file, "" if r.rank is None else r.rank,
             "" if r.tier is None else r.tier, _fmt(r.score), r.rater, r.session,
             r.session_answers, f"{r.session_active_s:.3f}",
             _fmt(r.bt_score) if r.comparisons else "", _fmt(r.bt_se),
             "" if r.comparisons is None else r.comparisons) for r in rows]


def write_ranking_csv(path: Path, rows: list[RankingRow]) -> int:
    """Write ``rows`` as the ``slicereview ranking --csv`` file; returns the images written."""
    table = ranking_table(rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(table)
    return len(table)
