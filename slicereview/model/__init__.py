"""Glossary types shared by every layer: frozen dataclasses and string enums.

The types of one area live in a module of this package (``privacy``: the privacy setting and
shared copies; ``raters``: people and models; ``workflow``: batches, qualifications, flags),
imported from here like the rest.

The string values of the enums are what the project file stores (see
:mod:`slicereview.store.schema`), so they are part of the file format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from slicereview.model.base import StrEnum

# (re-exported: every layer imports the glossary's types from slicereview.model)
from slicereview.model.privacy import PrivacySetting as PrivacySetting
from slicereview.model.privacy import SharedImages as SharedImages
from slicereview.model.privacy import SharedNames as SharedNames
from slicereview.model.privacy import SharedSource as SharedSource
from slicereview.model.project_model import ModelVersion as ModelVersion
from slicereview.model.raters import Rater as Rater
from slicereview.model.raters import RaterKind as RaterKind
from slicereview.model.raters import Role as Role
from slicereview.model.workflow import Batch as Batch
from slicereview.model.workflow import ImageFlag as ImageFlag
from slicereview.model.workflow import Preannotation as Preannotation
from slicereview.model.workflow import Qualification as Qualification


class SessionKind(StrEnum):
    CLASSIFY = "classify"
    EXHAUSTIVE = "exhaustive"
    SORT = "sort"
    #: Rating to a stated accuracy: a sort pass, then pairs chosen where the order is most in
    #: doubt, until a budget or a target; may ask a pair again; may be shared by raters.
    CONFIDENCE = "confidence"
    ANNOTATE = "annotate"
    REVIEW = "review"


class Phase(StrEnum):
    ONBOARDING = "onboarding"
    PILOT = "pilot"
    FORMAL = "formal"


class AnswerChoice(StrEnum):
    """A pairwise judgement: the image shown ``LEFT`` or ``RIGHT`` has *more* of the property."""

    LEFT = "left"
    RIGHT = "right"
    SAME = "same"


class Certainty(StrEnum):
    CERTAIN = "certain"
    UNCERTAIN = "uncertain"


class Tool(StrEnum):
    """How a polygon's outline was made (docs/annotate.md, "Provenance"): vertex by vertex
    (the polygon tool), a freehand stroke, an assisted tool (points, scribble, box, trace,
    wand, refine), the brush, or a model's prediction (:attr:`Polygon.model` names it)."""

    MANUAL, FREEHAND, POINTS, SCRIBBLE, BOX = "manual", "freehand", "points", "scribble", "box"
    TRACE, WAND, REFINE, BRUSH, MODEL = "trace", "wand", "refine", "brush", "model"


class AnnotationStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    SUBMITTED = "submitted"
    #: The annotator looked and found nothing to outline (not the same as "not yet annotated").
    NOTHING_TO_ANNOTATE = "nothing_to_annotate"


