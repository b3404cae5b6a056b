"""What the stored answers say about the raters: per-rater reliability (Crowd-BT) of the
answers of one or more pairwise sessions, and the rater noise ``T`` of a session (for
``plan-rating --from-session``).

Every answer counts with its own rater: the rater stored with the answer in a shared confidence
session, the session's rater otherwise. Reliability is
:func:`slicereview.engines.ranking.raters.crowd_bt` [Chen2013] over the answers pooled (η: 1 a
rater who always answers as the pooled ranking says, ½ a coin, below ½ the reverse question;
with one rater it measures consistency with their own ranking); the noise is
:func:`slicereview.engines.ranking.raters.estimate_noise` (repeats and intransitive triads).
Crowd-BT is an EM that may take seconds for a few thousand answers: the GUI computes it off
its thread, from a :class:`RaterInput` read on it.

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
>>> for name in ("ann", "bob"):
...     sid = create_session(project, "exhaustive", project.raters.add(name), set_id, name)
...     for a, b in ((0, 1), (1, 2), (0, 2)):
...         _ = project.ratings.record_answer(sid, ids[a], ids[b], "left")
>>> [(line.name, line.answers) for line in rater_input(project, [1, 2]).compute()]
[('ann', 3), ('bob', 3)]
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slicereview.engines.ranking.raters import NoiseEstimate, crowd_bt, estimate_noise
from slicereview.engines.ranking.schedule import presentation_order

if TYPE_CHECKING:
    from slicereview.store import Project

_VALUE = {"left": 1.0, "right": 0.0, "same": 0.5}


@dataclass(frozen=True)
class RaterLine:
    """One rater: answers given, Crowd-BT ``eta`` and ``agreement`` (the share of their
    decided answers that agree with the pooled Crowd-BT ranking); NaN without answers."""

    rater_id: int
    name: str
    answers: int
    eta: float
    agreement: float


@dataclass(frozen=True)
class RaterInput:
    """The answers of some sessions as ``(left, right, s, rater id as text)`` over ``items``,
    with each rater's ``names`` (read on the GUI thread; :meth:`compute` runs anywhere)."""

    items: tuple[int, ...]
    answers: tuple[tuple[int, int, float, str], ...]
    names: dict[int, str]

    def compute(self) -> list[RaterLine]:
        """Crowd-BT reliability per rater, in the order of :attr:`names`."""
        fitted = crowd_bt(self.items, self.answers).raters
        out = []
        for rater_id, name in self.names.items():
            r = fitted.get(str(rater_id))
            if r is not None:
                out.append(RaterLine(rater_id, name, r.answers, r.eta, r.agreement))
        return out

    def noise(self) -> NoiseEstimate:
        """The rater noise ``T`` of these answers (each rater's repeats, every triad)."""
        return estimate_noise(self.items, self.answers)


def rater_input(project: Project, session_ids: Sequence[int]) -> RaterInput:
    """The answers of the pairwise sessions ``session_ids`` with their raters. Items are the
    union of the sessions' image sets in the first session's presentation order."""
    items: list[int] = []
    seen: set[int] = set()
    answers = []
    rater_ids: list[int] = []
    for session_id in session_ids:
        s = project.ratings.session(session_id)
        members = project.image_sets.members(s.image_set_id)
        for image_id in presentation_order(members, s.seed, s.settings.get("initial_count")):
            if image_id not in seen:
                seen.add(image_id)
                items.append(image_id)
        for r in [int(x) for x in s.settings.get("raters") or []] + [s.rater_id]:
            if r not in rater_ids:
                rater_ids.append(r)
        for a in project.ratings.answers(session_id):
            rater = s.rater_id if a.rater_id is None else a.rater_id
            if rater not in rater_ids:
                rater_ids.append(rater)
            answers.append((a.left, a.right, _VALUE[str(a.answer)], str(rater)))
    answered = {int(r) for *_, r in answers}
    names = {r: project.raters.get(r).name for r in rater_ids if r in answered}
    return RaterInput(tuple(items), tuple(answers), names)


def session_noise(project: Project, session_id: int) -> NoiseEstimate:
    """The rater noise ``T`` estimated from one session's answers (see the module docstring):
    ``T`` is ``None`` without a repeat or a decided triad; ``bound`` when nothing contradicted
    anything (a consistent sort pass: ``T`` is then an upper guess, not a measurement)."""
    return rater_input(project, [session_id]).noise()


__all__ = ["RaterInput", "RaterLine", "rater_input", "session_noise"]
