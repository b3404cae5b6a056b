"""SimpleITK volumes: slices, geometry, the slice cache; with nibabel's real NIfTI files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slicereview.engines.imaging import volume
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.importer import SliceSelection


def _anatomical() -> Path:
    """nibabel's real NIfTI test volume (imported here: nibabel is slow to import)."""
    from nibabel.testing import data_path

    return Path(data_path) / "anatomical.nii"


def test_nifti_slices_match_nibabel_data():
    import nibabel as nib

    # nibabel indexes (i, j, k) = ITK (x, y, z); SimpleITK's numpy array is (z, y, x).
    anatomical = _anatomical()
    expected = np.asarray(nib.load(anatomical).dataobj)
    _, images = volume.import_entries(anatomical, 0, SliceSelection(mode="all").indices)
    assert len(images) == expected.shape[2]
    k = images[len(images) // 2].slice_index
    d = volume.load(anatomical, 0, k)
    np.testing.assert_array_equal(d.data, expected[:, :, k].T)
    assert (images[0].rows, images[0].cols) == d.shape


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_each_axis_gives_the_right_plane_and_spacing(tmp_path, axis):
    import SimpleITK as sitk

    arr = np.arange(3 * 4 * 5, dtype=np.int16).reshape(3, 4, 5)
    img = sitk.GetImageFromArray(arr)
    img.SetSpacing((0.5, 0.75, 2.0))
    f = tmp_path / "v.nrrd"
    sitk.WriteImage(img, str(f))
    info, images = volume.import_entries(f, axis, SliceSelection(axis=axis, mode="all").indices)
    assert info["size"] == [5, 4, 3]
    assert [im.slice_index for im in images] == list(range(arr.shape[axis]))
    d = volume.load(f, axis, 1)
    np.testing.assert_array_equal(d.data, np.take(arr, 1, axis=axis))
    zyx = (2.0, 0.75, 0.5)
    assert d.spacing == tuple(s for a, s in enumerate(zyx) if a != axis)
    assert images[1].info["pixel_spacing"] == list(d.spacing)
    assert d.data.dtype == np.int32


def test_slice_geometry_follows_direction_and_origin(tmp_path):
    import SimpleITK as sitk

    img = sitk.GetImageFromArray(np.zeros((4, 3, 2), np.uint8))
    img.SetOrigin((10.0, 20.0, 30.0))
    img.SetSpacing((1.0, 2.0, 3.0))
    img.SetDirection((0, 1, 0, -1, 0, 0, 0, 0, 1))  # x index runs along physical y...
    f = tmp_path / "g.mha"
    sitk.WriteImage(img, str(f))
    _, images = volume.import_entries(f, 0, SliceSelection(mode="range", start=2, stop=3).indices)
    g = images[0].info
    # Slice 2 along z sits at z = 30 + 2 * 3; every pixel position agrees with SimpleITK.
    assert g["origin"] == list(img.TransformIndexToPhysicalPoint((0, 0, 2)))
    r, c = 1, 1
    expected = np.array(img.TransformIndexToPhysicalPoint((c, r, 2)))
    got = (np.array(g["origin"]) + r * g["spacing"][0] * np.array(g["row_direction"])
           + c * g["spacing"][1] * np.array(g["col_direction"]))
    np.testing.assert_allclose(got, expected)
    assert g["volume"]["direction"] == list(img.GetDirection())


def test_two_d_and_four_d_files(tmp_path):
    import SimpleITK as sitk
    from nibabel.testing import data_path

    flat = tmp_path / "flat.mha"
    sitk.WriteImage(sitk.GetImageFromArray(np.ones((6, 7), np.float64)), str(flat))
    _, images = volume.import_entries(flat, 0, SliceSelection().indices)
    assert len(images) == 1 and images[0].axis == -1 and (images[0].rows, images[0].cols) == (6, 7)
    assert volume.load(flat, -1, 0).data.dtype == np.float32
    with pytest.raises(UnreadableImageError, match="4-D"):
        volume.import_entries(Path(data_path) / "functional.nii", 0, SliceSelection().indices)


def test_unreadable_and_empty_selection(tmp_path):
    bad = tmp_path / "bad.nii.gz"
    bad.write_bytes(b"not a nifti file")
    with pytest.raises(UnreadableImageError, match="SimpleITK"):
        volume.import_entries(bad, 0, SliceSelection().indices)
    with pytest.raises(UnreadableImageError, match="no slice"):
        volume.import_entries(_anatomical(), 0,
                              SliceSelection(mode="range", start=500, stop=600).indices)


def test_volume_is_read_once_for_slice_scrolling(tmp_path, monkeypatch):
    import SimpleITK as sitk

    f = tmp_path / "c.mha"
    sitk.WriteImage(sitk.GetImageFromArray(np.zeros((5, 4, 4), np.uint16)), str(f))
    volume.clear_cache()
    calls = []
    real = volume._read_array
    monkeypatch.setattr(volume, "_read_array", lambda p, *a: calls.append(p) or real(p, *a))
    for k in range(5):
        volume.load(f, 0, k)
    assert len(calls) == 1
    volume.clear_cache()
    volume.load(f, 0, 0)
    assert len(calls) == 2
    with pytest.raises(UnreadableImageError, match="slice 9"):
        volume.load(f, 0, 9)


def test_cache_keeps_only_the_most_recent_volumes(tmp_path, monkeypatch):
    """The volume cache is bounded in bytes (cachetools LRUCache): with room for two 18-byte
    volumes, reading a third evicts the least recently used one."""
    import SimpleITK as sitk
    from cachetools import LRUCache

    files = []
    for k in range(3):
        f = tmp_path / f"v{k}.mha"
        sitk.WriteImage(sitk.GetImageFromArray(np.full((2, 3, 3), k, np.uint8)), str(f))
        files.append(f)
    monkeypatch.setattr(volume, "_cache", LRUCache(36, getsizeof=lambda e: int(e[0].nbytes)))
    for f in files:
        volume.load(f, 0, 0)
    assert len(volume._cache) == 2
    calls = []
    real = volume._read_array
    monkeypatch.setattr(volume, "_read_array", lambda p, *a: calls.append(p.name) or real(p, *a))
    volume.load(files[-1], 0, 1)  # still cached
    volume.load(files[0], 0, 1)  # the oldest was evicted
    assert calls == [files[0].name]
