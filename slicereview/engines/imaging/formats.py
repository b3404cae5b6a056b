"""Recognise an image file's format from its name and first bytes.

Format names (stored in the project's ``sources.format``): ``"dicom"``, ``"nifti"``,
``"nrrd"``, ``"metaimage"`` (MHA/MHD), ``"png"``, ``"tiff"``, ``"jpeg"``.

Example
-------
>>> from pydicom.data import get_testdata_file
>>> detect_format(get_testdata_file("CT_small.dcm"))
'dicom'
>>> detect_format("scan.nii.gz")  # by name: the file need not exist
'nifti'
"""

from __future__ import annotations

import struct
from pathlib import Path

from slicereview.engines.imaging.hashing import open_regular

DICOM = "dicom"
NIFTI = "nifti"
NRRD = "nrrd"
METAIMAGE = "metaimage"
PNG = "png"
TIFF = "tiff"
JPEG = "jpeg"

#: Formats read with SimpleITK (volumes or 2-D images with physical geometry).
SITK_FORMATS = frozenset({NIFTI, NRRD, METAIMAGE})
#: Formats read with scikit-image.
RASTER_FORMATS = frozenset({PNG, TIFF, JPEG})

_SUFFIXES = {
    ".nii": NIFTI, ".nii.gz": NIFTI, ".nrrd": NRRD, ".nhdr": NRRD, ".mha": METAIMAGE,
    ".mhd": METAIMAGE, ".png": PNG, ".tif": TIFF, ".tiff": TIFF, ".jpg": JPEG, ".jpeg": JPEG,
}
#: Pixel-data files that belong to a header file (``.mhd`` -> ``.raw``, ``.nhdr`` -> ``.raw.gz``).
COMPANION_SUFFIXES = (".raw", ".zraw", ".raw.gz", ".img", ".img.gz")
#: DICOM data sets without a preamble start with a group 0x0002 or 0x0008 element.
_FIRST_GROUPS = (0x0002, 0x0008)


def _suffix(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        return "".join(path.suffixes[-2:]).lower()
    return path.suffix.lower()


def detect_format(path: str | Path) -> str | None:
    """The format of the file at ``path``, or None when it is not an image we read.

    Names decide for the SimpleITK and raster formats (``.nii``/``.nii.gz``, ``.nrrd``/``.nhdr``,
    ``.mha``/``.mhd``, ``.png``, ``.tif``/``.tiff``, ``.jpg``/``.jpeg``, any case). Any other file
    is DICOM when it has the ``DICM`` preamble marker at byte 128, or, without a preamble, when
    it starts with a group 0x0002/0x0008 element (little endian) and pydicom can parse it. A
    missing or unreadable file gives None for the DICOM test (the name rule still applies).
    """
    path = Path(path)
    fmt = _SUFFIXES.get(_suffix(path))
    if fmt is not None:
        return fmt
    try:
        with open_regular(path) as fh:  # (a named pipe would block a plain open)
            head = fh.read(132)
    except OSError:
        return None
    if len(head) >= 132 and head[128:132] == b"DICM":
        return DICOM
    if len(head) >= 8 and struct.unpack("<H", head[:2])[0] in _FIRST_GROUPS:
        return DICOM if _pydicom_parses(path) else None
    return None


def _pydicom_parses(path: Path) -> bool:
    """True when pydicom reads ``path`` (header only, forced) as an image data set."""
    from pydicom import dcmread
    from pydicom.errors import InvalidDicomError

    try:
        ds = dcmread(path, stop_before_pixels=True, force=True)
        return "Rows" in ds or "SOPClassUID" in ds
    except (InvalidDicomError, OSError, ValueError, EOFError, struct.error):
        return False
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # RecursionError on absurd nesting, parser bugs
        return False


def is_companion(path: str | Path) -> bool:
    """True for the pixel-data file of a header file next to it (``a.raw`` next to ``a.mhd``).

    The importer skips these silently: SimpleITK reads them through their header.
    """
    path = Path(path)
    name = path.name.lower()
    for suffix in COMPANION_SUFFIXES:
        if name.endswith(suffix):
            stem = path.name[: -len(suffix)]
            return any(
                (path.parent / f"{stem}{header}").exists()
                for header in (".mhd", ".MHD", ".nhdr", ".NHDR", ".hdr", ".HDR")
            )
    return False
