"""Header checks for the SimpleITK formats (NIfTI, NRRD, MetaImage) and raster files, run
before any pixel is decoded.

* :func:`check_data_files`: a detached header (``.nhdr``, ``.mhd``, also ``.nrrd``/``.mha``
  with a data-file field) may name its pixel-data file(s) anywhere; only files in the header's
  folder or below it are accepted, so a header cannot make slicereview read ``/etc/passwd``.
* :func:`check_volume_size`: the sizes a header claims against :class:`~.limits.Limits`
  (a NIfTI header claiming 4.5 GB over 64 bytes of data is refused before ITK allocates it).
* :func:`raster_size`: width, height, channels and bytes per sample of a PNG/JPEG/TIFF from its
  header (Pillow / tifffile), for the same checks before scikit-image decodes it.
"""

from __future__ import annotations

import gzip
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from slicereview.engines.imaging.errors import UnreadableImageError, decoder_edge
from slicereview.engines.imaging.limits import Limits

_HEADER_BYTES = 1 << 16


def _header_text(path: Path) -> list[str]:
    with path.open("rb") as fh:
        head = fh.read(_HEADER_BYTES)
    return head.decode("latin-1").splitlines()


def _nrrd_data_files(lines: list[str]) -> list[str]:
    for k, line in enumerate(lines):
        if not line.strip():
            return []  # the header ends at the first blank line
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("data file", "datafile"):
            value = value.strip()
            if value.upper().startswith("LIST"):
                return [ln.strip() for ln in lines[k + 1:] if ln.strip()]
            return [value.split()[0] if "%" in value else value]
    return []


def _metaimage_data_files(lines: list[str]) -> list[str]:
    for k, line in enumerate(lines):
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "elementdatafile":
            value = value.strip()
            if value.upper() == "LOCAL":
                return []
            if value.upper().startswith("LIST"):
                return [ln.strip() for ln in lines[k + 1:] if ln.strip()]
            return [value.split()[0] if "%" in value else value]
    return []


def check_data_files(path: str | Path) -> None:
    """Refuse a NRRD/MetaImage header whose pixel-data files lie outside its folder.

    Example
    -------
    >>> import tempfile, pathlib
    >>> h = pathlib.Path(tempfile.mkdtemp()) / "evil.mhd"
    >>> _ = h.write_text("NDims = 2\\nDimSize = 4 4\\nElementType = MET_UCHAR\\n"
    ...                  "ElementDataFile = /etc/passwd\\n")
    >>> check_data_files(h)
    Traceback (most recent call last):
    ...
    slicereview.engines.imaging.errors.UnreadableImageError: evil.mhd names a pixel-data file outside its own folder (/etc/passwd), which slicereview does not read; put the data file beside the header.
    """  # noqa: E501
    path = Path(path)
    suffix = path.name.lower()
    if suffix.endswith((".nhdr", ".nrrd")):
        names = _nrrd_data_files(_header_text(path))
    elif suffix.endswith((".mhd", ".mha")):
        names = _metaimage_data_files(_header_text(path))
    else:
        return
    folder = path.parent.resolve()
    for name in names:
        target = (folder / re.sub(r"%[0-9]*d", "0", name)).resolve()
        if not target.is_relative_to(folder):
            raise UnreadableImageError(
                f"{path.name} names a pixel-data file outside its own folder ({name}), which "
                "slicereview does not read; put the data file beside the header."
            )


