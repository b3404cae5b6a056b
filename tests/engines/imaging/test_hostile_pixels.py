"""Silently wrong pixels: non-finite values and 1-bit DICOM.

Made here: a CT whose Rescale Slope is 1e39 and a NIfTI whose ``scl_slope`` is 1e38 (every
pixel +inf: they used to import without a word and show blank), a float MetaImage volume with a NaN
background (shown, with a warning stored and listed), a real 1-bit DICOM written with
pydicom's ``pack_bits`` and a 16-bit CT relabelled 1-bit (it used to be stored as 128 × 128
and shown as 16 × 128 RGB).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.pixels import pack_bits
from pydicom.uid import ExplicitVRLittleEndian, SecondaryCaptureImageStorage, generate_uid

from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.loader import load_display
from slicereview.store import Project


def huge_slope_ct(path: Path) -> Path:
    ds = dcmread(get_testdata_file("CT_small.dcm"))
    ds.PixelData = np.full((ds.Rows, ds.Columns), 7, "<i2").tobytes()  # no pixel is 0
    ds.RescaleSlope = "1e39"
    ds.save_as(path)
    return path


def huge_slope_nifti(path: Path) -> Path:
    import nibabel as nib

    image = nib.Nifti1Image(np.full((6, 5, 4), 100, np.int16), np.eye(4))
    image.header.set_slope_inter(1e38, 0)
    nib.save(image, path)
    return path


def nan_background_volume(path: Path) -> Path:
    import SimpleITK as sitk  # (ITK reads a NIfTI's NaNs as zeros; MetaImage keeps them)

    data = np.full((3, 9, 8), np.nan, np.float32)  # (z, y, x)
    data[:, 2:6, 3:7] = np.arange(16, dtype=np.float32).reshape(1, 4, 4)
    sitk.WriteImage(sitk.GetImageFromArray(data), str(path))
    return path


def one_bit_dicom(path: Path, bits: np.ndarray) -> Path:
    ds = Dataset()
    ds.file_meta = FileMetaDataset()
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.file_meta.MediaStorageSOPClassUID = SecondaryCaptureImageStorage
    ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID = generate_uid()
    ds.SOPClassUID = SecondaryCaptureImageStorage
    ds.Modality = "OT"
    ds.Rows, ds.Columns = bits.shape
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, "MONOCHROME2"
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 1, 1, 0, 0
    ds.PixelData = pack_bits(bits)
    ds.save_as(path, enforce_file_format=True)
    return path


@pytest.fixture
def project(tmp_path: Path):
    with Project.create(tmp_path / "p.srproj") as p:
        yield p


@pytest.mark.parametrize("make", [huge_slope_ct, huge_slope_nifti])
def test_an_image_with_no_finite_pixel_is_refused_plainly(project, tmp_path: Path, make):
    path = make(tmp_path / ("slope.dcm" if make is huge_slope_ct else "slope.nii.gz"))
    report = import_paths(project, [path])
    assert report.added_files == 0
    [(name, reason)] = report.failed
    assert name == str(path)
    assert reason.startswith(f"{path.name} has no finite pixel value") and "\n" not in reason


def test_some_non_finite_pixels_are_shown_with_a_stored_warning(project, tmp_path: Path):
    path = nan_background_volume(tmp_path / "map.mha")
    report = import_paths(project, [path])
    assert report.added_files == 1
    [warning] = report.warnings
    assert warning.startswith(f"{path}: ") and "are not finite numbers" in warning
    [image] = project.images.all()
    assert "are not finite numbers" in image.info["warning"]  # stored with the image
    shown = load_display(project.images.resolve(image.path), image)
    assert np.isfinite(shown.data).all() and "not finite" in shown.warning
    assert float(shown.data.min()) == 0.0 and float(shown.data.max()) == 15.0


def test_a_real_one_bit_dicom_is_decoded_bit_for_bit(project, tmp_path: Path):
    rng = np.random.default_rng(9)
    bits = (rng.random((128, 128)) < 0.3).astype(np.uint8)
    path = one_bit_dicom(tmp_path / "mask.dcm", bits)
    report = import_paths(project, [path])
    assert report.added_files == 1, report.details()
    [image] = project.images.all()
    assert (image.rows, image.cols) == (128, 128)
    shown = load_display(project.images.resolve(image.path), image)
    assert shown.data.shape == (128, 128) and not shown.is_rgb
    assert np.array_equal(shown.data, bits)


def test_a_16_bit_ct_relabelled_one_bit_is_shown_as_its_header_says(project, tmp_path: Path):
    ds = dcmread(get_testdata_file("CT_small.dcm"))
    ds.BitsAllocated, ds.BitsStored, ds.HighBit = 1, 1, 0
    ds.save_as(tmp_path / "relabelled.dcm")
    import_paths(project, [tmp_path / "relabelled.dcm"])
    [image] = project.images.all()
    shown = load_display(project.images.resolve(image.path), image)
    assert shown.data.shape == (image.rows, image.cols) == (128, 128)  # not 16 × 128 RGB


def test_non_finite_refusal_is_the_same_in_process(tmp_path: Path):
    from slicereview.model import Image

    path = huge_slope_ct(tmp_path / "slope.dcm")
    with pytest.raises(UnreadableImageError, match="no finite pixel value"):
        load_display(path, Image(0, 0, "", str(path), "dicom"))
