"""DICOM files: headers for import, pixels for display.

Display rules ([DICOM-PS3.3, C.11], [DICOM-PS3.4, N.2]): the modality LUT (*Rescale
Slope/Intercept*, or a *Modality LUT Sequence*) is applied first; then a *VOI LUT Sequence*, being
non-linear, is applied to the data, while *Window Center/Width* pairs (linear) become presets that
the viewer applies through its levels; MONOCHROME1 sets ``invert`` so that the viewer inverts after
windowing. Integer data stays integer (``uint8``/``uint16`` when the values fit, else ``int32``); a
non-integer rescale gives ``float32``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pydicom import Dataset, dcmread
from pydicom.uid import UID

from slicereview.engines.imaging import dicom_checks as checks
from slicereview.engines.imaging import dicom_meta as meta
from slicereview.engines.imaging.codestream import check_codestream
from slicereview.engines.imaging.display import DisplayImage, WindowPreset, to_rgb8
from slicereview.engines.imaging.errors import UnreadableImageError, decoder_edge
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.model import NewImage

if os.environ.get("SLICEREVIEW_DECODING_CHILD") == "1":  # set by decoder_child._limit_child
    from pydicom import config as _config

    # The decoding child ignores warnings (decoder_child.serve), so pydicom's checks of each
    # value against its VR (the default "warn" mode) only cost time there: ~0.09 ms of the
    # ~1.4 ms an import's read of a small file takes. The checks that refuse a file are ours.
    _config.settings.reading_validation_mode = _config.IGNORE

_PIXEL_TAGS = (0x7FE00010, 0x7FE00008, 0x7FE00009)  # Pixel Data, Float, Double Float


def read_header(path: str | Path, *, defer: bool = True,
                limits: Limits = DEFAULT_LIMITS) -> Dataset:
    """Read a DICOM file's data set; large values (the pixel data) are deferred when ``defer``.

    A deflated data set is first inflated as a stream with a cap
    (:func:`~.dicom_checks.check_deflated`). Raises :class:`UnreadableImageError` for a file
    pydicom cannot parse (whatever pydicom raises, even ``RecursionError`` on absurdly nested
    sequences) and :class:`~.errors.LimitExceededError` for a deflate bomb.
    """
    path = Path(path)
    checks.check_deflated(path, limits)
    try:
        with decoder_edge(path.name, "read the DICOM header of"):
            ds = dcmread(path, defer_size="256 KB" if defer else None, force=True)
            _ensure_transfer_syntax(ds)
    except UnreadableImageError:
        raise UnreadableImageError(
            f"{path.name} is not a readable DICOM file (damaged, truncated or another kind "
            "of file); copy it again from its source or leave it out."
        ) from None
    return ds


def _ensure_transfer_syntax(ds: Dataset) -> None:
    """Give a data set without file meta (no preamble) the transfer syntax it was read with,
    so that its pixel data can be decoded."""
    from pydicom.dataset import FileMetaDataset
    from pydicom.uid import ExplicitVRBigEndian, ExplicitVRLittleEndian, ImplicitVRLittleEndian

    if getattr(ds, "file_meta", None) is not None and "TransferSyntaxUID" in ds.file_meta:
        return
    implicit, little = getattr(ds, "original_encoding", (None, None))
    if implicit is None or little is None:
        return
    if getattr(ds, "file_meta", None) is None:
        ds.file_meta = FileMetaDataset()
    ds.file_meta.TransferSyntaxUID = (
        ImplicitVRLittleEndian if implicit else
        ExplicitVRLittleEndian if little else ExplicitVRBigEndian
    )


def _pixel_element(ds: Dataset) -> Any:
    for tag in _PIXEL_TAGS:
        if meta.has(ds, tag):
            return ds.get_item(tag)
    return None


def _transfer_syntax(ds: Dataset, path: Path) -> str:
    uid = checks.transfer_syntax(ds, path.name)
    return str(uid) if uid is not None else ""


def validate(ds: Dataset, path: Path, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a data set without pixel data, with an inconsistent or oversized header, or
    whose decoder is missing (see :func:`~.dicom_checks.validate_header`); no decoder runs."""
    element = _pixel_element(ds)
    if not meta.has(ds, 0x00280010) or element is None:  # Rows
        raise UnreadableImageError(
            f"{path.name} is a DICOM file without image pixel data (e.g. a DICOMDIR, report "
            "or presentation state); leave it out."
        )
    with decoder_edge(path.name, "read the DICOM header of"):
        transfer_syntax = _transfer_syntax(ds, path)
        checks.validate_header(ds, path, limits, checks.pixel_length(element, path))
        if transfer_syntax:
            check_codestream(element, path, UID(transfer_syntax).name, int(ds.Rows),
                             int(ds.Columns), int(meta.value(ds, "SamplesPerPixel", 1) or 1),
                             int(ds.BitsAllocated))
    if transfer_syntax:
        meta.check_decoder(transfer_syntax)


