"""De-identified copies of NIfTI, PNG, TIFF and JPEG files: the header fields and chunks that
can carry a name are cleared; the pixels are never touched.

* **NIfTI-1 and -2** (``.nii``, ``.nii.gz``): ``descrip``, ``aux_file``, ``db_name`` (NIfTI-1)
  and ``intent_name`` are zeroed, and the header extensions (which can hold a whole DICOM
  header or XML) are zeroed and flagged absent; the voxel offset stays, so the voxels are
  the original's bytes. A ``.nii.gz`` is unpacked, cleared and packed again (deterministic:
  no time stamp, level 6).
* **PNG**: the text chunks ``tEXt``, ``iTXt``, ``zTXt``, the ``eXIf`` and ``tIME`` chunks are
  left out; every other chunk is copied as it is.
* **TIFF** (and BigTIFF): the values of ImageDescription, DocumentName, PageName, Make, Model,
  Software, DateTime, Artist, HostComputer, Copyright, XMP, IPTC, Photoshop and the EXIF and
  GPS directories' text are overwritten with zero bytes in place (same length: every offset
  in the file stays valid).
* **JPEG**: the APP1-APP13 and APP15 segments (EXIF, XMP, IPTC...) and comments (COM) are left
  out; APP0 (JFIF) and APP14 (Adobe colour transform), which decoding needs, are kept.

Example
-------
>>> import io, struct, zlib
>>> def chunk(kind, body):
...     return (struct.pack(">I", len(body)) + kind + body
...             + struct.pack(">I", zlib.crc32(kind + body)))
>>> raw = (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
...        + chunk(b"tEXt", b"Author\\x00Smith") + chunk(b"IDAT", zlib.compress(b"\\x00\\x00"))
...        + chunk(b"IEND", b""))
>>> b"Smith" in png(raw).header, len(png(raw).header) == len(raw) - 24
(False, True)
"""

from __future__ import annotations

import gzip
import io
import struct

from slicereview.engines.deid.copy import NotShareableError, SharedCopy

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_DROPPED = {b"tEXt", b"iTXt", b"zTXt", b"eXIf", b"tIME"}
#: NIfTI-1 / NIfTI-2: (offset, length) of the text fields cleared, and where the extension
#: flag is.
_NIFTI1: tuple[tuple[int, int], ...] = ((14, 18), (148, 80), (228, 24), (328, 16))
_NIFTI2: tuple[tuple[int, int], ...] = ((240, 80), (320, 24), (508, 16))
_TIFF_TEXT_TAGS = {269, 270, 271, 272, 285, 305, 306, 315, 316, 33432, 700, 33723, 34377}
_TIFF_SUB_IFDS = {34665, 34853}  # EXIF and GPS directories: every value there is cleared
_TIFF_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8,
               16: 8, 17: 8, 18: 8}


def nifti(data: bytes, name: str = "") -> SharedCopy:
    """The de-identified copy of a NIfTI file (gzipped when ``data`` is)."""
    packed = data[:2] == b"\x1f\x8b"
    try:
        raw = bytearray(gzip.decompress(data) if packed else data)
    except (OSError, EOFError) as exc:
        raise NotShareableError(f"it is not a readable gzip file ({exc})") from exc
    if len(raw) < 352:
        raise NotShareableError("its NIfTI header is cut short")
    size = struct.unpack_from("<i", raw, 0)[0]
    order = "<"
    if size not in (348, 540):
        size, order = struct.unpack_from(">i", raw, 0)[0], ">"
    if size == 348:
        fields, vox = _NIFTI1, int(struct.unpack_from(order + "f", raw, 108)[0])
    elif size == 540:
        fields, vox = _NIFTI2, int(struct.unpack_from(order + "q", raw, 168)[0])
    else:
        raise NotShareableError("it is not a NIfTI-1 or NIfTI-2 file")
    for offset, length in fields:
        raw[offset:offset + length] = bytes(length)
    end = vox if size + 4 <= vox <= len(raw) else size + 4  # (the voxels start at vox)
    if len(raw) >= size + 4 and raw[size] != 0:  # extensions present: cleared up to the voxels
        raw[size:end] = bytes(end - size)
    suffix = ".nii.gz" if packed or name.lower().endswith(".gz") else ".nii"
    if packed:
        out = io.BytesIO()
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=0, filename="") as gz:
            gz.write(raw)
        return SharedCopy(out.getvalue(), None, {}, (), suffix)
    return SharedCopy(bytes(raw[:end]), (end, len(data)), {}, (), suffix)


