"""DICOM header rules: technical metadata, windows, pixel spacing, rescale, codec checks.

Everything here reads attributes of a :class:`pydicom.Dataset` and never its pixel data. The
metadata stored in a project is built from an explicit allow-list of technical attributes
(:func:`technical_info`), so no patient name/ID/birth date, accession number, institution,
dates or UIDs can leak into the project file.

Enhanced (multi-frame) objects keep rescale, window and spacing in functional groups; the
helpers look in the frame's Per-frame Functional Groups item first, then in the Shared
Functional Groups, then at the top level.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from pydicom import Dataset
from pydicom.datadict import tag_for_keyword
from pydicom.uid import UID

from slicereview.engines.imaging.display import WindowPreset
from slicereview.engines.imaging.errors import MissingCodecError

_CODECS_EXTRA = "pip install 'slicereview[codecs]'"
#: What to install per family of transfer syntaxes (licence-friendly choices first).
_INSTALL_HINTS = (
    ("JPEG 2000", "JPEG 2000", "pip install pylibjpeg pylibjpeg-openjpeg"),
    ("High-Throughput JPEG 2000", "HTJ2K", "pip install pylibjpeg pylibjpeg-openjpeg"),
    ("JPEG-LS", "JPEG-LS", "pip install pyjpegls"),
    ("JPEG Lossless", "lossless JPEG", "pip install python-gdcm"),
    ("JPEG Baseline", "JPEG", "pip install pillow (or python-gdcm)"),
    ("JPEG Extended", "JPEG", "pip install pillow (or python-gdcm)"),
    ("RLE", "RLE", "pip install pylibjpeg pylibjpeg-rle"),
    ("Deflated Image Frame", "Deflated", "pip install 'pydicom>=3'"),
)


def install_hint(transfer_syntax: str) -> str:
    """The message naming the package(s) that decode ``transfer_syntax``.

    Example
    -------
    >>> install_hint("1.2.840.10008.1.2.4.90")
    "JPEG 2000: pip install pylibjpeg pylibjpeg-openjpeg, or pip install 'slicereview[codecs]'"
    """
    name = UID(transfer_syntax).name
    for prefix, label, command in _INSTALL_HINTS:
        if name.startswith(prefix):
            return f"{label}: {command}, or {_CODECS_EXTRA}"
    return f"{name}: no installed decoder handles it; try {_CODECS_EXTRA}"


def check_decoder(transfer_syntax: str) -> None:
    """Raise :class:`MissingCodecError` when pixel data in ``transfer_syntax`` can't be decoded.

    Uncompressed syntaxes always pass. The check asks pydicom's decoder registry, so it is
    exact for the installed plugins and cheap (no pixel data is read).
    """
    from pydicom.pixels import get_decoder

    uid = UID(transfer_syntax)
    if not uid.is_transfer_syntax or not uid.is_compressed:
        return  # (an unknown UID is refused by dicom_checks.transfer_syntax)
    try:
        decoder = get_decoder(uid)
    except NotImplementedError:
        raise MissingCodecError(
            f"The pixel data is compressed as {uid.name} ({uid}) and no installed decoder "
            f"reads it ({install_hint(uid)}); convert the file or leave it out.",
            transfer_syntax=str(uid),
        ) from None
    if not decoder.is_available:
        raise MissingCodecError(
            f"The pixel data is compressed as {uid.name} and its decoder is not installed; "
            f"install it ({install_hint(uid)}) and import the file again.",
            transfer_syntax=str(uid),
        )


# -- fast attribute access ---------------------------------------------------------------------
@functools.cache
def _tag(keyword: str) -> int:
    tag = tag_for_keyword(keyword)
    if tag is None:
        raise KeyError(keyword)
    return tag


def has(ds: Dataset, tag: int) -> bool:
    """``tag in ds`` as a dictionary look-up (pydicom's ``in`` costs ~7 µs)."""
    return tag in ds.keys()  # noqa: SIM118 - the point: no Dataset.__contains__


def value(ds: Dataset, keyword: str, default: Any = None) -> Any:
    """``ds.get(keyword, default)`` without pydicom's keyword machinery: a dictionary look-up
    for an absent attribute instead of ~6 µs, half the time for a present one (an import asks
    for about a hundred attributes per file, most of them absent).

    Example
    -------
    >>> value(Dataset(), "Rows", 0)
    0
    """
    tag = _tag(keyword)
    if not has(ds, tag):
        return default
    return ds[tag].value


# -- functional groups -----------------------------------------------------------------------
_PER_FRAME, _SHARED = 0x52009230, 0x52009229


def _group_item(ds: Dataset, frame: int, sequence: str) -> Dataset | None:
    """The first item of ``sequence`` for ``frame``: per-frame group, else shared group."""
    if not (has(ds, _PER_FRAME) or has(ds, _SHARED)):
        return None  # not an enhanced object (most files)
    per_frame = ds.get("PerFrameFunctionalGroupsSequence")
    if per_frame and frame < len(per_frame):
        seq = per_frame[frame].get(sequence)
        if seq:
            return seq[0]
    shared = ds.get("SharedFunctionalGroupsSequence")
    if shared:
        seq = shared[0].get(sequence)
        if seq:
            return seq[0]
    return None


def frame_attr(ds: Dataset, frame: int, sequence: str, keyword: str) -> Any:
    """``keyword`` for ``frame`` from the functional group ``sequence`` or the top level."""
    item = _group_item(ds, frame, sequence)
    if item is not None and keyword in item:
        return item.get(keyword)
    return value(ds, keyword)


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        return [value]
    return list(value)


# -- free text ---------------------------------------------------------------------------------
#: Words a window name (*Window Center & Width Explanation*) may be made of. The attribute is
#: free text and can carry anything a technician typed, so only technical words are kept.
_WINDOW_WORDS = """
    window default standard normal auto automatic full range wide narrow soft softer hard harder
    tissue tissues bone bones lung lungs brain head neck chest abdomen abdominal pelvis spine
    liver mediastinum mediastinal angio vascular stroke subdural temporal sinus sinuses
    contrast high low medium mid linear sigmoid voi lut mammo mammography breast dense fatty
    skin edge enhanced enhance processed processing presentation for raw log inverted
    smooth sharp detail fine coarse level width center centre user preset ct mr mri pet spect
    us xa cr dx mg rf nm pt hu
"""
WINDOW_WORDS = frozenset(_WINDOW_WORDS.split())
#: Defined terms of *Rescale Type* ([DICOM-PS3.3, C.11.1.1.2]) and common units: any other value is
#: free text and is not stored or shown.
RESCALE_TYPES = frozenset({"OD", "HU", "US", "MGML", "Z_EFF", "ED", "EDW", "HU_MOD", "PCT",
                           "BQML", "CNTS", "PERCENT", "MM", "MS", "S", "CM", "MM2/S"})


def _technical_name(text: str) -> str:
    """``text`` when it consists of technical words and numbers only, else ``""``.

    Example
    -------
    >>> _technical_name("WINDOW1 Soft tissue"), _technical_name("Dr Smith's setting")
    ('WINDOW1 Soft tissue', '')
    """
    words = [w for w in "".join(c if c.isalnum() else " " for c in text).split()]
    if not words or len(text) > 64:
        return ""
    for word in words:
        core = word.rstrip("0123456789").lower()
        if core and core not in WINDOW_WORDS:
            return ""
    return text.strip()


# -- rescale, windows, spacing ---------------------------------------------------------------
def rescale(ds: Dataset, frame: int = 0) -> tuple[float, float, str]:
    """``(slope, intercept, rescale_type)`` of the linear modality transform (1, 0, "").

    ``rescale_type`` is upper case and only one of :data:`RESCALE_TYPES` (else ``""``): the
    attribute is free text in some files.
    """
    slope = frame_attr(ds, frame, "PixelValueTransformationSequence", "RescaleSlope")
    intercept = frame_attr(ds, frame, "PixelValueTransformationSequence", "RescaleIntercept")
    kind = frame_attr(ds, frame, "PixelValueTransformationSequence", "RescaleType")
    try:
        slope = float(slope) if slope not in (None, "") else 1.0
        intercept = float(intercept) if intercept not in (None, "") else 0.0
    except (TypeError, ValueError):
        slope, intercept = 1.0, 0.0
    if not math.isfinite(slope) or slope == 0 or not math.isfinite(intercept):
        slope, intercept = 1.0, 0.0
    kind = str(kind or "").strip().upper()
    return slope, intercept, kind if kind in RESCALE_TYPES else ""


def value_unit(ds: Dataset, frame: int = 0) -> str:
    """Unit of modality values for the pixel readout: RescaleType, ``"HU"`` for CT, or ``""``."""
    slope, intercept, kind = rescale(ds, frame)
    if kind and kind not in ("US", "UNSPECIFIED"):
        return kind
    if str(value(ds, "Modality", "")).upper() == "CT" and (
        has(ds, _tag("RescaleIntercept"))
        or _group_item(ds, frame, "PixelValueTransformationSequence")
    ):
        return "HU"
    return ""


def window_presets(ds: Dataset, frame: int = 0) -> list[WindowPreset]:
    """The linear windows in the file (in modality units), one preset per centre/width pair.

    Names come from *Window Center & Width Explanation* when it is made of technical words
    only (:data:`WINDOW_WORDS`; free text is never stored), else ``"window 1"``...
    Pairs with a non-positive or non-numeric width are dropped.
    """
    item = _group_item(ds, frame, "FrameVOILUTSequence")
    src = item if item is not None and "WindowCenter" in item else ds
    centers = _as_list(value(src, "WindowCenter"))
    widths = _as_list(value(src, "WindowWidth"))
    names = _as_list(value(src, "WindowCenterWidthExplanation"))
    presets = []
    for k, (c, w) in enumerate(zip(centers, widths, strict=False)):
        try:
            c, w = float(c), float(w)
        except (TypeError, ValueError):
            continue
        if not (math.isfinite(c) and math.isfinite(w)) or w <= 0:
            continue
        name = _technical_name(str(names[k])) if k < len(names) else ""
        presets.append(WindowPreset(name or f"window {k + 1}", c, w))
    return presets


def _positive_pair(value: Any) -> tuple[float, float] | None:
    values = _as_list(value)
    if len(values) != 2:
        return None
    try:
        row, col = float(values[0]), float(values[1])
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(row) and math.isfinite(col)) or row <= 0 or col <= 0:
        return None
    return row, col


