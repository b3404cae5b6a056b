"""Volumes and geometry-carrying 2-D images read with SimpleITK (NIfTI, NRRD, MHA/MHD).

A 3-D file becomes one image per selected slice along a numpy axis of SimpleITK's ``(z, y, x)``
array. Each slice keeps its geometry in its ``info``: the volume's size/spacing/origin/direction
(so an exporter can ``CopyInformation``) and the slice's own origin, row/column directions and
``(row, col)`` spacing. Slices are shown as stored in the array (row 0 at the top), not
re-oriented.

Volumes are read once and cached (least recently used dropped first, at most
:data:`CACHE_BYTES` in total) so that scrolling through slices does not re-read the file.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
from cachetools import LRUCache

from slicereview.engines.imaging.display import (
    DisplayImage,
    complex_refusal,
    real_valued,
    to_rgb8,
)
from slicereview.engines.imaging.errors import UnreadableImageError, decoder_edge
from slicereview.engines.imaging.file_checks import (
    check_data_files,
    check_nifti_length,
    check_volume_size,
)
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.engines.imaging.orientation import display_flips
from slicereview.model import NewImage

#: The total size of the volumes the slice cache keeps (least recently used go first).
CACHE_BYTES = 1 << 30

_Entry = tuple[np.ndarray, dict[str, Any]]
_cache: LRUCache[tuple[str, int, int], _Entry] = LRUCache(
    CACHE_BYTES, getsizeof=lambda entry: int(entry[0].nbytes))
_cache_lock = threading.Lock()


def _sitk():
    import SimpleITK as sitk

    return sitk


def read_geometry(path: str | Path) -> dict[str, Any]:
    """Header-only geometry: ``dimension``, ``size`` (x, y, z), ``spacing``, ``origin``,
    ``direction`` (row-major 3x3 or 2x2), ``components``, ``pixel_type``. No pixels are read.
    """
    sitk = _sitk()
    path = Path(path)
    check_data_files(path)
    reader = sitk.ImageFileReader()
    reader.SetFileName(str(path))
    try:
        with decoder_edge(path.name):
            reader.ReadImageInformation()
    except UnreadableImageError:
        raise _unreadable(path) from None
    return {
        "dimension": reader.GetDimension(),
        "size": list(reader.GetSize()),
        "spacing": list(reader.GetSpacing()),
        "origin": list(reader.GetOrigin()),
        "direction": list(reader.GetDirection()),
        "components": reader.GetNumberOfComponents(),
        "pixel_type": sitk.GetPixelIDValueAsString(reader.GetPixelID()),
    }


def _unreadable(path: Path) -> UnreadableImageError:
    # SimpleITK's own text (C++ source locations, "sitk::ERROR") is not for users.
    return UnreadableImageError(
        f"SimpleITK cannot read {path.name}: it is damaged, truncated or not the format its "
        "name says; copy it again from its source or leave it out."
    )


def _effective(geometry: dict[str, Any]) -> tuple[list[int], int]:
    """Sizes with trailing singleton dimensions (beyond 3) dropped, and the dimension left."""
    size = list(geometry["size"])
    while len(size) > 3 and size[-1] == 1:
        size.pop()
    if len(size) > 3:
        raise UnreadableImageError(
            f"{len(size)}-D images (e.g. time series) are not supported (size {size}); "
            "split the series into 3-D files to import it"
        )
    return size, len(size)


def slice_geometry(geometry: dict[str, Any], axis: int, index: int) -> dict[str, Any]:
    """The physical geometry of slice ``index`` along numpy ``axis`` of a 3-D volume.

    Returns ``origin`` (physical position in mm of the slice's pixel ``(row 0, col 0)``),
    ``row_direction``/``col_direction`` (unit vectors of increasing row / column index),
    ``spacing`` ``[row, col]`` mm and ``normal_spacing`` (between slices).

    Example
    -------
    >>> g = {"size": [4, 3, 2], "spacing": [0.5, 0.7, 2.0], "origin": [10.0, 20.0, 30.0],
    ...      "direction": [1, 0, 0, 0, 1, 0, 0, 0, 1], "dimension": 3}
    >>> s = slice_geometry(g, 0, 1)
    >>> s["origin"], s["spacing"], s["row_direction"]
    ([10.0, 20.0, 32.0], [0.7, 0.5], [0.0, 1.0, 0.0])
    """
    d = np.asarray(geometry["direction"], dtype=float).reshape(3, 3)
    spacing = np.asarray(geometry["spacing"][:3], dtype=float)
    origin = np.asarray(geometry["origin"][:3], dtype=float)
    itk_dim = 2 - axis  # numpy axis 0 (z) is ITK dimension 2
    row_dim, col_dim = [2 - a for a in range(3) if a != axis]
    index_vec = np.zeros(3)
    index_vec[itk_dim] = index
    position = origin + d @ (index_vec * spacing)
    return {
        "origin": [round(float(v), 6) for v in position],
        "row_direction": [float(v) for v in d[:, row_dim]],
        "col_direction": [float(v) for v in d[:, col_dim]],
        "spacing": [float(spacing[row_dim]), float(spacing[col_dim])],
        "normal_spacing": float(spacing[itk_dim]),
    }


def import_entries(path: str | Path, axis: int, indices_for: Any,
                   limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[NewImage]]:
    """``(source info, images)`` of a SimpleITK file, reading only its header.

    ``indices_for(n)`` gives the slice indices to import from ``n`` slices along ``axis`` (a
    :meth:`SliceSelection.indices`). A 2-D file gives one image with ``axis = -1``.
    """
    path = Path(path)
    geometry = read_geometry(path)
    size, dim = _effective(geometry)
    check_volume_size(path, geometry, limits)
    check_nifti_length(path, limits)
    components = geometry["components"]
    if "complex" in str(geometry["pixel_type"]):
        raise complex_refusal(path.name)
    info: dict[str, Any] = {"kind": "volume" if dim == 3 else "2d", **geometry}
    if dim == 2 or (dim == 3 and size[2] == 1 and axis == 0):
        if components not in (1, 3, 4):
            raise UnreadableImageError(
                f"{path.name} has {components} values per pixel; only grey (1), RGB (3) and "
                "RGBA (4) images can be shown, so leave it out")
        spacing = [float(geometry["spacing"][1]), float(geometry["spacing"][0])]
        image_info = {**info, "pixel_spacing": spacing, "spacing_source": "SimpleITK"}
        return info, [NewImage(size[1], size[0], frame=0, axis=-1, slice_index=0,
                               info=image_info)]
    if dim != 3:
        raise UnreadableImageError(f"{path.name} is {dim}-D; only 2-D and 3-D images are "
                                   "supported, so leave it out")
    if components != 1:
        raise UnreadableImageError(
            f"{path.name} is a volume with {components} values per voxel, which cannot be "
            "sliced for display; import a single-component volume"
        )
    shape = (size[2], size[1], size[0])  # numpy (z, y, x)
    indices = indices_for(shape[axis])
    if not indices:
        raise UnreadableImageError(
            f"the slice selection picks no slice of {shape[axis]} along axis {axis}; choose "
            "another selection"
        )
    rows, cols = [n for a, n in enumerate(shape) if a != axis]
    volume = {k: geometry[k] for k in ("size", "spacing", "origin", "direction")}
    images = []
    for index in indices:
        g = slice_geometry(geometry, axis, index)
        images.append(NewImage(rows, cols, frame=0, axis=axis, slice_index=index, info={
            "kind": "volume slice", "volume": volume, "slices_along_axis": shape[axis],
            "pixel_spacing": g["spacing"], "spacing_source": "SimpleITK", **g,
        }))
    return info, images


# -- pixels ----------------------------------------------------------------------------------
def _read_array(path: Path, limits: Limits) -> tuple[np.ndarray, dict[str, Any]]:
    sitk = _sitk()
    geometry = read_geometry(path)
    check_volume_size(path, geometry, limits)
    check_nifti_length(path, limits)
    arr = None
    if path.name.lower().endswith((".nii", ".nii.gz")):
        from slicereview.engines.imaging.nifti_values import read_float_voxels

        # (SimpleITK's NIfTI reader reads NaN and infinity as 0: display.finite must see them)
        with decoder_edge(path.name):
            arr = read_float_voxels(path)
    if arr is None:
        try:
            with decoder_edge(path.name):
                image = sitk.ReadImage(str(path))
                arr = sitk.GetArrayFromImage(image)
        except UnreadableImageError:
            raise _unreadable(path) from None
        geometry = {**geometry, "spacing": list(image.GetSpacing()),
                    "origin": list(image.GetOrigin()),
                    "direction": list(image.GetDirection()), "size": list(image.GetSize()),
                    "components": image.GetNumberOfComponentsPerPixel()}
    real_valued(arr, path.name)
    # Drop trailing singleton ITK dimensions (leading numpy ones), e.g. 4-D with t = 1.
    while arr.ndim > (3 + (geometry["components"] > 1)) and arr.shape[0] == 1:
        arr = arr[0]
    arr.setflags(write=False)
    return arr, {k: geometry[k] for k in ("spacing", "origin", "direction", "size",
                                          "components")}


def volume_array(path: str | Path, limits: Limits = DEFAULT_LIMITS
                 ) -> tuple[np.ndarray, dict[str, Any]]:
    """The whole file as a numpy array (``(z, y, x)`` or ``(y, x)[, c]``) and its geometry
    (``size``, ``spacing``, ``origin``, ``direction``, ``components``), through the cache.

    The cache key includes the file's modification time and size, so an edited file is
    re-read.
    """
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            return hit
    entry = _read_array(path, limits)
    if entry[0].nbytes <= CACHE_BYTES:  # a larger volume is used once, not kept
        with _cache_lock:
            _cache[key] = entry
    return entry


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _display_dtype(arr: np.ndarray) -> np.ndarray:
    if arr.dtype in (np.uint8, np.uint16, np.int32, np.float32):
        return arr
    if arr.dtype.kind in "iu" and arr.itemsize <= 4 and arr.dtype != np.uint32:
        return arr.astype(np.int32)
    if arr.dtype.kind in "iu" and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo >= -(2**31) and hi < 2**31:
            return arr.astype(np.int32)
    return arr.astype(np.float32)




def load(path: str | Path, axis: int, slice_index: int,
         limits: Limits = DEFAULT_LIMITS) -> DisplayImage:
    """The :class:`DisplayImage` of one slice (or of a 2-D file when ``axis == -1``).

    Example
    -------
    >>> import tempfile, pathlib, numpy as np, SimpleITK as sitk
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "v.mha"
    >>> img = sitk.GetImageFromArray(np.arange(24, dtype=np.int16).reshape(2, 3, 4))
    >>> img.SetSpacing((0.5, 0.7, 2.0))
    >>> sitk.WriteImage(img, str(f))
    >>> d = load(f, 0, 1)
    >>> d.data.tolist(), d.spacing
    ([[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]], (0.7, 0.5))
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"image file not found: {path}")
    arr, geometry = volume_array(path, limits)
    spacing_xyz = [float(v) for v in geometry["spacing"]]
    if axis < 0:
        # A 2-D image stored as one slice of a volume: (1, y, x) grey or (1, y, x, c) colour.
        colour = geometry["components"] > 1
        plane = arr[0] if arr.ndim == 3 + colour and arr.shape[0] == 1 else arr
        if plane.ndim != 2 + colour:
            raise UnreadableImageError(
                f"{path.name} is not a 2-D image (shape {arr.shape}); import it again")
        spacing = (spacing_xyz[1], spacing_xyz[0])
        flips = (False, False)
    else:
        if arr.ndim != 3 or geometry["components"] != 1:
            raise UnreadableImageError(
                f"{path.name} is not a 3-D volume (shape {arr.shape}); relink the project to "
                "the right file")
        if not 0 <= slice_index < arr.shape[axis]:
            raise UnreadableImageError(
                f"slice {slice_index} does not exist ({arr.shape[axis]} along axis {axis}) "
                f"in {path.name}; relink the project to the right file"
            )
        plane = np.take(arr, slice_index, axis=axis)
        here = slice_geometry(geometry, axis, slice_index)
        spacing = tuple(here["spacing"])
        flips = display_flips(here["row_direction"], here["col_direction"])
    data = to_rgb8(plane) if plane.ndim == 3 else _display_dtype(np.ascontiguousarray(plane))
    where = f"slice {slice_index} (axis {axis})" if axis >= 0 else "2-D"
    description = f"{data.shape[1]}×{data.shape[0]} {data.dtype.name} {where}"
    return DisplayImage(
        data=data, presets=[], invert=False,
        spacing=(float(spacing[0]), float(spacing[1])), spacing_source="SimpleITK",
        value_unit="", description=description, flips=flips,
    )
