"""De-identified copies of MetaImage (``.mha``) and NRRD (``.nrrd``) files: their text header
is written again with only the keys geometry and decoding need; the data after it is the
original's, byte for byte. A header whose data lives in another file (``.mhd``, ``.nhdr``)
cannot travel alone and is refused.

Example
-------
>>> raw = (b"ObjectType = Image\\nNDims = 2\\nDimSize = 1 1\\nPatientName = Smith\\n"
...        b"ElementType = MET_UCHAR\\nElementDataFile = LOCAL\\n\\x07")
>>> copy = text_header(raw, "metaimage")
>>> b"Smith" in copy.bytes_from(raw), copy.bytes_from(raw)[-1:]
(False, b'\\x07')
"""

from __future__ import annotations

from slicereview.engines.deid.copy import NotShareableError, SharedCopy

_META_KEYS = {"objecttype", "ndims", "binarydata", "binarydatabyteordermsb", "byteordermsb",
              "compresseddata", "compresseddatasize", "transformmatrix", "rotation",
              "orientation", "offset", "position", "origin", "centerofrotation",
              "anatomicalorientation", "elementspacing", "dimsize", "elementsize",
              "elementnumberofchannels", "elementtype", "headersize", "elementmin",
              "elementmax", "elementdatafile"}
_NRRD_KEYS = {"type", "dimension", "space", "space dimension", "sizes", "space directions",
              "kinds", "endian", "encoding", "space origin", "spacings", "thicknesses",
              "axis mins", "axis maxs", "centers", "centerings", "min", "max", "old min",
              "old max", "byte skip", "line skip", "block size", "blocksize",
              "measurement frame", "space units", "units", "labels", "sample units"}


def text_header(data: bytes, fmt: str, name: str = "") -> SharedCopy:
    """The de-identified copy of a MetaImage or NRRD file (``fmt`` ``metaimage``/``nrrd``)."""
    if fmt == "nrrd":
        end = data.find(b"\n\n")
        if not data.startswith(b"NRRD") or end < 0:
            raise NotShareableError("it is not an NRRD file with its data attached")
        lines = data[:end].split(b"\n")
        kept = [lines[0]] + [ln for ln in lines[1:] if _nrrd_key(ln) in _NRRD_KEYS]
        if any(_nrrd_key(ln) in ("data file", "datafile") for ln in lines):
            raise NotShareableError("its data lives in another file (a detached header)")
        header, start = b"\n".join(kept) + b"\n\n", end + 2
    else:
        marker = data.find(b"ElementDataFile")
        end = data.find(b"\n", marker)
        if marker < 0 or end < 0:
            raise NotShareableError("it is not a MetaImage file")
        lines = data[:end].split(b"\n")
        if not lines[-1].split(b"=", 1)[-1].strip().upper().startswith(b"LOCAL"):
            raise NotShareableError("its data lives in another file (an .mhd header)")
        kept = [ln for ln in lines if ln.split(b"=", 1)[0].strip().decode(
            "latin-1").lower() in _META_KEYS]
        header, start = b"\n".join(kept) + b"\n", end + 1
    suffix = ".nrrd" if fmt == "nrrd" else ".mha"
    return SharedCopy(header, (start, len(data)), {}, (), suffix)


def _nrrd_key(line: bytes) -> str:
    if line.startswith(b"#") or b":" not in line:
        return "#"
    key, rest = line.split(b":", 1)
    return "#" if rest.startswith(b"=") else key.strip().decode("latin-1").lower()