def png(data: bytes) -> SharedCopy:
    """The de-identified copy of a PNG file."""
    if data[:8] != _PNG_SIGNATURE:
        raise NotShareableError("it is not a PNG file")
    parts, pos = [data[:8]], 8
    while pos + 12 <= len(data):
        (length,), kind = struct.unpack_from(">I", data, pos), data[pos + 4:pos + 8]
        end = pos + 12 + length
        if end > len(data):
            raise NotShareableError("its PNG chunks are cut short")
        if kind not in _PNG_DROPPED:
            parts.append(data[pos:end])
        pos = end
        if kind == b"IEND":
            break
    return SharedCopy(b"".join(parts), None, {}, (), ".png")


def tiff(data: bytes) -> SharedCopy:
    """The de-identified copy of a TIFF file (see the module docstring)."""
    raw = bytearray(data)
    if raw[:2] not in (b"II", b"MM"):
        raise NotShareableError("it is not a TIFF file")
    order = "<" if raw[:2] == b"II" else ">"
    try:
        magic = struct.unpack_from(order + "H", raw, 2)[0]
        big = magic == 43
        if magic not in (42, 43):
            raise NotShareableError("it is not a TIFF file")
        first = struct.unpack_from(order + ("Q" if big else "I"), raw, 8 if big else 4)[0]
        _clear_ifds(raw, order, big, first, everything=False)
    except struct.error as exc:
        raise NotShareableError("its TIFF directories are cut short") from exc
    return SharedCopy(bytes(raw), None, {}, (), ".tif")


def _clear_ifds(raw: bytearray, order: str, big: bool, offset: int, everything: bool) -> None:
    seen: set[int] = set()
    count_fmt, entry, next_fmt = ("Q", 20, "Q") if big else ("H", 12, "I")
    while offset and offset not in seen and offset < len(raw):
        seen.add(offset)
        count = struct.unpack_from(order + count_fmt, raw, offset)[0]
        base = offset + (8 if big else 2)
        for k in range(count):
            at = base + k * entry
            tag, kind = struct.unpack_from(order + "HH", raw, at)
            n = struct.unpack_from(order + ("Q" if big else "I"), raw, at + 4)[0]
            value_at = at + (12 if big else 8)
            nbytes = _TIFF_SIZES.get(kind, 1) * n
            if nbytes > (8 if big else 4):
                value_at = struct.unpack_from(order + ("Q" if big else "I"), raw, value_at)[0]
            if tag in _TIFF_SUB_IFDS and kind in (4, 13, 16, 18):
                sub = struct.unpack_from(order + ("Q" if kind in (16, 18) else "I"), raw,
                                         value_at)[0]
                _clear_ifds(raw, order, big, sub, everything=True)
            elif tag in _TIFF_TEXT_TAGS or (everything and kind in (2, 7)):
                end = min(value_at + nbytes, len(raw))
                raw[value_at:end] = bytes(end - value_at)
        offset = struct.unpack_from(order + next_fmt, raw, base + count * entry)[0]


def jpeg(data: bytes) -> SharedCopy:
    """The de-identified copy of a JPEG file (see the module docstring)."""
    if data[:2] != b"\xff\xd8":
        raise NotShareableError("it is not a JPEG file")
    parts, pos = [data[:2]], 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise NotShareableError("its JPEG segments are damaged")
        marker = data[pos + 1]
        if marker == 0xDA:  # start of scan: the rest is image data
            parts.append(data[pos:])
            break
        length = struct.unpack_from(">H", data, pos + 2)[0]
        end = pos + 2 + length
        if not (0xE1 <= marker <= 0xED or marker in (0xEF, 0xFE)):
            parts.append(data[pos:end])
        pos = end
    return SharedCopy(b"".join(parts), None, {}, (), ".jpg")