def import_entries(path: str | Path, frames_for: Callable[[int], list[int]] | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[NewImage]]:
    """``(source info, images)`` for one DICOM file, reading no pixel data.

    One :class:`NewImage` per frame; for a multi-frame file ``frames_for(n)`` picks the frames
    (default all). Checks that the file has pixel data, a decoder for its transfer syntax
    (:class:`MissingCodecError` naming the package otherwise) and, for uncompressed files, the
    pixel data's length.
    """
    path = Path(path)
    return entries_of(read_header(path, limits=limits), path, frames_for, limits)


def entries_of(ds: Dataset, path: Path, frames_for: Callable[[int], list[int]] | None = None,
               limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[NewImage]]:
    """:func:`import_entries` of an already read data set (validated here)."""
    validate(ds, path, limits)
    rows, cols = int(ds.Rows), int(ds.Columns)
    n = meta.number_of_frames(ds)
    wanted = list(range(n)) if frames_for is None or n == 1 else [
        f for f in frames_for(n) if 0 <= f < n]
    if not wanted:
        raise UnreadableImageError(
            f"The slice selection picks none of the {n} frames of {path.name}; choose "
            "another selection."
        )
    with decoder_edge(path.name, "read the DICOM header of"):
        technical = meta.technical_info(ds)
        images = [NewImage(rows, cols, frame=f, axis=-1, slice_index=0,
                           info=meta.frame_info(ds, f, technical)) for f in wanted]
        return technical, images


# -- pixels ----------------------------------------------------------------------------------
def _decode(ds: Dataset, path: Path, frame: int) -> np.ndarray:
    from pydicom.pixels import pixel_array

    n = meta.number_of_frames(ds)
    if not 0 <= frame < n:
        raise UnreadableImageError(
            f"Frame {frame} of {path.name} does not exist (it has {n}); relink the project "
            "to the right file."
        )
    with decoder_edge(path.name):
        # index= decodes only the wanted frame of a multi-frame file; pixel data longer than
        # the header's frames (a 16-bit file relabelled 1-bit) gives no extra frames.
        arr = pixel_array(ds, index=frame if n > 1 else None, allow_excess_frames=False)
    samples = int(meta.value(ds, "SamplesPerPixel", 1) or 1)
    expected = (int(ds.Rows), int(ds.Columns)) + ((samples,) if samples > 1 else ())
    if arr.shape != expected:
        raise UnreadableImageError(
            f"The pixel data of {path.name} decodes to {' × '.join(map(str, arr.shape))} "
            f"values, not the {' × '.join(map(str, expected))} its header says; the header "
            "is damaged, so leave the file out or re-export it from its source."
        )
    return arr


def _narrow(arr: np.ndarray) -> np.ndarray:
    """The smallest fast display dtype holding integer ``arr`` exactly (uint8/uint16/int32)."""
    if arr.dtype.kind == "f":
        return arr.astype(np.float32, copy=False)
    if arr.dtype in (np.uint8, np.uint16):
        return arr
    if arr.size == 0:
        return arr.astype(np.int32)
    lo, hi = int(arr.min()), int(arr.max())
    if lo >= 0 and hi <= 0xFFFF:
        return arr.astype(np.uint16)
    if lo >= -(2**31) and hi < 2**31:
        return arr.astype(np.int32)
    return arr.astype(np.float32)


def _modality(arr: np.ndarray, ds: Dataset, frame: int) -> np.ndarray:
    """Apply the modality LUT or rescale, keeping integers where the result is integral."""
    from pydicom.pixels import apply_modality_lut

    if meta.value(ds, "ModalityLUTSequence"):
        return _narrow(apply_modality_lut(arr, ds))
    slope, intercept, _ = meta.rescale(ds, frame)
    if slope == 1.0 and intercept == 0.0:
        return _narrow(arr)
    if (arr.dtype.kind in "iu" and slope.is_integer() and intercept.is_integer()
            and abs(slope) < 2**16 and abs(intercept) < 2**31):  # (int64 cannot overflow)
        out = arr.astype(np.int64) * int(slope) + int(intercept)
        return _narrow(out)
    # In float64, then float32: a value beyond float32 becomes inf, never a wrapped integer
    # (display.finite then refuses an image with no finite pixel).
    with np.errstate(over="ignore", invalid="ignore"):
        return (arr.astype(np.float64) * slope + intercept).astype(np.float32)


