"""Raters: the people of a project and the models that predict like one (docs/models.md,
"A model is a rater").

A rater of kind :attr:`RaterKind.MODEL` stands for a model's predictions: its annotations are
a model's output, stored like a person's finished work so that exports, the queue and the
report include it, but it is never counted as a person (``app/models/raters.py`` holds the
rule). It has no login and no group.

>>> Rater(3, "bac-unet", Role.ANNOTATOR, kind=RaterKind.MODEL, version="1.2").label
'bac-unet@1.2'
>>> Rater(1, "ann", Role.ANNOTATOR).is_model
False
"""

from __future__ import annotations

from dataclasses import dataclass, field

from slicereview.model.base import StrEnum


class Role(StrEnum):
    ANNOTATOR = "annotator"
    REVIEWER = "reviewer"
    OWNER = "owner"


class RaterKind(StrEnum):
    """Who a rater is: a ``person`` (a login, an annotator, reviewer or owner; also the demo's
    simulated people) or a ``model`` (a model's predictions, docs/models.md)."""

    PERSON = "person"
    MODEL = "model"


@dataclass(frozen=True)
class Rater:
    """One rater of a project.

    ``simulated``: made by the demo or a test, not a real person or model. For a model:
    ``kind`` ``model``, its ``version`` (``None``: unversioned) and ``card``, what its model
    card said that the project keeps (``licence``, ``description``, ``source``; JSON).
    """

    id: int
    name: str
    role: Role
    group: str | None = None
    simulated: bool = False
    kind: RaterKind = RaterKind.PERSON
    version: str | None = None
    card: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", RaterKind(self.kind))
        if self.version is not None and self.kind is not RaterKind.MODEL:
            raise ValueError("only a model rater has a version")

    @property
    def is_model(self) -> bool:
        return self.kind is RaterKind.MODEL

    @property
    def label(self) -> str:
        """``NAME@VERSION`` for a versioned model, else the name (what tables and a model's
        polygons, :attr:`~slicereview.model.Polygon.model`, show)."""
        return f"{self.name}@{self.version}" if self.version else self.name
