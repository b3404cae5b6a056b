"""NIfTI, PNG, TIFF, JPEG, MetaImage and NRRD copies (engines/deid/headers.py,
text_headers.py): the fields that can carry a name are cleared, the pixels read the same."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

from slicereview.engines.deid import NotShareableError, deidentify
from tests import privacy_sentinels as sentinels


def test_nifti_fields_and_extensions_are_cleared(tmp_path):
    import nibabel as nib

    path = sentinels.nifti(tmp_path / "a.nii.gz")
    raw = path.read_bytes()
    assert sentinels.hits(raw) >= 5
    copy = deidentify(raw, "nifti", "s", name=path.name)
    data = copy.bytes_from(raw)
    assert sentinels.hits(data) == 0 and copy.suffix == ".nii.gz"
    (tmp_path / "b.nii.gz").write_bytes(data)
    before, after = nib.load(path), nib.load(tmp_path / "b.nii.gz")
    assert np.array_equal(before.get_fdata(), after.get_fdata())
    assert np.allclose(before.affine, after.affine)
    assert len(after.header.extensions) == 0
    assert deidentify(raw, "nifti", "s").sha256 == copy.sha256  # deterministic
    plain = gzip.decompress(raw)  # an uncompressed .nii keeps its voxels as a byte range
    copy = deidentify(plain, "nifti", "s", name="a.nii")
    assert copy.keep is not None and sentinels.hits(copy.bytes_from(plain)) == 0


def test_png_text_chunks_are_left_out(tmp_path):
    from PIL import Image

    path = sentinels.png(tmp_path / "a.png")
    raw = path.read_bytes()
    assert sentinels.hits(raw) >= 3
    data = deidentify(raw, "png", "s").bytes_from(raw)
    assert sentinels.hits(data) == 0
    assert np.array_equal(np.asarray(Image.open(path)), np.asarray(Image.open(io.BytesIO(data))))


def test_tiff_text_tags_are_zeroed_in_place(tmp_path):
    import tifffile

    path = sentinels.tiff(tmp_path / "a.tif")
    raw = path.read_bytes()
    assert sentinels.hits(raw) >= 3
    data = deidentify(raw, "tiff", "s").bytes_from(raw)
    assert sentinels.hits(data) == 0 and len(data) == len(raw)
    assert np.array_equal(tifffile.imread(path), tifffile.imread(io.BytesIO(data)))


def test_jpeg_metadata_segments_are_left_out():
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.full((8, 8), 90, np.uint8)).save(
        buf, "JPEG", comment=b"PHI_SENTINEL_JPEG_COMMENT", exif=b"Exif\0\0PHI_SENTINEL_EXIF")
    raw = buf.getvalue()
    data = deidentify(raw, "jpeg", "s").bytes_from(raw)
    assert sentinels.hits(raw) == 2 and sentinels.hits(data) == 0
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(raw))),
                          np.asarray(Image.open(io.BytesIO(data))))


def test_metaimage_and_nrrd_keep_geometry_only(tmp_path):
    import SimpleITK as sitk

    image = sitk.GetImageFromArray(np.arange(12, dtype=np.int16).reshape(3, 4))
    image.SetSpacing((0.5, 0.7))
    for fmt, suffix in (("metaimage", ".mha"), ("nrrd", ".nrrd")):
        path = tmp_path / f"a{suffix}"
        writer = sitk.ImageFileWriter()
        image.SetMetaData("PatientName", "PHI_SENTINEL_META")
        writer.SetFileName(str(path))
        writer.Execute(image)
        raw = path.read_bytes()
        assert sentinels.hits(raw) == 1, fmt
        out = tmp_path / f"b{suffix}"
        out.write_bytes(deidentify(raw, fmt, "s").bytes_from(raw))
        assert sentinels.hits(out.read_bytes()) == 0
        back = sitk.ReadImage(str(out))
        assert np.array_equal(sitk.GetArrayFromImage(back), sitk.GetArrayFromImage(image))
        assert back.GetSpacing() == (0.5, 0.7)


def test_formats_without_a_rule_and_detached_headers_are_refused():
    with pytest.raises(NotShareableError, match="no de-identification rule"):
        deidentify(b"xx", "bmp", "s")
    with pytest.raises(NotShareableError, match="another file"):
        deidentify(b"ObjectType = Image\nElementDataFile = a.raw\n", "metaimage", "s")
    with pytest.raises(NotShareableError, match="not a PNG"):
        deidentify(b"GIF89a", "png", "s")
