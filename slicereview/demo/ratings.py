"""The demo project's rating sessions: simulated raters who finished their work.

:func:`add_demo_ratings` gives the demo's MRI motion set two finished sort sessions by two
simulated raters (a careful one and a noisy one), one classify session, and one confidence
session the two share (taking turns, to :data:`CONFIDENCE_BUDGET` comparisons per image),
answered from the known truth (the motion strength of each slice, kept in the project's
``demo_truth`` meta entry). So the reliability panel and ``slicereview reliability`` have real
material in a fresh demo. The raters are stored with ``simulated = 1`` and say so in their names.

Example
-------
>>> import json, tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> project = Project.create(folder / "p.srproj")
>>> files = [folder / f"img_{i}.png" for i in range(6)]
>>> _ = [f.write_bytes(b"") for f in files]
>>> ids = [project.images.add_source(f, f"{i:064x}", "png", [NewImage(8, 8)])[0]
...        for i, f in enumerate(files)]
>>> _ = project.image_sets.create("set", ids)
>>> project.set_meta("demo_truth", json.dumps(
...     {f"img_{i}.png": {"severity": i // 2, "strength": i / 5} for i in range(6)}))
>>> sessions = add_demo_ratings(project, "set")
>>> [project.ratings.session_finished_at(s) is not None for s in sessions]
[True, True, True, True]
>>> project.close()
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import TYPE_CHECKING

from slicereview.app.rating.confidence import ConfidenceRun
from slicereview.app.rating.confidence_rules import confidence_settings
from slicereview.app.rating.run import Comparison, GradeRequest, RatingRun
from slicereview.app.rating.sessions import create_session
from slicereview.demo.raters import SimulatedRater
from slicereview.model import SessionKind

if TYPE_CHECKING:
    from slicereview.store import Project

PROMPT = "Which image shows more motion artifact?"
CLASSIFY_PROMPT = "How much motion artifact does this image show?"
CAREFUL = "Simulated rater 1 (careful)"
NOISY = "Simulated rater 2 (noisy)"

#: (rater name, perception noise, "same" threshold, median seconds, share of answers > 20 s,
#: seed). Noise and threshold are in motion-strength units (levels are ~0.3 apart, strengths
#: within a level vary by ±0.05), so the careful rater confuses mostly neighbours within a
#: level and the noisy one also neighbouring levels now and then.
PROFILES = (
    (CAREFUL, 0.04, 0.03, 4.0, 0.02, 11),
    (NOISY, 0.12, 0.06, 2.5, 0.05, 22),
)
#: Comparisons per image of the shared confidence session.
CONFIDENCE_BUDGET = 6.0


def demo_truth_by_image(project: Project, image_set_id: int) -> dict[int, float]:
    """``{image id: motion strength}`` for the set's images named in ``demo_truth``."""
    truth = json.loads(project.meta("demo_truth") or "{}")
    out: dict[int, float] = {}
    for image_id in project.image_sets.members(image_set_id):
        entry = truth.get(PurePath(project.images.get(image_id).path).name)
        if entry is not None:
            out[image_id] = float(entry["strength"])
    return out


def add_demo_ratings(project: Project, image_set_name: str,
                     labels: tuple[str, ...] = ("none", "mild", "moderate", "severe")) -> list[int]:
    """Add the simulated raters' finished sessions over the image set ``image_set_name``.

    Returns the new session ids: a sort session per rater in :data:`PROFILES` (default
    algorithm, fixed seeds) and a classify session of the careful rater with ``labels``.
    ``KeyError`` when the set does not exist; ``ValueError`` when ``demo_truth`` names none of
    its images.
    """
    set_ids = [i for i, name in project.image_sets.all().items() if name == image_set_name]
    if not set_ids:
        raise KeyError(f"no image set named {image_set_name!r}")
    set_id = set_ids[0]
    truth = demo_truth_by_image(project, set_id)
    if not truth:
        raise ValueError(f"demo_truth names none of the images of {image_set_name!r}")
    missing = [i for i in project.image_sets.members(set_id) if i not in truth]
    if missing:
        raise ValueError(f"demo_truth has no entry for images {missing}")
    created: list[int] = []
    raters: dict[str, SimulatedRater] = {}
    for name, noise, same_within, median_s, slow_share, seed in PROFILES:
        rater_id = project.raters.ensure(name, simulated=True)
        rater = SimulatedRater(truth, noise, same_within, seed=seed, name=name,
                               median_s=median_s, slow_share=slow_share)
        raters[name] = rater
        sid = create_session(project, SessionKind.SORT, rater_id, set_id, f"{name} — sort",
                                     PROMPT, seed=1000 + seed)
        complete_session(RatingRun(project, sid), rater)
        created.append(sid)
    sid = create_session(project,
        SessionKind.CLASSIFY, project.raters.ensure(CAREFUL, simulated=True), set_id,
        f"{CAREFUL} — classify", CLASSIFY_PROMPT, seed=2000, settings={"labels": list(labels)})
    complete_session(RatingRun(project, sid), raters[CAREFUL])
    created.append(sid)
    ids = [project.raters.ensure(name, simulated=True) for name, *_ in PROFILES]
    sid = create_session(
        project, SessionKind.CONFIDENCE, ids[0], set_id, "Simulated raters — to a confidence",
        PROMPT, seed=3000, settings=confidence_settings(ids, CONFIDENCE_BUDGET))
    share_session(ConfidenceRun(project, sid), [raters[name] for name, *_ in PROFILES])
    created.append(sid)
    return created


def share_session(run: ConfidenceRun, raters: list[SimulatedRater]) -> int:
    """The session's raters (``raters[k]`` is its ``k``-th) answer in turn until it stops, in
    one transaction; a pair asked again is answered with fresh perception noise (the ``r``-th
    answer to a pair by a rater whose seed is offset by ``r``). Returns the answers given."""
    given = 0
    asked: dict[frozenset, int] = {}
    with run.project.transaction():
        while True:
            k = given % len(raters)
            run.set_rater(run.raters[k])
            now = run.current()
            if not isinstance(now, Comparison):
                return given
            pair = frozenset((now.left, now.right))
            r = asked[pair] = asked.get(pair, -1) + 1
            base = raters[k]
            rater = base if r == 0 else SimulatedRater(
                base.truth, base.noise, base.same_within, seed=base.seed + 101 * r,
                name=base.name, median_s=base.median_s, slow_share=base.slow_share)
            run.answer(rater.answer(now.left, now.right), rater.active_ms(now.left, now.right))
            given += 1


def complete_session(rating_session: RatingRun, rater: SimulatedRater) -> int:
    """Let ``rater`` finish a stored :class:`~slicereview.app.rating.run.RatingRun`
    (sort, exhaustive or classify) in one transaction; returns the number of answers given.

    Used by the demo to store simulated raters' sessions (name their raters as simulated).
    """
    given = 0
    with rating_session.project.transaction():
        while True:
            now = rating_session.current()
            if isinstance(now, Comparison):
                rating_session.answer(rater.answer(now.left, now.right),
                                      rater.active_ms(now.left, now.right))
            elif isinstance(now, GradeRequest):
                rating_session.grade(rater.grade(now.image_id, len(now.labels)),
                                     rater.active_ms(now.image_id, now.image_id))
            else:
                return given
            given += 1
