"""One rule for pixels that cannot be right, on every path, and none shown as something else.

Real files written here with nibabel, SimpleITK and tifffile. The NIfTI library under
SimpleITK's reader turns NaN and infinity into 0, so an all-infinite NIfTI used to be accepted
and shown as flat grey, and a partly infinite one had no warning, while the same data as MHA
was refused; a complex TIFF was shown as its real part; a share of 99.99 % printed "1e+02%".
nibabel (test-only) is the oracle of what the files hold.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.loader import load_display
from slicereview.model import Image
from slicereview.store import Project

NO_FINITE = "has no finite pixel value: every pixel is infinite or not a number"
COMPLEX = "holds complex-valued pixels"


def nifti(path: Path, data: np.ndarray, slope: float | None = None, inter: float = 0.0
          ) -> Path:
    import nibabel as nib

    image = nib.Nifti1Image(data, np.eye(4))
    if slope is not None:
        image.header.set_slope_inter(slope, inter)
    nib.save(image, path)
    return path


def sitk_file(path: Path, data: np.ndarray) -> Path:
    import SimpleITK as sitk

    sitk.WriteImage(sitk.GetImageFromArray(data), str(path))
    return path


@pytest.fixture
def project(tmp_path: Path):
    with Project.create(tmp_path / "p.srproj") as p:
        yield p


ALL_BAD = {
    "inf.nii.gz": lambda p: nifti(p, np.full((6, 5, 1), np.inf, np.float32)),
    "nan.nii": lambda p: nifti(p, np.full((6, 5, 3), np.nan, np.float32)),
    "mixed.nii.gz": lambda p: nifti(p, np.where(np.arange(30).reshape(6, 5, 1) % 2,
                                                 np.inf, np.nan)),
    "big-endian.nii": lambda p: nifti(p, np.full((6, 5, 1), -np.inf, ">f8")),
    "sitk-nan.nii": lambda p: sitk_file(p, np.full((4, 6, 5), np.nan, np.float32)),
    "inf.mha": lambda p: sitk_file(p, np.full((6, 5), np.inf, np.float32)),
}


@pytest.mark.parametrize("name", sorted(ALL_BAD))
def test_an_image_with_no_finite_pixel_is_refused_whatever_its_format(project, tmp_path, name):
    path = ALL_BAD[name](tmp_path / name)
    report = import_paths(project, [path])
    assert report.added_files == 0 and project.images.all() == []
    [(failed, reason)] = report.failed
    assert failed == str(path) and reason.startswith(f"{path.name} {NO_FINITE}")
    assert "\n" not in reason


def test_the_viewer_refuses_it_too_in_process_and_in_the_child(tmp_path: Path):
    """A project imported before the rule held on NIfTI: its image is refused when shown."""
    path = ALL_BAD["inf.nii.gz"](tmp_path / "inf.nii.gz")
    image = Image(1, 1, "C000001", str(path), "nifti", axis=-1)
    for isolated in (False, True):
        with pytest.raises(UnreadableImageError, match=NO_FINITE):
            load_display(path, image, isolated=isolated)


def test_a_partly_infinite_nifti_is_shown_with_the_warning_mha_gets(project, tmp_path: Path):
    import nibabel as nib

    data = np.arange(60, dtype=np.float32).reshape(6, 5, 2) - 7  # (x, y, z); values -7..52
    data[0, 0, :] = np.nan
    data[1, 2, 0] = np.inf
    data[4, 4, 1] = -np.inf
    path = nifti(tmp_path / "map.nii.gz", data)
    held = np.asarray(nib.load(path).dataobj)  # the oracle: what the file holds
    assert np.isnan(held[0, 0, 0]) and np.isposinf(held[1, 2, 0])
    report = import_paths(project, [path], slices=_every_slice())
    assert report.added_files == 1, report.details()
    [warning] = report.warnings
    assert warning == (f"{path}: 2 of 30 pixels (6.7 %) are not finite numbers (infinite or "
                       "NaN); they are shown as the lowest or highest finite value.")
    for image in project.images.all():
        shown = load_display(project.images.resolve(image.path), image)
        plane = held[:, :, image.slice_index].T  # SimpleITK's (z, y, x): rows are y
        finite = plane[np.isfinite(plane)]
        expected = np.where(np.isnan(plane) | np.isneginf(plane), finite.min(), plane)
        expected = np.where(np.isposinf(plane), finite.max(), expected)
        assert np.array_equal(shown.data, expected.astype(np.float32))
        assert "2 pixels not finite" in shown.description and "(6.7 %)" in shown.warning


def test_a_scaled_float_nifti_gets_its_non_finite_values_back_scaled(tmp_path: Path):
    import nibabel as nib

    data = np.ones((4, 3, 1), np.float32)
    data[0, 0, 0], data[1, 1, 0], data[2, 2, 0] = np.nan, np.inf, 0.0
    path = nifti(tmp_path / "scaled.nii", data, slope=-2.0, inter=10.0)
    held = np.asarray(nib.load(path).get_fdata())  # nibabel applies the scaling
    shown = load_display(path, Image(1, 1, "C000001", str(path), "nifti", axis=-1))
    plane = held[:, :, 0].T
    assert np.isneginf(plane[1, 1]) and plane[2, 2] == 10.0
    finite = plane[np.isfinite(plane)]
    assert shown.data[0, 0] == finite.min() and shown.data[1, 1] == finite.min()  # -inf: lowest
    assert shown.data[2, 2] == 10.0 and shown.data[0, 1] == 8.0  # a stored 0 stays a value
    assert "2 of 12 pixels (16.7 %)" in shown.warning


def test_a_float_nifti_with_zeros_and_no_non_finite_value_is_unchanged(tmp_path: Path):
    data = np.zeros((5, 4, 2), np.float32)
    data[1:3, 1:3, :] = 3.5
    path = nifti(tmp_path / "zeros.nii.gz", data)
    shown = load_display(path, Image(1, 1, "C000001", str(path), "nifti", axis=0,
                                     slice_index=1))
    assert shown.warning == "" and np.array_equal(shown.data, data[:, :, 1].T)


def _every_slice():
    from slicereview.engines.imaging.importer import SliceSelection

    return SliceSelection(axis=0, mode="all")


COMPLEX_FILES = {
    "k-space.tif": lambda p: _tiff(p),
    "k-space.nii.gz": lambda p: nifti(p, (np.ones((6, 5, 1)) + 1j).astype(np.complex64)),
}


def _tiff(path: Path) -> Path:
    import tifffile

    tifffile.imwrite(path, (np.arange(30).reshape(6, 5) + 1j * 7).astype(np.complex64))
    return path


@pytest.mark.parametrize("name", sorted(COMPLEX_FILES))
def test_a_complex_valued_image_is_refused_not_shown_as_its_real_part(project, tmp_path, name):
    path = COMPLEX_FILES[name](tmp_path / name)
    report = import_paths(project, [path])
    assert report.added_files == 0
    [(_, reason)] = report.failed
    assert reason.startswith(f"{path.name} {COMPLEX}") and "\n" not in reason
    fmt = "tiff" if name.endswith(".tif") else "nifti"
    with pytest.raises(UnreadableImageError, match=COMPLEX):  # the viewer's path too
        load_display(path, Image(1, 1, "C000001", str(path), fmt, axis=-1))


@pytest.mark.parametrize(("bad", "shown"), [(9999, "> 99.9 %"), (1, "< 0.1 %"),
                                            (30, "0.3 %"), (5000, "50 %")])
def test_the_share_of_non_finite_pixels_reads_as_a_percentage(tmp_path, bad, shown):
    data = np.ones(10_000, np.float32)
    data[:bad] = np.nan
    path = sitk_file(tmp_path / "map.mha", data.reshape(100, 100))
    display = load_display(path, Image(1, 1, "C000001", str(path), "metaimage", axis=-1))
    assert f"{bad} of 10000 pixels ({shown}) are not finite" in display.warning
    assert "e+" not in display.warning


LAYOUTS = {  # name: (shape in nibabel's (x, y, z, ...) order, dtype, slope, inter)
    "2-D.nii": ((7, 5), "<f4", None, 0.0),
    "3-D.nii.gz": ((7, 5, 3), "<f4", None, 0.0),
    "t1.nii.gz": ((7, 5, 3, 1), "<f4", None, 0.0),
    "f8-big-endian.nii": ((6, 4, 2), ">f8", None, 0.0),
    "scaled.nii.gz": ((6, 4, 2), "<f4", 2.5, -3.0),
    "offset-only.nii": ((6, 4, 2), "<f4", 1.0, 7.0),
    "zero-slope.nii": ((6, 4, 2), "<f4", 0.0, 7.0),
    "f8-scaled.nii": ((6, 4, 2), "<f8", 0.5, 1.0),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_float_nifti_voxels_are_read_as_simpleitk_reads_them(tmp_path, name):
    """The oracle: SimpleITK's own reading, wherever the values are finite (it zeroes the
    others); the same dtype and layout, the same scaling."""
    import nibabel as nib
    import SimpleITK as sitk

    from slicereview.engines.imaging.nifti_values import read_float_voxels

    shape, dtype, slope, inter = LAYOUTS[name]
    data = np.random.default_rng(len(name)).normal(0, 50, shape).astype(dtype)
    image = nib.Nifti1Image(data, np.eye(4))
    image.set_data_dtype(np.dtype(dtype))
    if slope is not None:  # (straight into the header: nibabel refuses a slope of 0)
        image.header["scl_slope"], image.header["scl_inter"] = slope, inter
    path = tmp_path / name
    nib.save(image, path)
    ours = read_float_voxels(path)
    itk = sitk.GetArrayFromImage(sitk.ReadImage(str(path)))
    assert ours is not None and ours.dtype == itk.dtype and ours.shape == itk.shape
    assert np.allclose(ours, itk, rtol=1e-6, atol=0), np.abs(ours - itk).max()


def test_other_niftis_are_left_to_simpleitk(tmp_path):
    import nibabel as nib

    from slicereview.engines.imaging.nifti_values import read_float_voxels

    for name, data in (("ints.nii", np.ones((4, 3, 2), np.int16)),
                       ("series.nii", np.ones((4, 3, 2, 5), np.float32))):
        nib.save(nib.Nifti1Image(data, np.eye(4)), tmp_path / name)
        assert read_float_voxels(tmp_path / name) is None
