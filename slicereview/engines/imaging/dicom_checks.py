"""DICOM header validation, run before any decoder sees the pixel data.

Native decoders (gdcm, openjpeg, CharLS) trust the header: a JPEG 2000 file whose
*Photometric Interpretation* says MONOCHROME2 while *Samples per Pixel* is 3, or a JPEG file
with *Bits Allocated* 32, makes gdcm abort the whole process. :func:`validate_header` checks
that the image attributes are consistent with each other, with the transfer syntax and (for
uncompressed data) with the pixel data's length, and that the sizes they imply stay within the
:class:`~.limits.Limits`. :func:`check_deflated` streams a deflated data set with a cap before
pydicom inflates it in one piece.

Every refusal is an :class:`~.errors.UnreadableImageError` or
:class:`~.errors.LimitExceededError` with a one-sentence message.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

from pydicom import Dataset
from pydicom.uid import UID

from slicereview.engines.imaging import dicom_meta as meta
from slicereview.engines.imaging.errors import LimitExceededError, UnreadableImageError
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits

DEFLATED = "1.2.840.10008.1.2.1.99"
_UNDEFINED = 0xFFFFFFFF
_GREY = frozenset({"MONOCHROME1", "MONOCHROME2", "PALETTE COLOR"})
_COLOUR = frozenset({"RGB", "YBR_FULL", "YBR_FULL_422", "YBR_ICT", "YBR_RCT",
                     "YBR_PARTIAL_420", "YBR_PARTIAL_422"})
#: Bits Allocated that each family of compressed transfer syntaxes can carry.
_BITS_BY_FAMILY = (
    ("JPEG 2000", {8, 16, 32}),
    ("High-Throughput JPEG 2000", {8, 16, 32}),
    ("JPEG-LS", {8, 16}),
    ("JPEG", {8, 16}),
    ("RLE", {8, 16, 32, 64}),
)
_DAMAGED = "the header is damaged, so leave the file out or re-export it from its source"


def _bad(name: str, what: str) -> UnreadableImageError:
    return UnreadableImageError(f"{name} cannot be shown: {what}; {_DAMAGED}.")


def _int(ds: Dataset, keyword: str, default: int | None = None) -> int | None:
    """``ds.keyword`` as an int (first value of a multi-value), ``default`` when absent/bad."""
    try:
        value = meta.value(ds, keyword)
    except Exception:  # a malformed value raises on access
        return default
    if value is None or value == "":
        return default
    if isinstance(value, list | tuple) or type(value).__name__ == "MultiValue":
        value = value[0] if len(value) else default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def transfer_syntax(ds: Dataset, name: str) -> UID | None:
    """The data set's transfer syntax, or None when the file has no file meta.

    Raises :class:`UnreadableImageError` when the UID is not a transfer syntax pydicom knows
    (instead of pydicom's ``ValueError: UID is not a transfer syntax.``).
    """
    meta = getattr(ds, "file_meta", None)
    raw = meta.get("TransferSyntaxUID", "") if meta is not None else ""
    if not raw:
        return None
    uid = UID(str(raw).strip().rstrip("\x00"))
    if not uid.is_transfer_syntax:
        raise UnreadableImageError(
            f"{name} uses the transfer syntax {uid}, which is not a standard one that "
            "slicereview can decode; convert the file to a standard transfer syntax "
            "(e.g. with gdcmconv or dcmconv) or leave it out."
        )
    return uid


def frame_count(ds: Dataset, name: str) -> int:
    """*Number of Frames* (1 when absent); refuses zero, negative or malformed values."""
    if not meta.has(ds, 0x00280008):  # Number of Frames
        return 1
    n = _int(ds, "NumberOfFrames", None)
    if n is None or n < 1:
        raise _bad(name, f"its Number of Frames ({ds.get('NumberOfFrames')!r}) is not a "
                         "positive number")
    return n


def validate_header(ds: Dataset, path: str | Path, limits: Limits = DEFAULT_LIMITS,
                    pixel_length: int | None = None) -> None:
    """Refuse a data set whose image attributes are inconsistent or too large.

    Parameters
    ----------
    ds
        The data set (its pixel data may be deferred).
    path
        The file (its name appears in messages).
    limits
        The size limits (frame pixels, frames, decoded bytes).
    pixel_length
        Bytes of uncompressed pixel data present in the file (None: not known or
        encapsulated).

    Raises
    ------
    UnreadableImageError
        Attributes missing, out of range or contradicting each other or the transfer syntax.
    LimitExceededError
        The sizes implied by the header exceed ``limits``.
    """
    name = Path(path).name
    rows, cols = _int(ds, "Rows"), _int(ds, "Columns")
    if rows is None or cols is None or rows <= 0 or cols <= 0 or rows > 0xFFFF \
            or cols > 0xFFFF:
        raise _bad(name, f"its image size ({ds.get('Rows')!r} × {ds.get('Columns')!r}) "
                         "is missing or out of range")
    allocated = _int(ds, "BitsAllocated")
    stored = _int(ds, "BitsStored", allocated)
    samples = _int(ds, "SamplesPerPixel", 1)
    photometric = str(meta.value(ds, "PhotometricInterpretation", "") or "").strip().upper()
    float_data = meta.has(ds, 0x7FE00008) or meta.has(ds, 0x7FE00009)
    if allocated not in (1, 8, 16, 32, 64) or (allocated == 64 and not float_data):
        raise _bad(name, f"its Bits Allocated ({ds.get('BitsAllocated')!r}) is not 1, 8, 16 "
                         "or 32")
    if stored is None or not 1 <= stored <= allocated or (stored == 1 and allocated != 1):
        raise _bad(name, f"its Bits Stored ({ds.get('BitsStored')!r}) does not fit its Bits "
                         f"Allocated ({allocated})")
    high = _int(ds, "HighBit", stored - 1)
    if high is None or not 0 <= high < allocated:
        raise _bad(name, f"its High Bit ({ds.get('HighBit')!r}) is outside its {allocated} "
                         "allocated bits")
    if _int(ds, "PixelRepresentation", 0) not in (0, 1):
        raise _bad(name, "its Pixel Representation is neither 0 nor 1")
    _check_colour(name, photometric, samples, allocated)
    frames = frame_count(ds, name)
    limits.check_frames(frames)
    # (all checked above; the asserts tell the type checker)
    assert rows is not None and cols is not None and samples is not None
    assert allocated is not None
    frame_bytes = -(-rows * cols * samples * allocated // 8)
    limits.check_frame(rows, cols, max(1, samples * allocated // 8))
    ts = transfer_syntax(ds, name)
    if ts is not None and ts.is_compressed:
        _check_compressed(name, ts, allocated, samples, stored)
    elif pixel_length is not None:
        expected = frames * frame_bytes
        if photometric == "YBR_FULL_422" and ts is not None and not ts.is_compressed:
            expected = frames * rows * cols * 2 * allocated // 8
        if pixel_length < expected:
            raise UnreadableImageError(
                f"{name} is truncated: its pixel data has {pixel_length} of the {expected} "
                "bytes its header describes; copy the file again from its source."
            )


def _check_colour(name: str, photometric: str, samples: int | None,
                  allocated: int) -> None:
    if samples not in (1, 3):
        raise _bad(name, f"it has {samples} samples per pixel (1 or 3 are possible)")
    if photometric in _GREY and samples != 1:
        raise _bad(name, f"its Photometric Interpretation {photometric} needs 1 sample per "
                         f"pixel, not {samples}")
    if photometric in _COLOUR and samples != 3:
        raise _bad(name, f"its Photometric Interpretation {photometric} needs 3 samples per "
                         f"pixel, not {samples}")
    if photometric not in _GREY | _COLOUR:
        shown = photometric or "missing"
        raise _bad(name, f"its Photometric Interpretation ({shown}) is not one slicereview "
                         "can show")
    if allocated == 1 and (samples != 1 or photometric not in ("MONOCHROME1", "MONOCHROME2")):
        raise _bad(name, "1-bit pixel data must be monochrome")


#: JPEG families whose colour data gdcm decodes only with all allocated bits stored.
_GDCM_COLOUR = ("JPEG Baseline", "JPEG Extended", "JPEG Lossless", "JPEG-LS")


def _check_compressed(name: str, ts: UID, allocated: int, samples: int | None,
                      stored: int | None = None) -> None:
    uid_name = ts.name
    for prefix, allowed in _BITS_BY_FAMILY:  # (longest prefixes first)
        if uid_name.startswith(prefix):
            if allocated not in allowed:
                raise _bad(name, f"{prefix} pixel data cannot have {allocated} bits "
                                 "allocated")
            break
    if uid_name.startswith("JPEG Baseline") and allocated != 8:
        raise _bad(name, f"baseline JPEG pixel data cannot have {allocated} bits allocated")
    if samples == 3 and stored != allocated and uid_name.startswith(_GDCM_COLOUR):
        # gdcm throws an exception nobody catches (SIGABRT) on such colour data.
        raise _bad(name, f"its colour JPEG pixel data has {stored} of {allocated} bits "
                         "stored, which the JPEG decoders cannot read")


def pixel_length(element: Any, path: Path) -> int | None:
    """Bytes of uncompressed pixel data really in the file (None for encapsulated data)."""
    length = getattr(element, "length", None)
    if length is None or length == _UNDEFINED:
        return None
    value = getattr(element, "value", None)
    if value is not None:
        return len(value)
    tell = getattr(element, "value_tell", None)
    if tell is None:
        return None
    return min(int(length), max(0, path.stat().st_size - int(tell)))


#: VRs whose explicit-VR length field is 4 bytes (after 2 reserved bytes).
_LONG_VRS = frozenset({b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"UC", b"UN", b"UR",
                       b"UT"})
_HEAD_BYTES = 1 << 14


def _surely_not_deflated(path: Path) -> bool:
    """True when the file's meta group can be walked in its first 16 kB and nowhere holds the
    deflated transfer syntax UID (the common case, decided without pydicom).

    Any doubt -- no ``DICM`` preamble, an implicit-VR or malformed meta group, a group longer
    than the bytes read, or the UID's text anywhere in it -- answers False, so that
    :func:`check_deflated` asks pydicom's file meta reader as before. Reading the meta group
    with pydicom costs about as much as decoding a small image; this costs a few µs.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    if len(head) < 132 or head[128:132] != b"DICM":
        return False
    pos = 132
    while pos + 8 <= len(head) and head[pos:pos + 2] == b"\x02\x00":  # group 0x0002
        vr = head[pos + 4:pos + 6]
        if not (vr.isalpha() and vr.isupper()):
            return False  # implicit VR or damage: let pydicom decide
        if vr in _LONG_VRS:
            if pos + 12 > len(head):
                return False
            length = int.from_bytes(head[pos + 8:pos + 12], "little")
            pos += 12 + length
        else:
            length = int.from_bytes(head[pos + 6:pos + 8], "little")
            pos += 8 + length
        if length == _UNDEFINED:
            return False
    if pos + 8 > len(head):
        return False  # the group may go on beyond the bytes read
    return DEFLATED.encode("ascii") not in head[:pos]


def _meta_end(path: Path) -> tuple[str, int] | None:
    """``(transfer syntax, offset of the data set)`` from the file meta, or None."""
    from pydicom.filereader import _read_file_meta_info, read_preamble

    try:
        with path.open("rb") as fh:
            read_preamble(fh, force=True)
            meta = _read_file_meta_info(fh)
            return str(meta.get("TransferSyntaxUID", "") or ""), fh.tell()
    except Exception:  # no usable file meta: pydicom decides later
        return None


def check_deflated(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a deflated DICOM data set that inflates beyond ``limits.max_decoded_bytes``.

    pydicom inflates a *Deflated Explicit VR Little Endian* data set in one piece, so a
    1 MB file that inflates to 10 GB would exhaust the memory; this streams it with a cap
    first (files in other transfer syntaxes return at once).
    """
    path = Path(path)
    if _surely_not_deflated(path):
        return
    found = _meta_end(path)
    if found is None or found[0].strip().rstrip("\x00") != DEFLATED:
        return
    cap = limits.max_decoded_bytes
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    total = 0
    with path.open("rb") as fh:
        fh.seek(found[1])
        while chunk := fh.read(1 << 16):
            try:
                while chunk:
                    total += len(inflater.decompress(chunk, 1 << 20))
                    chunk = inflater.unconsumed_tail
                    if total > cap:
                        break
            except zlib.error:
                raise UnreadableImageError(
                    f"{path.name} is a deflated DICOM file whose compressed data is damaged; "
                    "copy it again from its source or leave it out."
                ) from None
            if total > cap or inflater.eof:
                break
    if total > cap:
        raise LimitExceededError(
            f"{path.name} is a deflated DICOM file that would inflate to more than the limit "
            f"of {cap >> 20} MB (max_decoded_bytes); it is probably a compression bomb, so "
            "leave it out.", limit="max_decoded_bytes",
        )