def pixel_spacing(ds: Dataset, frame: int = 0) -> tuple[tuple[float, float], str]:
    """``((row, col) spacing in mm, source)``.

    *Pixel Spacing* (also from the Pixel Measures functional group) first, then *Imager
    Pixel Spacing* (at the detector: projection radiography and mammography), else 1.0 mm with
    source ``"fallback 1.0"``. Missing, zero, negative or malformed values fall through.
    """
    pair = _positive_pair(frame_attr(ds, frame, "PixelMeasuresSequence", "PixelSpacing"))
    if pair is not None:
        return pair, "PixelSpacing"
    pair = _positive_pair(value(ds, "ImagerPixelSpacing"))
    if pair is not None:
        return pair, "ImagerPixelSpacing"
    return (1.0, 1.0), "fallback 1.0"


def number_of_frames(ds: Dataset) -> int:
    try:
        return max(1, int(value(ds, "NumberOfFrames") or 1))
    except (TypeError, ValueError):
        return 1


# -- what the project stores -----------------------------------------------------------------
def technical_info(ds: Dataset) -> dict[str, Any]:
    """Technical, non-identifying metadata of a DICOM file for the project's ``info`` JSON.

    Built from an allow-list only: modality, photometric interpretation, bits allocated/stored,
    pixel representation, samples per pixel, rows/columns, transfer syntax UID and name, SOP
    class UID (a standard class, not an instance), presentation intent, number of frames,
    has_voi_lut, has_modality_lut, VOI LUT function.

    Example
    -------
    >>> from pydicom import dcmread
    >>> from pydicom.data import get_testdata_file
    >>> info = technical_info(dcmread(get_testdata_file("CT_small.dcm")))
    >>> info["modality"], info["bits_stored"], "patient_name" in info
    ('CT', 16, False)
    """
    meta = getattr(ds, "file_meta", None)
    ts = str(meta.get("TransferSyntaxUID", "")) if meta is not None else ""
    info: dict[str, Any] = {
        "modality": str(value(ds, "Modality", "") or ""),
        "photometric_interpretation": str(value(ds, "PhotometricInterpretation", "") or ""),
        "bits_allocated": int(value(ds, "BitsAllocated", 0) or 0),
        "bits_stored": int(value(ds, "BitsStored", 0) or 0),
        "pixel_representation": int(value(ds, "PixelRepresentation", 0) or 0),
        "samples_per_pixel": int(value(ds, "SamplesPerPixel", 1) or 1),
        "transfer_syntax_uid": ts,
        "transfer_syntax": UID(ts).name if ts else "",
        "sop_class_uid": str(value(ds, "SOPClassUID", "") or ""),
        "presentation_intent": str(value(ds, "PresentationIntentType", "") or ""),
        "number_of_frames": number_of_frames(ds),
        "has_voi_lut": bool(value(ds, "VOILUTSequence")),
        "has_modality_lut": bool(value(ds, "ModalityLUTSequence")),
        "voi_lut_function": str(value(ds, "VOILUTFunction", "") or ""),
    }
    return info


def frame_info(ds: Dataset, frame: int, technical: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """Per-image metadata: :func:`technical_info` (``technical`` when the caller has it
    already) plus spacing, windows and units of ``frame``."""
    info = dict(technical) if technical is not None else technical_info(ds)
    spacing, source = pixel_spacing(ds, frame)
    slope, intercept, _ = rescale(ds, frame)
    info.update(
        frame=frame,
        pixel_spacing=[spacing[0], spacing[1]],
        spacing_source=source,
        window_presets=[
            {"name": p.name, "center": p.center, "width": p.width}
            for p in window_presets(ds, frame)
        ],
        rescale_slope=slope,
        rescale_intercept=intercept,
        value_unit=value_unit(ds, frame),
    )
    return info
