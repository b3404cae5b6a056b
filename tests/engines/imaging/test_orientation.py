"""Radiological display orientation of volume slices (display flips only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from slicereview.engines.imaging.orientation import display_flips
from slicereview.engines.imaging.volume import load, slice_geometry


def _ras_volume(path: Path) -> Path:
    """A NIfTI volume in RAS orientation, as most NIfTI files are (LPS direction diag(-1,-1,1))."""
    import SimpleITK as sitk

    img = sitk.GetImageFromArray(np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6))
    img.SetDirection((-1, 0, 0, 0, -1, 0, 0, 0, 1))
    sitk.WriteImage(img, str(path))
    return path


def test_axial_coronal_sagittal_of_a_ras_volume(tmp_path: Path) -> None:
    path = _ras_volume(tmp_path / "ras.nii.gz")
    geometry = {"size": [6, 5, 4], "spacing": [1, 1, 1], "origin": [0, 0, 0],
                "direction": [-1, 0, 0, 0, -1, 0, 0, 0, 1]}
    # axial: rows run anterior-ward (flip so anterior is up), columns to the right (flip)
    assert load(path, 0, 1).flips == (True, True)
    # coronal (numpy axis 1): rows run superior-ward (flip so superior is up)
    g = slice_geometry(geometry, 1, 0)
    assert display_flips(g["row_direction"], g["col_direction"]) == (True, True)
    assert load(path, 1, 0).flips == (True, True)
    # sagittal (numpy axis 2): increasing column runs anterior-ward (-y); radiological sagittal
    # has anterior on the left, so columns flip too.
    g = slice_geometry(geometry, 2, 0)
    assert display_flips(g["row_direction"], g["col_direction"]) == (True, True)


def test_lps_axial_needs_no_flip_and_2d_images_never_flip() -> None:
    assert display_flips([0, 1, 0], [1, 0, 0]) == (False, False)
    assert display_flips(None, None) == (False, False)
    # an oblique slice: the dominant axis decides
    assert display_flips([0.1, 0.99, 0], [0.99, -0.1, 0]) == (False, False)
