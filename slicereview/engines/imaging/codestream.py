"""The image size a compressed DICOM frame's own codestream declares (JPEG, JPEG-LS,
JPEG 2000), compared with the DICOM header before a decoder runs.

gdcm aborts the process when the DICOM header and the codestream disagree (a JPEG-LS frame of
50 × 10 pixels in a file whose *Columns* say 40000); :func:`check_codestream` refuses such a
file instead. Only the first fragment's first bytes are read.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from slicereview.engines.imaging.errors import UnreadableImageError

_HEAD_BYTES = 1 << 16
#: Start-of-frame markers of JPEG (baseline, extended, lossless, ...) and JPEG-LS (SOF55).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF, 0xF7}


def _first_fragment(element: Any, path: Path) -> bytes | None:
    value = getattr(element, "value", None)
    if isinstance(value, bytes):
        head = value[:_HEAD_BYTES]
    else:
        tell = getattr(element, "value_tell", None)
        if tell is None:
            return None
        with path.open("rb") as fh:
            fh.seek(int(tell))
            head = fh.read(_HEAD_BYTES)
    # Basic offset table item, then the first fragment item (explicit little endian).
    offset = 0
    for _ in range(2):
        if len(head) < offset + 8:
            return None
        group, elem, length = struct.unpack("<HHI", head[offset:offset + 8])
        if (group, elem) != (0xFFFE, 0xE000):
            return None
        if _ == 0:
            offset += 8 + length
        else:
            return head[offset + 8:offset + 8 + length]
    return None


def _jpeg_size(data: bytes) -> tuple[int, int, int, int] | None:
    """``(rows, cols, components, precision)`` from a JPEG/JPEG-LS SOF segment."""
    k = 2
    while k + 4 <= len(data):
        if data[k] != 0xFF:
            return None
        marker = data[k + 1]
        if marker == 0xFF:  # fill byte
            k += 1
            continue
        length = struct.unpack(">H", data[k + 2:k + 4])[0]
        if marker in _SOF and k + 10 <= len(data):
            precision, rows, cols, comps = struct.unpack(">BHHB", data[k + 4:k + 10])
            return rows, cols, comps, precision
        k += 2 + length
    return None


def _j2k_size(data: bytes) -> tuple[int, int, int, int] | None:
    """``(rows, cols, components, precision)`` from a JPEG 2000 SIZ marker segment."""
    start = data.find(b"\xff\x4f\xff\x51")
    if start < 0 or len(data) < start + 43:
        return None
    x, y, x0, y0 = struct.unpack(">IIII", data[start + 8:start + 24])
    comps = struct.unpack(">H", data[start + 40:start + 42])[0]
    precision = (data[start + 42] & 0x7F) + 1
    return y - y0, x - x0, comps, precision


def check_codestream(element: Any, path: Path, transfer_syntax_name: str, rows: int,
                     cols: int, samples: int, allocated: int) -> None:
    """Refuse a JPEG-family frame whose codestream size disagrees with the DICOM header."""
    if not transfer_syntax_name.startswith(("JPEG", "High-Throughput JPEG")):
        return
    data = _first_fragment(element, path)
    if not data:
        return
    found = _j2k_size(data) if "2000" in transfer_syntax_name else (
        _jpeg_size(data) if data[:2] == b"\xff\xd8" else None)
    if found is None:
        return
    c_rows, c_cols, c_comps, precision = found
    if not (0 < c_rows <= 0xFFFF and 0 < c_cols <= 0xFFFF):
        return  # not a codestream we understand (e.g. odd fragmenting): the decoder decides
    if (c_rows, c_cols) != (rows, cols) or c_comps != samples or precision > allocated:
        raise UnreadableImageError(
            f"{path.name} cannot be shown: its compressed image is {c_rows} × {c_cols} with "
            f"{c_comps} component(s) of {precision} bits, but its header says {rows} × {cols} "
            f"with {samples} of {allocated} bits; the header is damaged, so leave the file "
            "out or re-export it from its source.")
