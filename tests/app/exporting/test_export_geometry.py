"""NIfTI geometry of 2-D images without a SimpleITK header: row/column spacing order."""

from __future__ import annotations

import numpy as np

from slicereview.app.exporting.masks import _image_2d, safe_name
from slicereview.model import Image


def test_pixel_spacing_row_col_becomes_sitk_x_y(tmp_path):
    import SimpleITK as sitk

    image = Image(id=1, source_id=1, case_id="C1", path="x.dcm", format="dicom", rows=3, cols=4,
                  info={"pixel_spacing": [0.3, 0.6]})
    labels = np.arange(12, dtype=np.uint8).reshape(3, 4) % 3
    out = _image_2d(image, labels, sitk)
    sitk.WriteImage(out, str(tmp_path / "m.nii.gz"))
    back = sitk.ReadImage(str(tmp_path / "m.nii.gz"))
    assert back.GetSize() == (4, 3)
    np.testing.assert_allclose(back.GetSpacing(), (0.6, 0.3), rtol=1e-6)
    np.testing.assert_array_equal(sitk.GetArrayFromImage(back), labels)


def test_single_slice_3d_source_keeps_full_geometry():
    import SimpleITK as sitk

    info = {"size": [4, 3, 1], "spacing": [0.5, 0.6, 3.0], "origin": [1.0, 2.0, 3.0],
            "direction": [0, 1, 0, 1, 0, 0, 0, 0, -1], "pixel_spacing": [0.6, 0.5]}
    image = Image(id=1, source_id=1, case_id="C1", path="x.nii", format="nifti", rows=3, cols=4,
                  info=info)
    out = _image_2d(image, np.ones((3, 4), np.uint8), sitk)
    assert out.GetSize() == (4, 3, 1)
    assert out.GetOrigin() == (1.0, 2.0, 3.0)
    assert out.GetDirection() == (0, 1, 0, 1, 0, 0, 0, 0, -1)


def test_safe_name():
    assert safe_name("a b/c") == "a_b_c"
    assert safe_name("///") == "unnamed"
