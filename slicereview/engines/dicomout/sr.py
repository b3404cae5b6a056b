"""A review of one image as a DICOM Comprehensive SR document (highdicom.sr).

Why a Comprehensive SR and not a TID 1500 measurement report: a review is a reviewer's
decisions and free-text remarks, not measurements. TID 1500 has no place for free text (only
a 64-character tracking identifier), requires a coded *procedure reported* the project does
not know, and would file a decision as a "measurement"; the Comprehensive SR IOD takes the
same value types (CODE, TEXT, NUM, SCOORD, IMAGE) in a tree that says what each value is.
Concepts that no standard code names use the private scheme ``99SLRV``
(:data:`~.common.SCHEME`).

The tree (relationships in brackets)::

    CONTAINER  99SLRV review "Image review"
      [CONTAINS] IMAGE  DCM 121324 "Source image"
      [CONTAINS] NUM    99SLRV strict_alpha / relaxed_alpha  (unit UCUM "1"; an undefined
                        α, e.g. no variation, is a CODE DCM 114000 "Not a number" instead)
      [CONTAINS] NUM    99SLRV grade "Grade", 99SLRV rank "Rank"   one per rating session
                   [HAS PROPERTIES] TEXT 99SLRV session "Rating session"
      [CONTAINS] CONTAINER 99SLRV decision-group "Review decision"   one per decision
                   [HAS OBS CONTEXT] PNAME DCM 121008 "Person Observer Name" (the reviewer)
                   [CONTAINS] TEXT  99SLRV annotator "Annotator"
                   [CONTAINS] CODE  99SLRV decision "Decision" = accept / reject /
                                    expert_review
                   [CONTAINS] TEXT  99SLRV reason "Reason" (each reason tag)
                   [CONTAINS] TEXT  DCM 121106 "Comment"
                   [CONTAINS] IMAGE DCM 121191 "Referenced Segment" (the annotation's SEG)
      [CONTAINS] CONTAINER 99SLRV pin "Pinned comment"               one per pin
                   [HAS OBS CONTEXT] PNAME DCM 121008 (the reviewer)
                   [CONTAINS] TEXT  99SLRV reason "Reason" (each reason tag)
                   [CONTAINS] TEXT  DCM 121106 "Comment"
                   [CONTAINS] SCOORD DCM 111030 "Image Region": POINT (x, y) or a closed
                                     POLYLINE around the box
                       [SELECTED FROM] IMAGE (the source)

Coordinates are the project's: ``(x, y)`` = (column, row) with ``(0, 0)`` the top-left corner
of the top-left pixel, which is DICOM's SCOORD convention ([DICOM-PS3.3, C.18.6.1]).

Example
-------
>>> import pydicom
>>> from pydicom.data import get_testdata_file
>>> from slicereview.engines.dicomout.common import Authoring
>>> source = pydicom.dcmread(get_testdata_file("CT_small.dcm"), stop_before_pixels=True)
>>> review = ImageReview(decisions=(ReviewDecision("Ann", "Rev", "reject", ("extra region",),
...                                                "too big"),),
...                      pins=(Pin("point", (3.5, 4.0), "here", "Rev"),),
...                      alphas={"strict_alpha": 0.5})
>>> sr = review_report(source, review, Authoring("demo", "0.1", "1.2.3"))
>>> read_review(sr) == review
True
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pydicom import Dataset
from pydicom.sr.codedict import codes

from slicereview.engines.dicomout.common import (
    MANUFACTURER,
    Authoring,
    declare_scheme,
    long_string,
    person_name,
    private_code,
    set_utf8,
)

TITLE = private_code("review", "Image review")
DECISION_GROUP = private_code("decision-group", "Review decision")
PIN_GROUP = private_code("pin", "Pinned comment")
ANNOTATOR = private_code("annotator", "Annotator")
DECISION = private_code("decision", "Decision")
REASON = private_code("reason", "Reason")
SESSION = private_code("session", "Rating session")
GRADE = private_code("grade", "Grade")
RANK = private_code("rank", "Rank")
#: The decisions and their coded values.
DECISIONS = {"accept": private_code("accept", "Accepted"),
             "reject": private_code("reject", "Rejected"),
             "expert_review": private_code("expert_review", "Expert review requested")}
#: Image-level α values by their project key.
ALPHAS = {"strict_alpha": private_code("strict_alpha", "Krippendorff alpha, strict"),
          "relaxed_alpha": private_code("relaxed_alpha", "Krippendorff alpha, relaxed")}
_NO_UNITS = codes.UCUM.NoUnits
_NOT_A_NUMBER = codes.DCM.NotANumber
#: Text values are UT in SR; long comments are kept whole.
_TEXT_LIMIT = 10_000


@dataclass(frozen=True)
class SegReference:
    """A SEG written for the same image: its UIDs and the segment numbers it holds."""

    sop_class_uid: str
    sop_instance_uid: str
    segment_numbers: tuple[int, ...] = (1,)


@dataclass(frozen=True)
class ReviewDecision:
    """A reviewer's decision on one annotator's annotation (``decision``: ``"accept"``,
    ``"reject"`` or ``"expert_review"``), with reason tags, comment and the annotation's SEG."""

    annotator: str
    reviewer: str
    decision: str
    reasons: tuple[str, ...] = ()
    comment: str = ""
    seg: SegReference | None = None


