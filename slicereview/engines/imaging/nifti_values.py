"""The NaNs and infinities of a float NIfTI file, which SimpleITK's reader turns into 0.

The NIfTI library under SimpleITK's NIfTI reader replaces every NaN and infinity of float
voxel data by 0 while it reads. A map whose every voxel is +inf or NaN therefore arrived as
flat zeros, and a map with a NaN background as a zero background, and the rule for pixels
that cannot be right (:func:`~.display.finite`, docs/reliability.md) never saw them, though
it refused the very same data as a MetaImage. :func:`restore_non_finite` reads the file's
voxel data again and puts each non-finite value back where the reader put its 0, scaled as
the reader scales (``scl_slope``, ``scl_inter``), so that the rule sees what the file holds.

* only NIfTI-1 files (SimpleITK reads no NIfTI-2) of float32 or float64 data (the types the
  library zeroes), one value per voxel;
* nothing is read again when the reader's array holds no voxel of the value a zeroed one gets
  (0, or ``scl_inter`` when the file is scaled): then the file had no non-finite value;
* read in chunks of :data:`CHUNK_BYTES` (``.nii.gz`` decompressed as a stream), so memory
  stays bounded; never more than the header's voxels, which :mod:`.file_checks` already held
  against the limits.

Example
-------
>>> import tempfile, pathlib, nibabel as nib, SimpleITK as sitk
>>> f = pathlib.Path(tempfile.mkdtemp()) / "map.nii.gz"
>>> nib.save(nib.Nifti1Image(np.array([[[np.nan], [2.0]]], np.float32), np.eye(4)), f)
>>> read = sitk.GetArrayFromImage(sitk.ReadImage(str(f)))
>>> read.ravel().tolist(), restore_non_finite(f, read).ravel().tolist()
([0.0, 2.0], [nan, 2.0])
"""

from __future__ import annotations

import gzip
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Bytes of voxel data looked at at once.
CHUNK_BYTES = 8 << 20

#: NIfTI datatype codes of the float types the library zeroes: float32, float64.
_FLOAT_TYPES = {16: "f4", 64: "f8"}


@dataclass(frozen=True)
class _Layout:
    dtype: np.dtype
    offset: int
    voxels: int
    slope: float
    inter: float


def _layout(head: bytes) -> _Layout | None:
    """Where a float NIfTI-1 header puts its voxels, or None for any other file."""
    for order in "<>":
        size = struct.unpack(order + "i", head[:4])[0] if len(head) >= 4 else 0
        if size == 348 and len(head) >= 348:
            ndim, *dims = struct.unpack(order + "8h", head[40:56])
            datatype = struct.unpack(order + "h", head[70:72])[0]
            offset = float(struct.unpack(order + "f", head[108:112])[0])
            slope, inter = struct.unpack(order + "2f", head[112:120])
        else:  # (not NIfTI-1; SimpleITK reads no NIfTI-2 file)
            continue
        if datatype not in _FLOAT_TYPES or not math.isfinite(offset):
            return None
        voxels = 1
        for d in dims[:max(0, min(int(ndim), 7))]:
            voxels *= max(1, int(d))
        # The library keeps a scale only when it is a finite number other than 0.
        good = math.isfinite(slope) and slope != 0
        return _Layout(np.dtype(order + _FLOAT_TYPES[datatype]), max(int(offset), size),
                       voxels, slope if good else 1.0,
                       inter if good and math.isfinite(inter) else 0.0)
    return None


def restore_non_finite(path: str | Path, array: np.ndarray) -> np.ndarray:
    """``array`` (SimpleITK's reading of the NIfTI file at ``path``, C order, one value per
    voxel) with the file's non-finite values put back (see the module text); changed in
    place when it is writable, else a changed copy. Any other file, or an array that is not
    the file's voxels one to one, is returned as it is."""
    path = Path(path)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    if array.dtype.kind != "f":
        return array
    with opener(path, "rb") as fh:
        layout = _layout(fh.read(348))
        if layout is None or layout.voxels != array.size:
            return array
        if not _any_equal(array.reshape(-1), array.dtype.type(layout.inter)):
            return array
        if not (array.flags.writeable and array.flags.c_contiguous):
            array = np.array(array, order="C")
        flat = array.reshape(-1)  # (a view: the array is C-contiguous)
        fh.seek(layout.offset)
        step = max(1, CHUNK_BYTES // layout.dtype.itemsize)
        for start in range(0, layout.voxels, step):
            count = min(step, layout.voxels - start)
            data = fh.read(count * layout.dtype.itemsize)
            raw = np.frombuffer(data, layout.dtype, len(data) // layout.dtype.itemsize)
            bad = np.flatnonzero(~np.isfinite(raw))
            if bad.size:
                with np.errstate(all="ignore"):
                    values = raw[bad].astype(np.float64) * layout.slope + layout.inter
                flat[start + bad] = values.astype(array.dtype)
            if raw.size < count:  # (a file shorter than its header: file_checks refuses it)
                break
    return array


def _any_equal(flat: np.ndarray, value: np.floating) -> bool:
    """Whether any element of ``flat`` is ``value``, looked at a chunk at a time."""
    step = max(1, CHUNK_BYTES // flat.itemsize)
    return any(bool(np.any(flat[k:k + step] == value)) for k in range(0, flat.size, step))
