"""The settings of a confidence session (:mod:`slicereview.app.rating.confidence`): who shares
it and when it stops, checked once for the Rate tab, ``slicereview rate new`` and reports.

>>> confidence_settings([3, 5], budget_per_image=20)
{'raters': [3, 5], 'budget_per_image': 20.0}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from slicereview.model import Session, SessionKind

#: The algorithm name stored with a confidence session (its version is the engine's VERSION).
ALGORITHM = "active-ranking"
#: Comparisons per image at which a session with a target and no budget stops.
DEFAULT_CAP = 50.0
@dataclass(frozen=True)
class StopRule:
    """When a confidence session stops: ``budget_per_image`` comparisons per image (total
    answers = round(budget × images)), expected Kendall τ ≥ ``target_tau``, or every image's
    rank standard deviation ≤ ``target_rank_se`` places — whichever comes first. ``None``:
    not used; at least one is set (a target without budget stops at :data:`DEFAULT_CAP`).

    >>> StopRule(budget_per_image=20).describe()
    '20 comparisons per image'
    >>> StopRule(target_tau=0.9).describe()
    'expected τ ≥ 0.9 (at most 50 comparisons per image)'
    """

    budget_per_image: float | None = None
    target_tau: float | None = None
    target_rank_se: float | None = None

    def __post_init__(self) -> None:
        if self.budget_per_image is None and self.target_tau is None \
                and self.target_rank_se is None:
            raise ValueError("a confidence session needs a budget (comparisons per image) or "
                             "a target (expected τ or rank standard error)")
        if self.budget_per_image is not None and not (
                math.isfinite(self.budget_per_image) and self.budget_per_image > 0):
            raise ValueError("the budget must be a positive number of comparisons per image")
        if self.target_tau is not None and not 0.0 < self.target_tau < 1.0:
            raise ValueError("the target expected τ must lie between 0 and 1 (e.g. 0.9)")
        if self.target_rank_se is not None and not (
                math.isfinite(self.target_rank_se) and self.target_rank_se > 0):
            raise ValueError("the target rank standard error must be a positive number of "
                             "places (e.g. 1.5)")

    @classmethod
    def from_settings(cls, settings: dict) -> StopRule:
        def number(key: str) -> float | None:
            value = settings.get(key)
            return None if value is None else float(value)

        return cls(number("budget_per_image"), number("target_tau"), number("target_rank_se"))

    @property
    def per_image(self) -> float:
        """Comparisons per image at which the session stops at the latest."""
        return DEFAULT_CAP if self.budget_per_image is None else self.budget_per_image

    def total(self, images: int) -> int:
        """Answers at which the session stops at the latest."""
        return max(1, int(round(self.per_image * images)))

    def describe(self) -> str:
        parts = []
        if self.target_tau is not None:
            parts.append(f"expected τ ≥ {self.target_tau:g}")
        if self.target_rank_se is not None:
            parts.append(f"rank SE ≤ {self.target_rank_se:g} places")
        budget = f"{self.per_image:g} comparisons per image"
        if not parts:
            return budget
        return " or ".join(parts) + (f" (at most {budget})" if self.budget_per_image is None
                                     else f", or {budget}")


def confidence_settings(raters: Sequence[int], budget_per_image: float | None = None,
                        target_tau: float | None = None,
                        target_rank_se: float | None = None) -> dict:
    """The settings of a new confidence session (checked: at least one rater, none twice, a
    valid :class:`StopRule`)."""
    raters = [int(r) for r in raters]
    if not raters:
        raise ValueError("a confidence session needs at least one rater")
    if len(set(raters)) != len(raters):
        raise ValueError("a rater is named twice")
    StopRule(budget_per_image, target_tau, target_rank_se)
    out: dict = {"raters": raters}
    for key, value in (("budget_per_image", budget_per_image), ("target_tau", target_tau),
                       ("target_rank_se", target_rank_se)):
        if value is not None:
            out[key] = float(value)
    return out


def method_of(session: Session) -> str:
    """How a rating session ranks, in words, for reports.

    >>> method_of(Session(1, SessionKind.EXHAUSTIVE, 1, 1, "e"))
    'exhaustive (every pair once)'
    """
    kind = session.kind
    if kind == SessionKind.SORT:
        return f"sort ({session.algorithm} v{session.algorithm_version})"
    if kind == SessionKind.EXHAUSTIVE:
        return "exhaustive (every pair once)"
    if kind == SessionKind.CONFIDENCE:
        rule = StopRule.from_settings(session.settings)
        return (f"to a confidence (active ranking v{session.algorithm_version}; stops at "
                f"{rule.describe()})")
    return "classify (one grade per image)" if kind == SessionKind.CLASSIFY else str(kind)


__all__ = ["ALGORITHM", "DEFAULT_CAP", "StopRule", "confidence_settings", "method_of"]
