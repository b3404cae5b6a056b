"""`slicereview export`: PNG, NIfTI and COCO round trips (pixels and geometry read back)."""

from __future__ import annotations

import csv
import json
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image as PILImage
from pydicom.data import get_testdata_file

from slicereview.app.annotating import label_image
from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging.importer import SliceSelection
from slicereview.engines.masks import rasterize
from slicereview.launcher import main
from slicereview.model import Certainty, Polygon
from slicereview.store import Project


def _square(x, y, s):
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=float)


@pytest.fixture(scope="module")
def project_path(tmp_path_factory):
    import SimpleITK as sitk

    folder = tmp_path_factory.mktemp("export")
    data = folder / "data"
    data.mkdir()
    PILImage.fromarray(np.arange(80, dtype=np.uint8).reshape(8, 10)).save(data / "a.png")
    flat = sitk.GetImageFromArray(np.arange(9 * 12, dtype=np.int16).reshape(9, 12))
    flat.SetSpacing((0.5, 0.7))
    flat.SetOrigin((3.0, -4.0))
    flat.SetDirection((0.0, 1.0, 1.0, 0.0))
    sitk.WriteImage(flat, str(data / "flat.nii.gz"))
    vol = sitk.GetImageFromArray(np.arange(5 * 6 * 7, dtype=np.int16).reshape(5, 6, 7))
    vol.SetSpacing((0.8, 0.9, 2.5))
    vol.SetOrigin((10.0, 20.0, -30.0))
    vol.SetDirection((0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    sitk.WriteImage(vol, str(data / "vol.nii.gz"))
    shutil.copy(get_testdata_file("CT_small.dcm"), data / "ct.dcm")
    path = folder / "p.srproj"
    with Project.create(path) as project:
        report = import_paths(project, [data], slices=SliceSelection(axis=1, mode="all"))
        assert not report.failed and report.added_images == 9
        ann1 = project.raters.add("ann 1")
        ann2 = project.raters.add("sim/2", simulated=True)
        for image in project.images.all():
            w, h = image.cols, image.rows
            a = project.annotations.for_image(ann1, image.id)
            project.polygons.add(a.id, Polygon(_square(1, 1, min(w, h) / 2)))
            project.polygons.add(a.id, Polygon(_square(w / 3, h / 3, min(w, h) / 2),
                                              Certainty.UNCERTAIN, label="edge"))
            project.annotations.set_status(a.id, "submitted")
            b = project.annotations.for_image(ann2, image.id)
            if image.slice_index == 2 or not image.is_slice:
                project.annotations.set_status(b.id, "nothing_to_annotate")
            # other slices of ann2 stay in progress: not exported by default
    return path


def _file(case, rater):
    return f"{case}_{rater.replace(' ', '_').replace('/', '_')}"


def _labels(project_path):
    with Project.open(project_path) as project:
        out = {}
        for a in project.annotations.all():
            image = project.images.get(a.image_id)
            out[(image.case_id, project.raters.get(a.rater_id).name)] = (
                label_image(project, a.id), image, str(a.status))
        return out


def test_png_round_trip(project_path, tmp_path, capsys):
    assert main(["export", str(project_path), "--masks", str(tmp_path / "png")]) == 0
    assert "Exported" in capsys.readouterr().out
    labels = _labels(project_path)
    files = sorted(p.name for p in (tmp_path / "png").glob("*.png"))
    expected = sorted(f"{_file(case, rater)}.png"
                      for (case, rater), (_, _, st) in labels.items() if st != "in_progress")
    assert files == expected
    for (case, rater), (lab, _, st) in labels.items():
        if st == "in_progress":
            continue
        got = np.asarray(PILImage.open(tmp_path / "png" / f"{_file(case, rater)}.png"))
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, lab)
        assert (st == "nothing_to_annotate") == (not got.any())
    with open(tmp_path / "png" / "index.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(files)
    assert {r["simulated"] for r in rows if r["rater"] == "sim/2"} == {"1"}


def test_nifti_geometry_and_pixels(project_path, tmp_path):
    import SimpleITK as sitk

    assert main(["export", str(project_path), "--masks", str(tmp_path), "--format",
                 "nifti", "--rater", "ann 1"]) == 0
    labels = _labels(project_path)
    data = project_path.parent / "data"
    ann1 = {case: (lab, im) for (case, rater), (lab, im, _) in labels.items() if rater == "ann 1"}
    # the volume: one file holding every annotated slice, with the source's geometry
    [vol_file] = tmp_path.glob("S*_axis1_ann_1.nii.gz")
    got, src = sitk.ReadImage(str(vol_file)), sitk.ReadImage(str(data / "vol.nii.gz"))
    assert got.GetSize() == src.GetSize()
    np.testing.assert_allclose(got.GetSpacing(), src.GetSpacing(), atol=1e-6)
    np.testing.assert_allclose(got.GetOrigin(), src.GetOrigin(), atol=1e-5)
    np.testing.assert_allclose(got.GetDirection(), src.GetDirection(), atol=1e-6)
    arr = sitk.GetArrayFromImage(got)
    slices = [(lab, im) for lab, im in ann1.values() if im.is_slice]
    assert len(slices) == 6  # all slices along axis 1 (y) of a 7 x 6 x 5 volume
    for lab, im in slices:
        np.testing.assert_array_equal(arr[:, im.slice_index, :], lab)
    # a 2-D NIfTI keeps spacing, origin and direction
    [(lab, im)] = [(lab, im) for lab, im in ann1.values() if im.info.get("size") == [12, 9]]
    got = sitk.ReadImage(str(tmp_path / f"{im.case_id}_ann_1.nii.gz"))
    np.testing.assert_array_equal(sitk.GetArrayFromImage(got), lab)
    np.testing.assert_allclose(got.GetSpacing(), (0.5, 0.7), atol=1e-6)
    np.testing.assert_allclose(got.GetOrigin(), (3.0, -4.0), atol=1e-6)
    np.testing.assert_allclose(got.GetDirection(), (0.0, 1.0, 1.0, 0.0), atol=1e-6)
    # DICOM and PNG: pixel spacing (x = col, y = row)
    for lab, im in ann1.values():
        if im.format in ("dicom", "png") or im.info.get("kind") == "raster":
            got = sitk.ReadImage(str(tmp_path / f"{im.case_id}_ann_1.nii.gz"))
            np.testing.assert_array_equal(sitk.GetArrayFromImage(got), lab)
            row, col = im.info["pixel_spacing"]
            np.testing.assert_allclose(got.GetSpacing(), (col, row), rtol=1e-6)
    ct = [im for _, im in ann1.values() if im.format == "dicom"]
    assert ct and ct[0].info["pixel_spacing"] != [1.0, 1.0]


def test_coco_round_trip(project_path, tmp_path):
    assert main(["export", str(project_path), "--masks", str(tmp_path), "--format", "coco"]) == 0
    doc = json.loads((tmp_path / "annotations.json").read_text())
    assert [c["name"] for c in doc["categories"]] == ["certain", "uncertain"]
    labels = _labels(project_path)
    images = {im["id"]: im for im in doc["images"]}
    for (case, rater), (lab, image, st) in labels.items():
        if st == "in_progress":
            continue
        assert images[image.id]["file_name"] == case
        assert (images[image.id]["height"], images[image.id]["width"]) == lab.shape
        polys = [SimpleNamespace(vertices=np.reshape(a["segmentation"][0], (-1, 2)),
                                 certainty=("certain", "uncertain")[a["category_id"] - 1])
                 for a in doc["annotations"]
                 if a["image_id"] == image.id and a["attributes"]["rater"] == rater]
        np.testing.assert_array_equal(rasterize(polys, lab.shape), lab)
    a = doc["annotations"][1]
    assert a["attributes"]["label"] == "edge" and a["category_id"] == 2
    x, y, w, h = a["bbox"]
    assert a["area"] == pytest.approx(w * h)
    assert {s["status"] for s in doc["slicereview_annotations"]} == {
        "submitted", "nothing_to_annotate"}


def test_include_in_progress_and_empty_selection(project_path, tmp_path, capsys):
    assert main(["export", str(project_path), "--masks", str(tmp_path / "all"),
                 "--include-in-progress"]) == 0
    n_all = len(list((tmp_path / "all").glob("*.png")))
    assert n_all == len(_labels(project_path))
    assert main(["export", str(project_path), "--masks", str(tmp_path / "x"),
                 "--phase", "pilot"]) == 1
    assert "No annotations" in capsys.readouterr().out
    assert main(["export", str(project_path), "--masks", str(tmp_path / "y"),
                 "--rater", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_a_failing_image_is_reported_and_the_rest_exported(location, project_path, tmp_path,
                                                           capsys):
    """A negative pixel spacing (a damaged header) made SimpleITK refuse one image, which
    aborted the whole NIfTI export after the first file."""
    from slicereview.store.copying import copy_project

    damaged = location("damaged.srproj")
    copy_project(project_path, damaged)
    with Project.open(damaged) as project, project.transaction():
        dicom = {im.id: im for im in project.images.all() if im.format == "dicom"}
        for image in dicom.values():
            info = {**image.info, "pixel_spacing": [-0.5, 0.5]}
            project.db.execute("UPDATE images SET info = ? WHERE id = ?",
                               (json.dumps(info), image.id))
    bad = {im.case_id for im in dicom.values()}
    out = tmp_path / "nii"
    code = main(["export", str(damaged), "--masks", str(out), "--format", "nifti"])
    printed = capsys.readouterr().out
    assert code == 1
    assert "not exported" in printed and "Spacing" in printed
    good = tmp_path / "good"
    assert main(["export", str(project_path), "--masks", str(good), "--format", "nifti"]) == 0
    with (out / "index.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    failed = [r for r in rows if r["error"]]
    assert {r["case_ids"] for r in failed} == bad and all(not r["file"] for r in failed)
    written = sorted(p.name for p in out.glob("*.nii.gz"))
    assert written == sorted(p.name for p in good.glob("*.nii.gz")
                             if not any(c in p.name for c in bad))
    assert len(written) == len(rows) - len(failed) > 0
