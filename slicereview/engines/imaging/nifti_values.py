"""The voxels of a float NIfTI file as the file holds them, NaN and infinity included.

The NIfTI library under SimpleITK's NIfTI reader replaces every NaN and infinity of float
voxel data by 0 while it reads. A map whose every voxel is +inf or NaN therefore arrived as
flat zeros, and a map with a NaN background as a zero background, and the rule for pixels
that cannot be right (:func:`~.display.finite`, docs/reliability.md) never saw them, though
it refused the very same data as a MetaImage. :func:`read_float_voxels` reads such a file's
voxel data itself, in place of SimpleITK's pixel read (so the file is decompressed once, not
twice), and scales it as SimpleITK does (``scl_slope``, ``scl_inter``); SimpleITK still reads
the geometry.

It takes the files SimpleITK would zero and nothing else: NIfTI-1 (SimpleITK reads no
NIfTI-2) of float32 or float64 voxels, one value per voxel (no vector or time dimension
beyond size 1). For any other file it returns ``None`` and SimpleITK reads the pixels. The
array is SimpleITK's ``GetArrayFromImage`` layout (the dimensions reversed, C order: NIfTI
stores x fastest), the same dtype; the test holds the two equal wherever the values are
finite.

Example
-------
>>> import tempfile, pathlib, nibabel as nib, SimpleITK as sitk
>>> f = pathlib.Path(tempfile.mkdtemp()) / "map.nii.gz"
>>> nib.save(nib.Nifti1Image(np.array([[[np.nan], [2.0]]], np.float32), np.eye(4)), f)
>>> sitk.GetArrayFromImage(sitk.ReadImage(str(f))).ravel().tolist()
[0.0, 2.0]
>>> read_float_voxels(f).ravel().tolist()
[nan, 2.0]
"""

from __future__ import annotations

import gzip
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: NIfTI datatype codes of the float types the library zeroes: float32, float64.
_FLOAT_TYPES = {16: "f4", 64: "f8"}
#: The NIfTI-1 header's size, and where a single file's voxels start at the earliest.
_HEADER, _FIRST_VOXEL = 348, 352


@dataclass(frozen=True)
class _Layout:
    dtype: np.dtype
    offset: int
    shape: tuple[int, ...]  # numpy order: the NIfTI dimensions reversed (SimpleITK drops
    # dimensions of size 1 beyond the third)
    slope: float
    inter: float


def _layout(head: bytes) -> _Layout | None:
    """Where a plain float NIfTI-1 header puts its voxels, or None for any other file."""
    for order in "<>":
        if len(head) < _HEADER or struct.unpack(order + "i", head[:4])[0] != _HEADER:
            continue
        ndim, *dims = struct.unpack(order + "8h", head[40:56])
        datatype = struct.unpack(order + "h", head[70:72])[0]
        offset = float(struct.unpack(order + "f", head[108:112])[0])
        slope, inter = struct.unpack(order + "2f", head[112:120])
        if (datatype not in _FLOAT_TYPES or not 1 <= ndim <= 7 or not math.isfinite(offset)
                or offset < _FIRST_VOXEL or any(d < 1 for d in dims[:ndim])
                or any(d != 1 for d in dims[3:ndim])):
            return None  # (a vector, a time series or an odd header: SimpleITK's way)
        # As SimpleITK scales: a slope that is not a finite number other than 0 counts as 1,
        # an intercept that is not finite as 0 (an intercept with a slope of 0 or NaN is
        # added, though the NIfTI standard would ignore it: what SimpleITK showed stays).
        return _Layout(np.dtype(order + _FLOAT_TYPES[datatype]), int(offset),
                       tuple(int(d) for d in reversed(dims[:min(ndim, 3)])),
                       slope if math.isfinite(slope) and slope != 0 else 1.0,
                       inter if math.isfinite(inter) else 0.0)
    return None


def read_float_voxels(path: str | Path) -> np.ndarray | None:
    """The voxels of the float NIfTI-1 file at ``path`` (see the module text), ``None`` for
    a file SimpleITK should read. The caller has checked the header against the limits and
    that the file holds the data it claims (:mod:`.file_checks`)."""
    path = Path(path)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        layout = _layout(fh.read(_HEADER))
        if layout is None:
            return None
        count = math.prod(layout.shape)
        fh.seek(layout.offset)
        buffer = bytearray(count * layout.dtype.itemsize)  # (read into: no second copy)
        view, have = memoryview(buffer), 0
        while have < len(buffer) and (got := fh.readinto(view[have:])):
            have += got
    if have < len(buffer):
        return None  # (shorter than its header: SimpleITK's read refuses it)
    voxels = np.frombuffer(buffer, layout.dtype).reshape(layout.shape)
    native = voxels.dtype.newbyteorder("=")
    if layout.slope != 1.0 or layout.inter != 0.0:
        with np.errstate(all="ignore"):  # (inf and NaN scale to inf and NaN)
            return (voxels.astype(np.float64) * layout.slope + layout.inter).astype(native)
    return voxels if voxels.dtype == native else voxels.astype(native)
