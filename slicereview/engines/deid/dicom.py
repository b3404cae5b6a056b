"""A de-identified copy of a DICOM file: the rules of :mod:`.dicom_rules`, applied to the
header only; the pixel data element follows byte for byte.

How: pydicom reads the header up to the pixel data (``stop_before_pixels``; the element
itself is never parsed), the allow-list builds a new data set from it, dicognito
[Dicognito] replaces the identifying values that are kept (names, IDs, UIDs) using the
project's seed, and the new header is written in the file's own transfer syntax. The copy is
that header followed by the original's pixel data element, found by its position
(``keep``); whatever follows the pixel data (trailing padding, private elements) is left
out. A deflated or big-endian file, whose pixel data cannot be cut out as bytes, is read
whole and written whole, with the same pixel data value.

Degenerate cases: a file without pixel data gives a header-only copy; a file whose header
pydicom cannot read raises :class:`~.copy.NotShareableError`.

Example
-------
>>> from pydicom import dcmread
>>> from pydicom.data import get_testdata_file
>>> raw = open(get_testdata_file("CT_small.dcm"), "rb").read()
>>> copy = deidentify_dicom(raw, "seed")
>>> ds = dcmread(__import__("io").BytesIO(copy.bytes_from(raw)))
>>> str(ds.PatientName) != "CompressedSamples^CT1", ds.PatientIdentityRemoved
(True, 'YES')
>>> ds.PixelData == dcmread(get_testdata_file("CT_small.dcm")).PixelData
True
"""

from __future__ import annotations

import functools
import io
import struct
from typing import Any

from slicereview.engines.deid import dicom_rules as rules
from slicereview.engines.deid.copy import NotShareableError, SharedCopy

_PIXEL_TAGS = {(0x7FE0, 0x0010), (0x7FE0, 0x0008), (0x7FE0, 0x0009)}
_LONG_VRS = {b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"UC", b"UN", b"UR", b"UT"}


@functools.lru_cache(maxsize=1)
def _tags() -> tuple[frozenset[int], frozenset[int]]:
    from pydicom.datadict import tag_for_keyword

    def tags(names: frozenset[str]) -> frozenset[int]:
        return frozenset(t for t in (tag_for_keyword(n) for n in names) if t is not None)

    return tags(rules.KEPT | rules.REPLACED), tags(rules.KEPT_SEQUENCES)


@functools.lru_cache(maxsize=1)
def _instance_uid_tags() -> frozenset[int]:
    """The kept tags whose values are replaced (names, IDs, instance UIDs), never copied as
    they are."""
    from pydicom.datadict import dictionary_VR, keyword_for_tag

    kept, _ = _tags()
    return frozenset(t for t in kept if keyword_for_tag(t) in rules.REPLACED or (
        dictionary_VR(t) == "UI" and not keyword_for_tag(t).endswith("ClassUID")))


@functools.lru_cache(maxsize=4)
def _anonymizer(seed: str) -> Any:
    from dicognito.anonymizer import Anonymizer

    return Anonymizer(seed=seed)


def deidentify_dicom(data: bytes, seed: str) -> SharedCopy:
    """The de-identified copy of the DICOM file ``data`` (see the module docstring)."""
    from pydicom import dcmread
    from pydicom.uid import UID

    fp = io.BytesIO(data)
    try:
        ds = dcmread(fp, stop_before_pixels=True, force=True)
        start = fp.tell()
        implicit, little = ds.original_encoding
    except Exception as exc:  # (pydicom raises many kinds on a damaged header)
        raise NotShareableError(f"its DICOM header cannot be read ({exc})") from exc
    meta = getattr(ds, "file_meta", None)
    ts = UID(str(meta.get("TransferSyntaxUID", ""))) if meta is not None else UID("")
    if not ts:
        ts = UID("1.2.840.10008.1.2" if implicit else "1.2.840.10008.1.2.1")
    warnings = _warnings(ds)
    sop_class = str(ds.get("SOPClassUID", "") or (meta.get("MediaStorageSOPClassUID", "")
                                                    if meta is not None else ""))
    try:
        if ts.is_deflated or not little:  # (the pixel data is not a byte range: all of it
            # is read and written by pydicom)
            ds = dcmread(io.BytesIO(data), force=True)
            out = _reduce(ds, with_pixels=True)
            uids = _replace(out, ds, seed)
            out.file_meta = _file_meta(sop_class, str(out.get("SOPInstanceUID", "")), ts)
            out.preamble = bytes(128)
            buf = io.BytesIO()
            out.save_as(buf, enforce_file_format=True)
            return SharedCopy(buf.getvalue(), None, uids, warnings, ".dcm")
        keep = _pixel_extent(data, start, bool(implicit))
        header, uids = _header(data, ds, ts, bool(implicit), seed, sop_class)
    except NotShareableError:
        raise
    except Exception as exc:
        raise NotShareableError(f"its de-identified header cannot be written ({exc})") from exc
    return SharedCopy(header, keep, uids, warnings, ".dcm")


