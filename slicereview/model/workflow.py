"""Value types of the QA process: batches, the owner's qualifications and image flags
(``app/qa/workflow.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the glossary's enums live in the package's __init__, which imports this)
    from slicereview.model import Phase


@dataclass(frozen=True)
class Batch:
    """A named image set of one phase with the owner's rules (see ``app/qa/workflow.py``).

    ``min_dice``: the pre-filter (mean Dice against gold an annotator needs to go on; ``None``:
    no pre-filter). ``alpha_threshold``: the low-agreement threshold on an image's strict α
    (``None``: off); below it the image gets one more annotator (``low_action`` ``"assign"``,
    up to ``max_annotators``) or is sent to review first (``"review"``).
    """

    id: int
    name: str
    phase: Phase
    image_set_id: int
    min_dice: float | None = None
    alpha_threshold: float | None = None
    max_annotators: int = 3
    low_action: str = "assign"


@dataclass(frozen=True)
class Qualification:
    """The owner's decision whether an annotator may go on after a batch (who, when, why).

    ``prefilter`` is what the pre-filter said (``None``: no pre-filter), ``go_on`` what the
    owner decided; they differ when the owner overrode it.
    """

    id: int
    batch_id: int
    rater_id: int
    go_on: bool
    prefilter: bool | None
    mean_dice: float | None
    decided_by: int | None
    reason: str
    created_at: str


@dataclass(frozen=True)
class ImageFlag:
    """Why an image got one more annotator (``kind`` ``"assign"``, ``rater_id`` set) or was
    sent to review first (``"review"``)."""

    id: int
    image_id: int
    batch_id: int | None
    kind: str
    rater_id: int | None
    reason: str
    created_at: str



@dataclass(frozen=True)
class Preannotation:
    """A batch's pre-annotation (``app/qa/preannotation.py``): the model rater whose polygons
    annotators start from, shown on every image (``share`` ``"all"``) or on a seeded random
    half of each annotator's images (``"half"``), who set it and when."""

    batch_id: int
    model_id: int
    share: str
    seed: int
    set_by: str
    set_at: str