class Decision(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"
    EXPERT_REVIEW = "expert_review"


@dataclass(frozen=True)
class Source:
    """One file on disk (a DICOM instance, a volume, a PNG...) referenced by the project."""

    id: int
    path: str
    sha256: str
    format: str
    size_bytes: int


@dataclass(frozen=True)
class Image:
    """One 2-D frame shown to a person.

    ``axis`` is ``-1`` for a plain 2-D image or DICOM frame; for a slice of a volume it is the
    numpy axis of the ``(z, y, x)`` SimpleITK array that was sliced and ``slice_index`` the index
    along it. ``frame`` is the frame number of a multi-frame DICOM file (0 otherwise).
    """

    id: int
    source_id: int
    case_id: str
    path: str
    format: str
    frame: int = 0
    axis: int = -1
    slice_index: int = 0
    rows: int = 0
    cols: int = 0
    info: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_slice(self) -> bool:
        return self.axis >= 0


@dataclass(frozen=True)
class Session:
    id: int
    kind: SessionKind
    rater_id: int
    image_set_id: int
    name: str
    #: The text the session asks (stored in the ``sessions.question`` column).
    prompt: str = ""
    seed: int = 0
    phase: Phase = Phase.FORMAL
    algorithm: str | None = None
    algorithm_version: int | None = None
    settings: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Answer:
    """One stored pairwise judgement. ``left``/``right`` are image ids as they were shown;
    ``rater_id`` is who gave it (``None``: the session's rater)."""

    id: int
    session_id: int
    left: int
    right: int
    answer: AnswerChoice
    active_ms: int
    answered_at: str
    rater_id: int | None = None


@dataclass(frozen=True)
class Grade:
    id: int
    session_id: int
    image_id: int
    grade: int
    active_ms: int
    graded_at: str


@dataclass(frozen=True, eq=False)
class Polygon:
    """A closed polygon: ``vertices`` float64 ``(N, 2)`` in ``(x, y)`` pixel coordinates.

    Pixel ``(row r, col c)`` covers ``[c, c+1) x [r, r+1)``; a pixel belongs to the polygon when
    its centre ``(c + 0.5, r + 0.5)`` lies inside.

    Its *provenance*: ``tool``, how the outline was made (:class:`Tool`); ``edited``, whether
    the outline was changed after it was made (the rule: :func:`slicereview.app.annotating.
    edited_polygon`); ``model``, the model that predicted it (``"NAME@VERSION"`` or
    ``"NAME"``), set exactly when ``tool`` is ``model``. By default: ``manual``, not edited.

    >>> Polygon([[0, 0], [2, 0], [2, 2]], tool="model")
    Traceback (most recent call last):
    ValueError: a polygon made by a model names it (model="NAME@VERSION")
    """

    vertices: np.ndarray
    certainty: Certainty = Certainty.CERTAIN
    label: str = ""
    classifications: dict = field(default_factory=dict)
    id: int | None = None
    tool: Tool = Tool.MANUAL
    edited: bool = False
    model: str | None = None

    def __post_init__(self) -> None:
        v = np.ascontiguousarray(self.vertices, dtype=np.float64).reshape(-1, 2)
        v.setflags(write=False)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "certainty", Certainty(self.certainty))
        object.__setattr__(self, "tool", Tool(self.tool))
        object.__setattr__(self, "edited", bool(self.edited))
        if self.tool is Tool.MODEL and not self.model:
            raise ValueError('a polygon made by a model names it (model="NAME@VERSION")')
        if self.tool is not Tool.MODEL and self.model is not None:
            raise ValueError(f"only a model's polygon names a model (this one is {self.tool})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polygon):
            return NotImplemented
        return (
            self.certainty == other.certainty
            and self.label == other.label
            and self.classifications == other.classifications
            and self.tool == other.tool
            and self.edited == other.edited
            and self.model == other.model
            and np.array_equal(self.vertices, other.vertices)
        )

    __hash__ = None  # type: ignore[assignment]

@dataclass(frozen=True)
class NewImage:
    """What the importer hands to :meth:`~slicereview.store.images.Images.add_source` for each
    frame or slice."""

    rows: int
    cols: int
    frame: int = 0
    axis: int = -1
    slice_index: int = 0
    info: dict | None = None

@dataclass(frozen=True)
class NewSource:
    """One file for :meth:`~slicereview.store.images.Images.add_sources` (bulk): its path,
    SHA-256, format, size in bytes, images and technical info."""

    path: str
    sha256: str
    format: str
    size_bytes: int
    images: tuple[NewImage, ...]
    info: dict | None = None


@dataclass(frozen=True)
class DicomwebRef:
    """Where a source lives on a PACS: the DICOMweb service's base URL (no credentials) and
    the instance's Study, Series and SOP Instance UIDs."""

    url: str
    study_uid: str
    series_uid: str
    sop_uid: str

    @property
    def wado_url(self) -> str:
        """The instance's WADO-RS address (what the project shows as its path)."""
        return (f"{self.url}/studies/{self.study_uid}/series/{self.series_uid}"
                f"/instances/{self.sop_uid}")


@dataclass(frozen=True)
class RelinkReport:
    relinked: int
    still_missing: list[str]
    hash_mismatch: list[str]

@dataclass(frozen=True)
class Annotation:
    """One rater's annotation of one image in one phase and round (without its polygons)."""

    id: int
    rater_id: int
    image_id: int
    phase: Phase
    round: int
    status: AnnotationStatus
    active_ms: int
    classifications: dict = field(default_factory=dict, compare=False, hash=False)
    updated_at: str = ""
    #: The first annotation's id when this one is a *repeat* (intra-rater agreement; its
    #: ``round`` is then the negative of the first's), else ``None``.
    repeat_of: int | None = None

    @property
    def is_repeat(self) -> bool:
        return self.repeat_of is not None


@dataclass(frozen=True)
class Question:
    """A project-level classification question.

    ``scope`` is ``"image"`` (answered once per image) or ``"polygon"`` (per polygon); ``kind``
    is ``"radio"``, ``"checklist"``, ``"text"`` or ``"dropdown"``. ``options`` is a list of
    choices, or for dropdowns a nested tree ``[{"value": ..., "children": [...]}, ...]``.
    Answers are stored under ``name`` (the question's *key*) in the classification JSON.
    A ``retired`` question is no longer asked; the answers stored under its key stay.
    """

    id: int
    position: int
    scope: str
    kind: str
    name: str
    title: str
    options: list = field(default_factory=list, compare=False, hash=False)
    retired: bool = False


@dataclass(frozen=True)
class Review:
    """A reviewer's decision on one annotation, or a pin on one image.

    A *decision* has ``annotation_id`` and ``decision`` set; ``tags`` are reason tags and
    ``comment`` free text (a rejection needs one or the other); ``alphas`` the image's α values
    when it was taken. A *pin* has ``decision`` ``None`` and ``pin_kind`` ``"box"`` with
    ``pin_at = (row0, col0, row1, col1)`` or ``"point"`` with ``pin_at = (x, y)``, in pixels;
    with ``annotation_id`` it is a pin on that annotation (its annotator reads it with their
    returned work), without one an *image pin*, read by reviewers and owners, and by every
    annotator when ``for_everyone``.
    """

    id: int
    image_id: int
    reviewer_id: int
    annotation_id: int | None = None
    decision: Decision | None = None
    comment: str = ""
    tags: tuple[str, ...] = ()
    created_at: str = ""
    active_ms: int = 0
    alphas: dict = field(default_factory=dict, compare=False, hash=False)
    pin_kind: str | None = None
    pin_at: tuple[float, ...] = ()
    for_everyone: bool = False

    @property
    def is_pin(self) -> bool:
        return self.pin_kind is not None

    @property
    def commented(self) -> bool:
        """The reviewer said something: free text or reason tags."""
        return bool(self.comment.strip() or self.tags)