def _header(data: bytes, ds: Any, ts: Any, implicit: bool, seed: str, sop_class: str
            ) -> tuple[bytes, dict[str, str]]:
    """The copy's header: its kept elements as the original's bytes (they need no change,
    and copying them costs nothing), the replaced ones, the sequences kept and the
    de-identification record written by pydicom; the file meta written anew."""
    from pydicom import Dataset
    from pydicom.dataelem import RawDataElement
    from pydicom.filebase import DicomBytesIO
    from pydicom.filewriter import write_data_element, write_file_meta_info

    kept, sequences = _tags()
    instance_uids = _instance_uid_tags()
    parts: list[tuple[int, bytes]] = []
    written = Dataset()
    for tag in list(ds.keys()):
        if tag.is_private:
            continue
        if tag in sequences:
            written.add_new(tag, "SQ", [_reduce(item, False) for item in ds[tag].value])
            continue
        if tag not in kept:
            continue
        raw = ds.get_item(tag)
        if (isinstance(raw, RawDataElement) and tag not in instance_uids
                and raw.length != 0xFFFFFFFF):
            long = not implicit and (raw.VR or "").encode() in _LONG_VRS
            begin = raw.value_tell - (12 if long else 8)
            parts.append((int(tag), data[begin:raw.value_tell + raw.length]))
        else:
            written[tag] = ds[tag]
    uids = _replace(written, ds, seed)
    encodings = getattr(ds, "_character_set", None)
    for tag in list(written.keys()):
        fp = DicomBytesIO()
        fp.is_little_endian, fp.is_implicit_VR = True, implicit
        write_data_element(fp, written[tag], encodings)
        parts.append((int(tag), fp.getvalue()))
    meta = DicomBytesIO()
    meta.is_little_endian, meta.is_implicit_VR = True, False
    write_file_meta_info(meta, _file_meta(sop_class, str(written.get("SOPInstanceUID", "")),
                                          ts), enforce_standard=True)
    body = b"".join(part for _, part in sorted(parts, key=lambda p: p[0]))
    return bytes(128) + b"DICM" + meta.getvalue() + body, uids


def _reduce(src: Any, with_pixels: bool) -> Any:
    """A new data set holding only the allowed elements of ``src`` (recursively)."""
    from pydicom import Dataset

    kept, sequences = _tags()
    out = Dataset()
    for tag in list(src.keys()):  # (tags only: an element is decoded only when it is kept)
        if tag.is_private:
            continue
        if tag in kept or (with_pixels and (tag.group, tag.element) in _PIXEL_TAGS):
            out[tag] = src[tag]
        elif tag in sequences:
            out.add_new(tag, "SQ", [_reduce(item, False) for item in src[tag].value])
    return out


