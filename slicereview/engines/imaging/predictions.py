"""Reading a model's predictions from files: PNG/TIFF masks, NIfTI and DICOM SEG.

A prediction file holds, for one image (or a volume, or the frames a SEG references), either a
**label image** (0 background, 1 certain, 2 uncertain) or a **probability map** (0–1). What a
file's values are is decided from the values themselves, the same way for every format
(:func:`interpret`):

* ``bool``, or integers that are all 0, 1 and 2: **labels** (a 0/1 mask is certain where 1);
* integers that are all 0 and 255 (an 8-bit black-and-white mask): **labels**, 255 certain;
* other 8-bit values: **probabilities** ``v / 255``; other 16-bit values ``v / 65535``;
* floating point in [0, 1]: **probabilities**; floating point whose values are all 0, 1 and 2:
  labels; floating point in (1, 255]: probabilities ``v / 255``;
* anything else (negative values, NaN, integers of more than 16 bits over 2) is refused with
  one sentence naming the range found.

A **DICOM SEG** (Segmentation Storage) is read frame by frame: each frame's segment number
and the SOP Instance UID (and frame number) of the source image it was derived from
(Derivation Image Sequence ▸ Source Image Sequence, in the Per-Frame Functional Groups). A
BINARY SEG's frames are masks, a FRACTIONAL SEG's values ``v / MaximumFractionalValue``
probabilities. When its segments are labelled ``certain`` and ``uncertain`` (what slicereview
exports) they become labels 1 and 2; otherwise every segment is one finding, and the frames of
one source image are combined: their union (BINARY) or, per pixel, the largest probability
(FRACTIONAL).

Sizes are checked from the header before any pixels are decoded (:mod:`.limits`).

Example
-------
>>> kind, values = interpret(np.array([[0, 255], [255, 0]], np.uint8))
>>> kind, values.tolist()
('labels', [[0, 1], [1, 0]])
>>> kind, values = interpret(np.array([[0, 128], [255, 64]], np.uint8))
>>> kind, [round(float(v), 3) for v in values.ravel()]
('probability', [0.0, 0.502, 1.0, 0.251])
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits

#: The SOP Class UID of Segmentation Storage.
SEG_CLASS = "1.2.840.10008.5.1.4.1.1.66.4"
#: File name endings read as each format (case-insensitive).
RASTER = (".png", ".tif", ".tiff")
NIFTI = (".nii", ".nii.gz")
DICOM = (".dcm", ".dicom")


@dataclass(frozen=True)
class PredictionPart:
    """One prediction read from a file.

    ``values``: ``uint8 (H, W)`` labels or ``float32 (H, W)`` probabilities (``kind``
    ``"labels"`` or ``"probability"``); a NIfTI volume gives ``(Z, Y, X)``. ``stem``: the file
    name without its format's endings (what it is matched by); for a SEG frame, ``sop_uid``
    and ``frame`` (0-based) name the source image it was derived from.
    """

    stem: str
    kind: str
    values: np.ndarray
    sop_uid: str | None = None
    frame: int = 0


def stem_of(path: str | Path) -> str:
    """The file name without its format's endings (``case1.seg.dcm`` → ``case1``,
    ``C000001.nii.gz`` → ``C000001``).

    >>> stem_of("out/C000003.seg.dcm"), stem_of("m.nii.gz"), stem_of("a.b.png")
    ('C000003', 'm', 'a.b')
    """
    name = Path(path).name
    lower = name.lower()
    for end in (".seg.dcm", ".nii.gz", *NIFTI, *RASTER, *DICOM):
        if lower.endswith(end):
            return name[: -len(end)]
    return Path(name).stem


def interpret(values: np.ndarray, what: str = "the prediction") -> tuple[str, np.ndarray]:
    """``("labels", uint8)`` or ``("probability", float32)`` of an array of any shape (the
    rules of the module text); ``ValueError`` with one sentence otherwise."""
    arr = np.asarray(values)
    if arr.dtype == np.bool_:
        return "labels", arr.astype(np.uint8)
    if arr.size == 0:
        raise ValueError(f"{what} has no pixels.")
    if arr.dtype.kind in "iu":
        low, high = int(arr.min()), int(arr.max())
        if low >= 0 and high <= 2:
            return "labels", arr.astype(np.uint8)
        if low >= 0 and high == 255 and not np.any((arr != 0) & (arr != 255)):
            return "labels", (arr == 255).astype(np.uint8)
        if low >= 0 and high <= 255:
            return "probability", (arr / 255.0).astype(np.float32)
        if low >= 0 and high <= 65535 and arr.dtype.itemsize <= 2:
            return "probability", (arr / 65535.0).astype(np.float32)
        raise ValueError(f"{what} holds values from {low} to {high}: neither labels (0, 1, 2), "
                         f"a 0/255 mask nor probabilities (0–255 or 0–65535).")
    if arr.dtype.kind != "f":
        raise ValueError(f"{what} holds values of type {arr.dtype}, not numbers.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{what} has {int(np.sum(~np.isfinite(arr)))} NaN or infinite "
                         f"values: a probability is a number from 0 to 1.")
    low_f, high_f = float(arr.min()), float(arr.max())
    if low_f >= 0 and high_f <= 1:
        return "probability", arr.astype(np.float32)
    if low_f >= 0 and high_f == 2 and np.isin(arr, (0.0, 1.0, 2.0)).all():
        return "labels", arr.astype(np.uint8)
    if low_f >= 0 and high_f <= 255:
        return "probability", (arr / 255.0).astype(np.float32)
    raise ValueError(f"{what} holds values from {low_f:g} to {high_f:g}: probabilities lie "
                     f"from 0 to 1 (or 0 to 255).")


def read(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> list[PredictionPart]:
    """The predictions in one file (one part; a SEG one per source image it references).
    ``ValueError`` (an :class:`~.errors.ImagingError` for a file that cannot be read) with one
    sentence for a file that is not a prediction."""
    path = Path(path)
    lower = path.name.lower()
    if lower.endswith(RASTER):
        from slicereview.engines.imaging.raster import read_array

        arr = read_array(path, limits)
        if arr.ndim != 2:
            raise ValueError(f"{path.name} has colour channels: a prediction is one grey "
                             f"channel (labels or probabilities).")
        return [PredictionPart(stem_of(path), *interpret(arr, path.name))]
    if lower.endswith(NIFTI):
        from slicereview.engines.imaging.volume import volume_array

        arr, geometry = volume_array(path, limits)
        if geometry["components"] > 1 or arr.ndim not in (2, 3):
            raise ValueError(f"{path.name} has the shape {arr.shape}: a prediction is a 2-D "
                             f"image or a 3-D volume of one channel.")
        return [PredictionPart(stem_of(path), *interpret(arr, path.name))]
    if lower.endswith(DICOM) or is_dicom(path):
        return read_seg(path, limits)
    raise ValueError(f"{path.name} is not a prediction file slicereview reads (PNG, TIFF, "
                     f"NIfTI .nii/.nii.gz or DICOM SEG .dcm).")


def is_dicom(path: Path) -> bool:
    """Whether the file starts with a DICOM preamble (``DICM`` at byte 128)."""
    try:
        with path.open("rb") as f:
            f.seek(128)
            return f.read(4) == b"DICM"
    except OSError:
        return False


def read_seg(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> list[PredictionPart]:
    """The predictions of a DICOM SEG: one part per referenced source image (and frame)."""
    from pydicom import dcmread
    from pydicom.errors import InvalidDicomError

    path = Path(path)
    try:
        ds = dcmread(path, force=True)
        sop_class = str(ds.get("SOPClassUID", ""))
    except (InvalidDicomError, OSError, ValueError, AttributeError, KeyError, EOFError):
        raise UnreadableImageError(
            f"cannot read {path.name}: it is damaged or not DICOM") from None
    if sop_class != SEG_CLASS:
        raise ValueError(f"{path.name} is a DICOM object but not a Segmentation (SEG): its SOP "
                         f"class is {sop_class or 'missing'}.")
    kind = str(ds.get("SegmentationType", ""))
    if kind not in ("BINARY", "FRACTIONAL"):
        raise ValueError(f"{path.name} is a SEG of type {kind or 'missing'}; slicereview reads "
                         f"BINARY and FRACTIONAL ones.")
    rows, cols = int(ds.get("Rows", 0)), int(ds.get("Columns", 0))
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    limits.check_frame(rows, cols)
    limits.check_frames(frames)
    limits.check_decoded(rows * cols * frames)
    labels = {int(s.SegmentNumber): str(s.get("SegmentLabel", "")).strip().lower()
              for s in ds.get("SegmentSequence", [])}
    refs = _frame_refs(ds, frames, path.name)
    try:
        pixels = np.asarray(ds.pixel_array).reshape(frames, rows, cols)
    except Exception as why:  # (pydicom's decoders raise many kinds)
        raise UnreadableImageError(f"cannot decode the frames of {path.name}: {why}") from None
    scale = 1.0
    if kind == "FRACTIONAL":
        scale = float(ds.get("MaximumFractionalValue", 255) or 255)
    ours = set(labels.values()) >= {"certain"} and set(labels.values()) <= {"certain",
                                                                            "uncertain"}
    combined: dict[tuple[str, int], np.ndarray] = {}
    for k, (segment, sop_uid, frame) in enumerate(refs):
        key = (sop_uid, frame)
        if kind == "BINARY":
            mask = pixels[k] > 0
            level = 2 if ours and labels.get(segment) == "uncertain" else 1
            out = combined.setdefault(key, np.zeros((rows, cols), np.uint8))
            # certain wins over uncertain where both are marked
            out[mask & ((out == 0) | (level == 1))] = level
        else:
            p = np.clip(pixels[k].astype(np.float32) / scale, 0.0, 1.0)
            out = combined.setdefault(key, np.zeros((rows, cols), np.float32))
            np.maximum(out, p, out=out)
    what = "labels" if kind == "BINARY" else "probability"
    stem = stem_of(path)
    return [PredictionPart(stem, what, v, sop_uid, frame) for (sop_uid, frame), v in
            combined.items()]


def _frame_refs(ds, frames: int, name: str) -> list[tuple[int, str, int]]:
    """Per frame ``(segment number, source SOP Instance UID, source frame 0-based)``."""
    per_frame = ds.get("PerFrameFunctionalGroupsSequence", [])
    if len(per_frame) != frames:
        raise ValueError(f"{name} describes {len(per_frame)} of its {frames} frames; a SEG "
                         f"says for every frame which segment and source image it holds.")
    shared = (ds.get("SharedFunctionalGroupsSequence") or [None])[0]
    found = []
    for k, item in enumerate(per_frame):
        ident = item.get("SegmentIdentificationSequence") or (
            shared.get("SegmentIdentificationSequence") if shared is not None else None)
        derivation = item.get("DerivationImageSequence") or (
            shared.get("DerivationImageSequence") if shared is not None else None)
        try:
            if ident is None or derivation is None:
                raise TypeError("missing")
            segment = int(ident[0].ReferencedSegmentNumber)
            source = derivation[0].SourceImageSequence[0]
            sop_uid = str(source.ReferencedSOPInstanceUID)
        except (TypeError, IndexError, AttributeError):
            raise ValueError(f"{name}'s frame {k + 1} names no source image (Derivation Image "
                             f"Sequence): it cannot be matched to an image.") from None
        numbers = source.get("ReferencedFrameNumber")
        if numbers is None or numbers == "":
            number = 1
        elif isinstance(numbers, int | str):
            number = int(numbers)
        else:  # (several: the first; a SEG frame is derived from one source frame)
            number = int(list(numbers)[0])
        found.append((segment, sop_uid, max(number, 1) - 1))
    return found
