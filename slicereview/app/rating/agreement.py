"""Agreement between finished rating sessions: rank reliability, for ``slicereview
reliability`` and the Rate tab's reliability panel.

Per pair of sessions Pearson r (of the scores), Spearman ρ, Kendall τ-b, ICC(2,k) (two-way
random, absolute) and the top-N intersection, with ties broken at random and averaged over
``randomisations`` draws from a fixed seed, as SliceLabeler reports them [Jang2022]; per session
the answer times. The statistic is
:func:`slicereview.engines.ranking.reliability.reliability`; this module reads the sessions'
scores from the project (a session must be finished) and fixes the defaults both front ends use.
The GUI reads with :func:`session_scores` on its thread and computes with :func:`compare` in a
worker.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> from slicereview.app.rating.sessions import create_session
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = [project.images.add_source(pathlib.Path(__file__), f"{i:064x}", "png",
...                                   [NewImage(8, 8)])[0] for i in range(3)]
>>> set_id = project.image_sets.create("s", ids)
>>> sessions = []
>>> for name, answers in (("ann", "left left left"), ("bob", "left right left")):
...     sid = create_session(project, "exhaustive", project.raters.add(name), set_id, name)
...     for (a, b), answer in zip(((0, 1), (1, 2), (0, 2)), answers.split()):
...         _ = project.ratings.record_answer(sid, ids[a], ids[b], answer)
...     sessions.append(sid)
>>> report = compare(session_scores(project, sessions), randomisations=10)
>>> len(report.pairs), round(report.pairs[0].spearman, 2)
(1, 0.5)
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from slicereview.app.rating.run import open_run

if TYPE_CHECKING:
    from slicereview.engines.ranking.reliability import ReliabilityReport, SessionScores
    from slicereview.store import Project

#: Random tie-breaks averaged over by default (SliceLabeler's and the CLI's default).
RANDOMISATIONS = 100


def session_scores(project: Project, session_ids: Sequence[int]) -> list[SessionScores]:
    """The scores of finished sessions, in the order given; ``ValueError`` names an unfinished
    one."""
    return [open_run(project, sid).session_scores() for sid in session_ids]


def compare(scores: Sequence[SessionScores], randomisations: int = RANDOMISATIONS,
            seed: int | None = None) -> ReliabilityReport:
    """Rank reliability of two or more sessions' scores (``seed`` None: the engine's fixed
    seed, so that a report is the same every time it is made)."""
    from slicereview.engines.ranking.reliability import SEED, reliability

    if len(scores) < 2:
        raise ValueError("give at least two sessions")
    return reliability(scores, randomisations=randomisations,
                       seed=SEED if seed is None else seed)


def report_text(report: ReliabilityReport) -> str:
    """The report as ``slicereview reliability`` prints it (aligned columns)."""
    from slicereview.engines.ranking.reliability import format_report

    return format_report(report)