@dataclass(frozen=True)
class Pin:
    """A pinned comment: ``kind`` ``"point"`` with ``at = (x, y)`` or ``"box"`` with
    ``at = (row0, col0, row1, col1)``, in pixels; ``tags`` its reason tags."""

    kind: str
    at: tuple[float, ...]
    comment: str
    reviewer: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rating:
    """A rating session's answer for the image: a grade (``kind`` ``"grade"``) or a rank."""

    kind: str
    session: str
    value: float


@dataclass(frozen=True)
class ImageReview:
    """What the SR of one image says (see the module text)."""

    decisions: tuple[ReviewDecision, ...] = ()
    pins: tuple[Pin, ...] = ()
    alphas: dict[str, float] = field(default_factory=dict)
    ratings: tuple[Rating, ...] = ()

    def __eq__(self, other: object) -> bool:  # NaN α values compare equal
        if not isinstance(other, ImageReview):
            return NotImplemented
        same_alphas = self.alphas.keys() == other.alphas.keys() and all(
            _same(self.alphas[k], other.alphas[k]) for k in self.alphas)
        return (self.decisions, self.pins, self.ratings) == (
            other.decisions, other.pins, other.ratings) and same_alphas

    __hash__ = None  # type: ignore[assignment]


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def review_report(source: Dataset, review: ImageReview, authoring: Authoring, *,
                  evidence: Sequence[Dataset] = (), sop_uid: str | None = None) -> Dataset:
    """The Comprehensive SR of ``review`` on ``source`` (a header is enough).

    ``evidence``: the SEG objects the decisions reference (their headers), listed in the
    document's evidence with the source.
    """
    import highdicom as hd
    from highdicom.sr import ContainerContentItem, ContentSequence

    root = ContainerContentItem(name=TITLE)
    items = ContentSequence([_image_item(hd, codes.DCM.SourceImage, source, "CONTAINS")])
    for key, value in review.alphas.items():
        items.append(_num(hd, ALPHAS.get(key) or private_code(key, key), value))
    for rating in review.ratings:
        num = _num(hd, GRADE if rating.kind == "grade" else RANK, rating.value)
        num.ContentSequence = ContentSequence([hd.sr.TextContentItem(
            SESSION, long_string(rating.session, _TEXT_LIMIT), "HAS PROPERTIES")])
        items.append(num)
    items.extend(_decision(hd, d) for d in review.decisions)
    items.extend(_pin(hd, p, source) for p in review.pins)
    root.ContentSequence = items
    with warnings.catch_warnings():  # highdicom warns about one-component person names
        warnings.simplefilter("ignore", UserWarning)
        sr = hd.sr.ComprehensiveSR(
            evidence=[source, *evidence], content=root,
            series_instance_uid=authoring.series_uid, series_number=authoring.series_number,
            sop_instance_uid=sop_uid or hd.UID(), instance_number=authoring.instance_number,
            manufacturer=MANUFACTURER, is_complete=True,
            series_description=long_string(authoring.series_description))
    sr.SoftwareVersions = long_string(authoring.software_version)
    declare_scheme(sr)
    set_utf8(sr)
    return sr


def _image_item(hd, name, ds: Dataset, relationship: str, segments=None):
    return hd.sr.ImageContentItem(name, ds.SOPClassUID, ds.SOPInstanceUID,
                                  referenced_segment_numbers=segments,
                                  relationship_type=relationship)


def _num(hd, name, value: float):
    if value is None or math.isnan(value):  # (highdicom cannot read back an empty NUM)
        return hd.sr.CodeContentItem(name, _NOT_A_NUMBER, relationship_type="CONTAINS")
    return hd.sr.NumContentItem(name, float(value), _NO_UNITS, relationship_type="CONTAINS")


def _observer(hd, reviewer: str):
    return hd.sr.PnameContentItem(codes.DCM.PersonObserverName, person_name(reviewer),
                                  relationship_type="HAS OBS CONTEXT")


def _text(hd, name, text: str):
    return hd.sr.TextContentItem(name, text[:_TEXT_LIMIT], relationship_type="CONTAINS")


def _decision(hd, d: ReviewDecision):
    from highdicom.sr import ContainerContentItem, ContentSequence

    if d.decision not in DECISIONS:
        raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, not {d.decision!r}")
    group = ContainerContentItem(DECISION_GROUP, relationship_type="CONTAINS")
    children = [_observer(hd, d.reviewer), _text(hd, ANNOTATOR, d.annotator),
                hd.sr.CodeContentItem(DECISION, DECISIONS[d.decision], "CONTAINS")]
    children += [_text(hd, REASON, reason) for reason in d.reasons]
    if d.comment:
        children.append(_text(hd, codes.DCM.Comment, d.comment))
    if d.seg is not None:
        children.append(hd.sr.ImageContentItem(
            codes.DCM.ReferencedSegment, d.seg.sop_class_uid, d.seg.sop_instance_uid,
            referenced_segment_numbers=list(d.seg.segment_numbers),
            relationship_type="CONTAINS"))
    group.ContentSequence = ContentSequence(children)
    return group