def _pixel_extent(data: bytes, start: int, implicit: bool) -> tuple[int, int] | None:
    """``(start, end)`` of the pixel data element at ``start`` (``None``: no pixel data)."""
    if start + 8 > len(data):
        return None
    try:
        group, element = struct.unpack_from("<HH", data, start)
        if (group, element) not in _PIXEL_TAGS:
            raise NotShareableError("its header ends in something that is not pixel data")
        if implicit:
            (length,), value = struct.unpack_from("<I", data, start + 4), start + 8
        elif data[start + 4:start + 6] in _LONG_VRS:
            (length,), value = struct.unpack_from("<I", data, start + 8), start + 12
        else:
            (length,), value = struct.unpack_from("<H", data, start + 6), start + 8
        if length != 0xFFFFFFFF:
            end = value + length
        else:  # encapsulated: items until the sequence delimiter
            pos = value
            while True:
                group, element, item = struct.unpack_from("<HHI", data, pos)
                if (group, element) == (0xFFFE, 0xE0DD):
                    end = pos + 8
                    break
                if (group, element) != (0xFFFE, 0xE000):
                    raise NotShareableError("its encapsulated pixel data is damaged")
                pos += 8 + item
    except struct.error as exc:
        raise NotShareableError("its pixel data is cut short") from exc
    if end > len(data):
        raise NotShareableError("its pixel data is cut short")
    return start, end


def _warnings(ds: Any) -> tuple[str, ...]:
    found = []
    if str(ds.get("BurnedInAnnotation", "")).upper() == "YES":
        found.append("BurnedInAnnotation is YES: the pixels show text (names, dates?)")
    kind = rules.BURNS_TEXT.get(str(ds.get("Modality", "")).upper())
    if kind:
        found.append(f"it is {kind}, which often has text burned into the pixels")
    if str(ds.get("SOPClassUID", "")).startswith(rules.SECONDARY_CAPTURE):
        found.append("it is a secondary capture, which often has text burned into the pixels")
    return tuple(dict.fromkeys(found))


def _ui_values(ds: Any) -> list[str]:
    """Every UID value of ``ds`` that is not a class or transfer syntax UID, in order."""
    found: list[str] = []
    for elem in ds:
        if elem.VR == "SQ":
            for item in elem.value:
                found.extend(_ui_values(item))
        elif elem.VR == "UI" and elem.value and not elem.keyword.endswith("ClassUID"):
            values = elem.value if isinstance(elem.value, list) or hasattr(
                elem.value, "__iter__") and not isinstance(elem.value, str) else [elem.value]
            found.extend(str(v) for v in values)
    return found


def _replace(out: Any, original: Any, seed: str) -> dict[str, str]:
    """Replace the identifying values of ``out`` in place (dicognito, then the emptied Type 2
    attributes and the de-identification record); returns the UID map."""
    from pydicom import Dataset
    from pydicom.dataset import FileMetaDataset

    for keyword in ("PatientName", "PatientID"):
        if keyword not in out:
            setattr(out, keyword, "")
    sop = str(original.get("SOPInstanceUID", "") or "")
    out.file_meta = FileMetaDataset()
    if sop:
        out.file_meta.MediaStorageSOPInstanceUID = sop
    before = _ui_values(out)
    _anonymizer(seed).anonymize(out)
    after = _ui_values(out)
    for keyword in rules.EMPTIED:
        setattr(out, keyword, "")
    out.PatientIdentityRemoved = "YES"
    out.DeidentificationMethod = rules.DEIDENTIFICATION_METHOD
    code = Dataset()
    code.CodeValue, code.CodingSchemeDesignator, code.CodeMeaning = rules.BASIC_PROFILE
    out.DeidentificationMethodCodeSequence = [code]
    uids = dict(zip(before, after, strict=True))
    if sop:
        uids[sop] = str(out.file_meta.MediaStorageSOPInstanceUID)
    return uids


def _file_meta(sop_class: str, sop_instance: str, ts: Any) -> Any:
    from pydicom.dataset import FileMetaDataset
    from pydicom.uid import PYDICOM_IMPLEMENTATION_UID, UID

    new = FileMetaDataset()
    if not sop_class:
        raise NotShareableError("it names no SOP class")
    if not sop_instance:
        raise NotShareableError("it has no SOP Instance UID")
    new.MediaStorageSOPClassUID = UID(sop_class)
    new.MediaStorageSOPInstanceUID = UID(sop_instance)
    new.TransferSyntaxUID = ts
    new.ImplementationClassUID = PYDICOM_IMPLEMENTATION_UID
    new.ImplementationVersionName = "SLICEREVIEW"
    return new