def _voi_lut(arr: np.ndarray, ds: Dataset) -> tuple[np.ndarray, WindowPreset]:
    """Apply the first VOI LUT of the sequence; preset spanning the LUT's output values."""
    from pydicom.pixels.processing import apply_voi

    item = ds.VOILUTSequence[0]
    out = _narrow(apply_voi(arr, ds, index=0))
    lut = np.asarray(item.LUTData if not isinstance(item.LUTData, bytes) else
                     np.frombuffer(item.LUTData, dtype="<u2"))
    low, high = float(lut.min()), float(lut.max())
    if high <= low:
        high = low + 1.0
    name = str(item.get("LUTExplanation", "") or "VOI LUT")
    return out, WindowPreset.from_levels(name, low, high)


def _sigmoid(arr: np.ndarray, ds: Dataset, frame: int) -> tuple[np.ndarray, WindowPreset]:
    """VOI LUT Function SIGMOID: non-linear, so applied here (first window) to float32."""
    presets = meta.window_presets(ds, frame)
    c, w = presets[0].center, presets[0].width
    out = (1.0 / (1.0 + np.exp(-4.0 * (arr.astype(np.float32) - c) / w))).astype(np.float32)
    return out, WindowPreset(f"{presets[0].name} (sigmoid)", 0.5, 1.0)


def _to_rgb8(arr: np.ndarray, ds: Dataset) -> np.ndarray:
    """Colour data (RGB after pydicom's YBR conversion, or palette) as ``(H, W, 3)`` uint8."""
    from pydicom.pixels import apply_color_lut

    if str(ds.get("PhotometricInterpretation", "")).upper() == "PALETTE COLOR":
        arr = apply_color_lut(arr, ds)
    if arr.dtype == np.uint8:
        return to_rgb8(arr)
    bits = 16 if arr.dtype == np.uint16 else int(ds.get("BitsStored", 8 * arr.itemsize))
    return to_rgb8(arr, float(2**min(bits, 32) - 1))


def load(path: str | Path, frame: int = 0, limits: Limits = DEFAULT_LIMITS) -> DisplayImage:
    """The :class:`DisplayImage` of ``frame`` of the DICOM file at ``path`` (see module doc).

    Example
    -------
    >>> from pydicom.data import get_testdata_file
    >>> d = load(get_testdata_file("CT_small.dcm"))
    >>> d.data.dtype.name, d.value_unit, d.spacing_source
    ('int32', 'HU', 'PixelSpacing')
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"image file not found: {path}")
    ds = read_header(path, defer=False, limits=limits)
    validate(ds, path, limits)
    return display_of(ds, path, frame)


def display_of(ds: Dataset, path: Path, frame: int = 0) -> DisplayImage:
    """:func:`load` of an already read and validated data set (its pixel data not deferred)."""
    arr = _decode(ds, path, frame)
    with decoder_edge(path.name, "show"):
        return _display(arr, ds, frame)


def _display(arr: np.ndarray, ds: Dataset, frame: int) -> DisplayImage:
    spacing, spacing_source = meta.pixel_spacing(ds, frame)
    photometric = str(meta.value(ds, "PhotometricInterpretation", "")).upper()
    modality = str(meta.value(ds, "Modality", "") or "")
    colour = arr.ndim == 3 or photometric == "PALETTE COLOR"
    if colour:
        data = _to_rgb8(arr, ds)
        presets: list[WindowPreset] = []
        unit = ""
        invert = False
    else:
        data = _modality(arr, ds, frame)
        presets = meta.window_presets(ds, frame)
        unit = meta.value_unit(ds, frame)
        function = str(meta.value(ds, "VOILUTFunction", "") or "").upper()
        if meta.value(ds, "VOILUTSequence"):
            data, preset = _voi_lut(data, ds)
            presets, unit = [preset], ""
        elif function == "SIGMOID" and presets:
            data, preset = _sigmoid(data, ds, frame)
            presets, unit = [preset], ""
        invert = photometric == "MONOCHROME1"
    rows, cols = data.shape[:2]
    description = " ".join(
        x for x in (modality, f"{cols}×{rows}", data.dtype.name, photometric) if x
    )
    if not all(math.isfinite(s) for s in spacing):
        spacing, spacing_source = (1.0, 1.0), "fallback 1.0"
    return DisplayImage(
        data=data, presets=presets, invert=invert, spacing=spacing,
        spacing_source=spacing_source, value_unit=unit, description=description,
    )