def _pin(hd, pin: Pin, source: Dataset):
    from highdicom.sr import ContainerContentItem, ContentSequence

    if pin.kind == "point":
        graphic, data = "POINT", np.array([pin.at[:2]], dtype=float)
    elif pin.kind == "box":
        r0, c0, r1, c1 = pin.at[:4]
        graphic = "POLYLINE"
        data = np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1], [c0, r0]], dtype=float)
    else:
        raise ValueError(f"pin kind must be 'point' or 'box', not {pin.kind!r}")
    scoord = hd.sr.ScoordContentItem(codes.DCM.ImageRegion, graphic, data,
                                     relationship_type="CONTAINS")
    scoord.ContentSequence = ContentSequence(
        [_image_item(hd, codes.DCM.SourceImage, source, "SELECTED FROM")])
    group = ContainerContentItem(PIN_GROUP, relationship_type="CONTAINS")
    children = [_observer(hd, pin.reviewer)]
    children += [_text(hd, REASON, tag) for tag in pin.tags]
    if pin.comment:
        children.append(_text(hd, codes.DCM.Comment, pin.comment))
    group.ContentSequence = ContentSequence([*children, scoord])
    return group


# -- reading back ------------------------------------------------------------------------------
def read_review(sr: Dataset) -> ImageReview:
    """The :class:`ImageReview` an SR written by :func:`review_report` holds (parsed with
    highdicom's content items). Reviewer names come back without the caret of the person
    name."""
    import highdicom as hd

    if not isinstance(sr, hd.sr.ComprehensiveSR):
        sr = hd.sr.ComprehensiveSR.from_dataset(sr, copy=True)
    root = sr.ContentSequence
    alphas: dict[str, float] = {}
    ratings, decisions, pins = [], [], []
    for item in root:
        name = _code(item)
        if name in {c.value for c in ALPHAS.values()}:
            alphas[name] = _number(hd, item)
        elif name in (GRADE.value, RANK.value):
            session = str(item.ContentSequence[0].TextValue)
            ratings.append(Rating("grade" if name == GRADE.value else "rank", session,
                                  _number(hd, item)))
        elif name == DECISION_GROUP.value:
            decisions.append(_read_decision(hd, item))
        elif name == PIN_GROUP.value:
            pins.append(_read_pin(hd, item))
    return ImageReview(tuple(decisions), tuple(pins), alphas, tuple(ratings))


def _code(item: Dataset) -> str:
    return str(item.ConceptNameCodeSequence[0].CodeValue)


def _number(hd, item: Dataset) -> float:
    if item.ValueType == "CODE":  # "Not a number"
        return math.nan
    return float(hd.sr.NumContentItem.from_dataset(item).value)


def _reviewer(item: Dataset) -> str:
    return str(item.PersonName).rstrip("^")


def _read_decision(hd, group: Dataset) -> ReviewDecision:
    annotator = reviewer = decision = comment = ""
    reasons: list[str] = []
    seg = None
    for item in group.ContentSequence:
        name = _code(item)
        if item.ValueType == "PNAME":
            reviewer = _reviewer(item)
        elif name == ANNOTATOR.value:
            annotator = str(item.TextValue)
        elif name == DECISION.value:
            decision = str(hd.sr.CodeContentItem.from_dataset(item).value.value)
        elif name == REASON.value:
            reasons.append(str(item.TextValue))
        elif name == codes.DCM.Comment.value:
            comment = str(item.TextValue)
        elif name == codes.DCM.ReferencedSegment.value:
            ref = item.ReferencedSOPSequence[0]
            seg = SegReference(str(ref.ReferencedSOPClassUID), str(ref.ReferencedSOPInstanceUID),
                               tuple(int(n) for n in ref.ReferencedSegmentNumber))
    return ReviewDecision(annotator, reviewer, decision, tuple(reasons), comment, seg)


def _read_pin(hd, group: Dataset) -> Pin:
    reviewer = comment = ""
    tags: list[str] = []
    kind, at = "point", tuple[float, ...]()
    for item in group.ContentSequence:
        if item.ValueType == "PNAME":
            reviewer = _reviewer(item)
        elif item.ValueType == "TEXT" and _code(item) == REASON.value:
            tags.append(str(item.TextValue))
        elif item.ValueType == "TEXT":
            comment = str(item.TextValue)
        elif item.ValueType == "SCOORD":
            data = np.asarray(hd.sr.ScoordContentItem.from_dataset(item).value,
                              dtype=float).reshape(-1, 2)
            if str(item.GraphicType) == "POINT":
                kind, at = "point", (float(data[0, 0]), float(data[0, 1]))
            else:
                (c0, r0), (c1, r1) = data.min(axis=0), data.max(axis=0)
                kind, at = "box", (float(r0), float(c0), float(r1), float(c1))
    return Pin(kind, at, comment, reviewer, tuple(tags))
