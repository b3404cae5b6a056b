"""DICOM Segmentation (SEG) objects of 2-D masks drawn on one source image (highdicom).

:func:`segmentation` takes the source image's data set (the header is enough: no pixel data
is read), one mask per segment and an :class:`~.common.Authoring`, and returns the SEG as a
:class:`pydicom.Dataset`:

* **BINARY** (one ``bool (H, W)`` mask per segment) or **FRACTIONAL** (one probability map in
  [0, 1], stored as PROBABILITY with 255 steps);
* every segment's property category is SCT 49755003 *Morphologically abnormal structure* and
  its type SCT 52988006 *Lesion*: the pair that DICOM's context groups CID 7150 (segmentation
  property categories) and CID 7159 (lesion segmentation types) offer for "a region the reader
  marked as abnormal" without saying which kind (a mass, calcifications...), which is what an
  outline in slicereview asserts. *Clinical finding* (SCT 404684003) is not in CID 7150;
* each segment's algorithm type: MANUAL unless the segment (or the whole SEG) names an
  :class:`Algorithm`, which gives AUTOMATIC or SEMIAUTOMATIC with its Segment Algorithm Name,
  version, family and parameters;
* the source is referenced by its Study/Series/SOP Instance UIDs (and frame, for a multi-frame
  source); the study, patient and frame of reference are the source's, and the geometry (pixel
  spacing, orientation, position) is copied from it where it has them, so that the mask
  overlays the image in a viewer. A source without a frame of reference (a secondary capture)
  gives a SEG without one, with the source's Patient Orientation (Type 2C then).

Example
-------
>>> import numpy as np, pydicom
>>> from pydicom.data import get_testdata_file
>>> from slicereview.engines.dicomout.common import Authoring
>>> source = pydicom.dcmread(get_testdata_file("CT_small.dcm"), stop_before_pixels=True)
>>> mask = np.zeros((128, 128), bool); mask[10:20, 30:40] = True
>>> seg = segmentation(source, [Segment("certain", mask)], Authoring("demo", "0.1", "1.2.3"),
...                    creator="Ann Smith")
>>> seg.Modality, seg.SegmentationType, str(seg.ContentCreatorName)
('SEG', 'BINARY', 'Ann Smith^')
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydicom import Dataset
from pydicom.sr.codedict import codes
from pydicom.sr.coding import Code

from slicereview.engines.dicomout.common import (
    DEVICE_SERIAL,
    MANUFACTURER,
    MODEL,
    SCHEME,
    Authoring,
    declare_scheme,
    long_string,
    person_name,
    private_code,
    set_utf8,
)

#: Segmented property category and type of every segment (see the module text).
CATEGORY = codes.SCT.MorphologicallyAbnormalStructure
PROPERTY_TYPE = codes.SCT.Lesion
#: Algorithm family of a consensus (majority vote, STAPLE) of manual segmentations: none of
#: CID 7162's families describes label fusion, so a private code says it.
CONSENSUS_FAMILY = private_code("consensus", "Consensus of manual segmentations")
#: Family of outlines made with interactive tools (clicks, strokes, a box, a vessel trace, a
#: flood, snapping) and corrected by hand: CID 7162 names single techniques (edge detection,
#: region growing...), not a person steering several, so a private code says it.
ASSISTED_FAMILY = private_code("assisted", "Interactive segmentation tools")
#: Family of a model's predictions (CID 7162).
MODEL_FAMILY = codes.cid7162.ArtificialIntelligence
#: FRACTIONAL segmentations store probabilities in this many steps (one byte a pixel).
MAX_FRACTIONAL = 255


@dataclass(frozen=True)
class Algorithm:
    """The algorithm that made a segment; ``None`` in its place means drawn by hand (MANUAL).

    ``kind``: ``"AUTOMATIC"`` (a consensus, a model's prediction) or ``"SEMIAUTOMATIC"`` (a
    person with interactive tools); ``family``: a CID 7162 code (default: a consensus's)."""

    name: str
    version: str
    parameters: dict[str, str]
    kind: str = "AUTOMATIC"
    family: Code = CONSENSUS_FAMILY


@dataclass(frozen=True)
class Segment:
    """One segment: its label (``"certain"``...), its mask ``bool (H, W)`` (BINARY) or
    probability ``float (H, W)`` in [0, 1] (FRACTIONAL), a free-text description, and the
    :class:`Algorithm` that made it (``None``: the SEG's, else MANUAL)."""

    label: str
    mask: np.ndarray
    description: str = ""
    algorithm: Algorithm | None = None


def segmentation(source: Dataset, segments: Sequence[Segment], authoring: Authoring, *,
                 creator: str, fractional: bool = False, algorithm: Algorithm | None = None,
                 frame: int = 0, include_empty: bool = False, sop_uid: str | None = None,
                 content_label: str = "ANNOTATION") -> Dataset:
    """The SEG of ``segments`` drawn on ``source`` (see the module text).

    Parameters
    ----------
    source
        The source image's data set (``stop_before_pixels`` is enough).
    segments
        One :class:`Segment` per segment, numbered from 1 in this order; masks are the
        source's ``(Rows, Columns)``.
    authoring
        Series description, software version, series UID and numbers.
    creator
        The content creator's display name (an annotator; only the name is written).
    fractional
        FRACTIONAL (PROBABILITY) instead of BINARY; then exactly one segment.
    algorithm
        Of every segment that names none (``None``: MANUAL).
    frame
        The source frame the masks belong to (0 for a single-frame source).
    include_empty
        Keep the frame of a segment with no pixels (an explicitly empty segment); without it,
        empty segments are described but have no frame.
    sop_uid
        The SEG's SOP Instance UID (default: a new one).
    content_label
        Content Label (CS, 16 characters).

    Raises
    ------
    ValueError
        Masks of the wrong shape, or a source highdicom cannot segment (e.g. a multi-frame
        source without a frame of reference).
    """
    import highdicom as hd

    rows, cols = int(source.Rows), int(source.Columns)
    if not segments:
        raise ValueError("a segmentation needs at least one segment")
    if fractional and len(segments) != 1:
        raise ValueError("a FRACTIONAL segmentation here has exactly one segment")
    for segment in segments:
        if np.shape(segment.mask) != (rows, cols):
            raise ValueError(f"mask of segment {segment.label!r} is "
                             f"{np.shape(segment.mask)}, the source image is {(rows, cols)}")
    if fractional:
        pixels = np.clip(np.asarray(segments[0].mask, dtype=np.float32), 0.0, 1.0)[None]
    else:
        pixels = np.stack([np.asarray(s.mask, dtype=bool) for s in segments], axis=-1)[None]
    descriptions = [_description(hd, k, s, algorithm) for k, s in enumerate(segments, 1)]
    n_frames = int(source.get("NumberOfFrames", 1) or 1)
    with warnings.catch_warnings():  # highdicom warns about one-component person names
        warnings.simplefilter("ignore", UserWarning)
        seg = hd.seg.Segmentation(
            source_images=[source], pixel_array=pixels,
            segmentation_type="FRACTIONAL" if fractional else "BINARY",
            segment_descriptions=descriptions,
            series_instance_uid=authoring.series_uid, series_number=authoring.series_number,
            sop_instance_uid=sop_uid or hd.UID(), instance_number=authoring.instance_number,
            manufacturer=MANUFACTURER, manufacturer_model_name=MODEL,
            software_versions=authoring.software_version, device_serial_number=DEVICE_SERIAL,
            max_fractional_value=MAX_FRACTIONAL,
            content_description=long_string(f"{content_label.lower()} by {creator}"),
            content_creator_name=person_name(creator),
            content_label=content_label, omit_empty_frames=not include_empty,
            series_description=long_string(authoring.series_description),
            plane_positions=_frame_position(hd, source, frame) if n_frames > 1 else None,
        )
    if "FrameOfReferenceUID" not in source:
        # Patient Orientation is Type 2C when the image has no Image Orientation: the
        # source's when it is well formed (two values), else empty.
        seg.PatientOrientation = _patient_orientation(source)
    used = [s.algorithm or algorithm for s in segments]
    if any(a is not None and a.family.scheme_designator == SCHEME for a in used):
        declare_scheme(seg)
    set_utf8(seg)
    return seg


def _patient_orientation(source: Dataset) -> list[str] | str:
    """The source's Patient Orientation when well formed (two values of L, R, A, P, H, F,
    e.g. ``A\\R``), else empty: a mammogram's ``CC`` (a view, not an orientation) is not."""
    from pydicom.multival import MultiValue

    value = source.get("PatientOrientation")
    values = list(value) if isinstance(value, MultiValue | list | tuple) else []
    if len(values) == 2 and all(v and set(str(v)) <= set("LRAPHF") for v in values):
        return [str(v) for v in values]
    return ""


def _description(hd, number: int, segment: Segment, algorithm: Algorithm | None):
    identification = None
    kind = hd.seg.SegmentAlgorithmTypeValues.MANUAL
    algorithm = segment.algorithm or algorithm
    if algorithm is not None:
        kind = hd.seg.SegmentAlgorithmTypeValues(algorithm.kind)
        identification = hd.AlgorithmIdentificationSequence(
            name=long_string(algorithm.name), version=long_string(algorithm.version, 16),
            family=algorithm.family, parameters=algorithm.parameters or None)
    item = hd.seg.SegmentDescription(
        segment_number=number, segment_label=long_string(segment.label),
        segmented_property_category=CATEGORY, segmented_property_type=PROPERTY_TYPE,
        algorithm_type=kind, algorithm_identification=identification)
    if segment.description:
        item.SegmentDescription = long_string(segment.description)
    return item


def _frame_position(hd, source: Dataset, frame: int):
    """The plane position of ``frame`` of a multi-frame source with a frame of reference
    (``None`` without one: highdicom then refuses a multi-frame source, which is reported)."""
    if "FrameOfReferenceUID" not in source:
        return None
    per_frame = source.get("PerFrameFunctionalGroupsSequence")
    if not per_frame or frame >= len(per_frame) or "PlanePositionSequence" not in per_frame[frame]:
        return None
    position = per_frame[frame].PlanePositionSequence[0].ImagePositionPatient
    return [hd.PlanePositionSequence(hd.CoordinateSystemNames.PATIENT, position)]


def read_masks(seg: Dataset) -> tuple[list[str], np.ndarray]:
    """``(segment labels, masks)`` of a single-frame-source SEG read back with highdicom:
    ``bool (segments, H, W)`` for BINARY, ``float32`` probabilities for FRACTIONAL (a segment
    without a frame reads as all zeros).

    Example
    -------
    >>> import numpy as np, pydicom
    >>> from pydicom.data import get_testdata_file
    >>> from slicereview.engines.dicomout.common import Authoring
    >>> source = pydicom.dcmread(get_testdata_file("CT_small.dcm"), stop_before_pixels=True)
    >>> mask = np.zeros((128, 128), bool); mask[1, 2] = True
    >>> seg = segmentation(source, [Segment("certain", mask)], Authoring("d", "0", "1.2"),
    ...                    creator="A")
    >>> labels, back = read_masks(seg)
    >>> labels, back.shape, np.argwhere(back[0]).tolist()
    (['certain'], (1, 128, 128), [[1, 2]])
    """
    import highdicom as hd

    if not isinstance(seg, hd.seg.Segmentation):
        seg = hd.seg.Segmentation.from_dataset(seg, copy=True)
    numbers = [int(item.SegmentNumber) for item in seg.SegmentSequence]
    labels = [str(item.SegmentLabel) for item in seg.SegmentSequence]
    source = seg.ReferencedSeriesSequence[0].ReferencedInstanceSequence[0]
    fractional = seg.SegmentationType == "FRACTIONAL"
    out = np.zeros((len(numbers), int(seg.Rows), int(seg.Columns)),
                   np.float32 if fractional else bool)
    if int(getattr(seg, "NumberOfFrames", 0) or 0) == 0:
        return labels, out
    pixels = seg.get_pixels_by_source_instance(
        [source.ReferencedSOPInstanceUID], segment_numbers=numbers,
        rescale_fractional=fractional, skip_overlap_checks=True,
        ignore_spatial_locations=True)
    out[...] = np.moveaxis(pixels[0], -1, 0)
    return labels, out