def check_volume_size(path: Path, geometry: dict[str, Any], limits: Limits) -> None:
    """Refuse a header whose volume or slices exceed ``limits`` (no pixels are read)."""
    size = [int(v) for v in geometry["size"]]
    if any(v <= 0 for v in size):
        raise UnreadableImageError(
            f"{path.name} claims an empty image (size {size}); the header is damaged, so leave "
            "the file out.")
    pixel = str(geometry.get("pixel_type", "")).lower()  # e.g. "vector of 16-bit signed integer"
    bits = re.search(r"(\d+)-bit", pixel)
    per_component = (int(bits.group(1)) // 8 if bits else 8) * (2 if "complex" in pixel else 1)
    components = max(1, int(geometry.get("components", 1)))
    voxels = 1
    for v in size:
        voxels *= v
    rows, cols = (size[1], size[0]) if len(size) >= 2 else (1, size[0])
    limits.check_frame(rows, cols, per_component * components)
    limits.check_volume(voxels * per_component * components)


def raster_size(path: Path) -> tuple[int, int, int, int]:
    """``(rows, cols, channels, bytes per sample)`` of a PNG/JPEG/TIFF from its header.

    TIFFs are read with tifffile (first page: what scikit-image decodes), the others with
    Pillow, which decodes nothing on open.
    """
    with decoder_edge(path.name, "read the header of"):
        if path.suffix.lower() in (".tif", ".tiff"):
            import tifffile

            with tifffile.TiffFile(path) as tif:
                page = tif.pages.first
                shape = tuple(int(v) for v in page.shape)
                itemsize = int(page.dtype.itemsize) if page.dtype is not None else 8
                if len(tif.pages) > 1:
                    shape = (len(tif.pages), *shape)
        else:
            from PIL import Image

            with Image.open(path) as img:
                cols, rows = img.size
                bands = len(img.getbands())
                itemsize = 2 if img.mode.startswith("I;16") else 4 if img.mode in (
                    "I", "F") else 1
                shape = (rows, cols, bands) if bands > 1 else (rows, cols)
    if len(shape) < 2:
        raise UnreadableImageError(f"{path.name} has no 2-D image in it; leave it out.")
    if len(shape) >= 3 and shape[-1] <= 4:  # (..., rows, cols, channels)
        rows, cols, channels = shape[-3], shape[-2], shape[-1]
    else:
        rows, cols, channels = shape[-2], shape[-1], 1
    return int(rows), int(cols), int(channels), itemsize


def _nifti_claim(head: bytes) -> tuple[int, int] | None:
    """``(data offset, data bytes)`` a NIfTI-1/-2 header claims, or None if it is not one."""
    for order in "<>":
        size = struct.unpack(order + "i", head[:4])[0] if len(head) >= 4 else 0
        if size == 348 and len(head) >= 348:
            ndim, *dims = struct.unpack(order + "8h", head[40:56])
            bitpix = struct.unpack(order + "h", head[72:74])[0]
            offset = int(struct.unpack(order + "f", head[108:112])[0])
        elif size == 540 and len(head) >= 540:
            bitpix = struct.unpack(order + "h", head[14:16])[0]
            ndim, *dims = struct.unpack(order + "8q", head[16:80])
            offset = struct.unpack(order + "q", head[168:176])[0]
        else:
            continue
        voxels = 1
        for d in dims[:max(0, min(int(ndim), 7))]:
            voxels *= max(1, int(d))
        return max(offset, size), voxels * max(1, int(bitpix)) // 8
    return None


def check_nifti_length(path: str | Path, limits: Limits) -> None:
    """Refuse a NIfTI file shorter than its header says (ITK would silently zero-fill it).

    ``.nii.gz`` files are decompressed as a stream, never beyond the claimed size, which the
    caller has already held against ``limits`` (a gzip bomb is not inflated past it).
    """
    path = Path(path)
    gz = path.name.lower().endswith(".gz")
    opener = gzip.open if gz else open
    try:
        with opener(path, "rb") as fh:
            claim = _nifti_claim(fh.read(540))
            if claim is None:
                return
            expected = claim[0] + claim[1]
            limits.check_decoded(claim[1])
            if gz:
                fh.seek(0)
                have = 0
                while have < expected and (chunk := fh.read(min(1 << 20, expected - have))):
                    have += len(chunk)
            else:
                have = path.stat().st_size
    except (OSError, EOFError, zlib.error):
        have, expected = -1, 0
    if have < expected or have < 0:
        raise UnreadableImageError(
            f"{path.name} is truncated or its compressed data is damaged: it holds less "
            "pixel data than its header describes; copy it again from its source.")
