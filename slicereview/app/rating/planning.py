"""Budgeting a confidence session before it starts (``slicereview plan-rating``): how many
comparisons per image reach a target Kendall τ, by simulating sessions of the engine with a
rater of a given noise — or of the noise measured from a session's answers.

The simulation is :func:`slicereview.engines.ranking.plan.plan` (true scores ~ N(0, 1), the
rater prefers ``a`` with probability ``1 / (1 + exp(-(s_a - s_b) / T))``); the measured noise is
:func:`slicereview.app.rating.raters.session_noise` (repeats and intransitive triads, on the
same scale). The rules:

* a session whose answers neither repeat a pair nor close a decided triad cannot show its noise:
  ``ValueError`` (give the noise instead);
* a session whose answers never contradict each other gives an upper guess of ``T`` (the plan
  is then on the safe side), which :attr:`RatingPlan.estimate` says (``bound``);
* the number of images defaults to the session's image set.

Example
-------
>>> p = plan_rating(12, noise=0.15, target=0.6, seeds=1, max_per_image=6)
>>> p.images, p.noise, p.result.per_image is not None
(12, 0.15, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slicereview.app.rating.raters import session_noise
from slicereview.engines.ranking.plan import Plan, Progress, plan
from slicereview.engines.ranking.raters import NoiseEstimate

if TYPE_CHECKING:
    from slicereview.store import Project


@dataclass(frozen=True)
class RatingPlan:
    """A plan: for ``images`` images and rater noise ``noise`` (``estimate``: how it was
    measured, ``None`` when given), the simulation's ``result`` and the ``seconds`` it took."""

    images: int
    noise: float
    estimate: NoiseEstimate | None
    result: Plan
    seconds: float


def measured_noise(project: Project, session_id: int) -> NoiseEstimate:
    """The noise of a session's answers; ``ValueError`` when nothing in them can show it."""
    estimate = session_noise(project, session_id)
    if estimate.T is None:
        name = project.ratings.session(session_id).name
        raise ValueError(f"session {name!r} has no repeated pair and no decided triad: "
                         "nothing in it shows its rater's noise; give the noise instead")
    return estimate


def plan_rating(images: int | None = None, noise: float | None = None,
                project: Project | None = None, session_id: int | None = None,
                target: float = 0.9, seeds: int = 3, max_per_image: int = 30,
                progress: Progress | None = None) -> RatingPlan:
    """Plan a confidence session of ``images`` images for a target mean Kendall τ, with the
    rater noise ``noise``, or measured from ``session_id`` of ``project`` (see the module
    docstring)."""
    estimate = None
    if session_id is not None:
        if project is None:
            raise ValueError("a session is read from a project")
        estimate = measured_noise(project, session_id)
        noise = estimate.T
        if images is None:
            set_id = project.ratings.session(session_id).image_set_id
            images = len(project.image_sets.members(set_id))
    if noise is None or not (math.isfinite(noise) and noise > 0):
        raise ValueError("the rater noise T must be a positive number (0.15 reliable, 0.5 "
                         "noisy)")
    if images is None or images < 2:
        raise ValueError("a plan needs at least 2 images")
    started = time.monotonic()
    result = plan(images, noise, target, max_per_image, seeds, progress)
    return RatingPlan(images, noise, estimate, result, time.monotonic() - started)


__all__ = ["RatingPlan", "measured_noise", "plan_rating"]
