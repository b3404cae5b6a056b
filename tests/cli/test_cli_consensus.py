"""`slicereview export --consensus`: majority and STAPLE masks (PNG, NIfTI with geometry),
consensus.csv, images with one annotation skipped, repeats left out."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.annotating import label_image
from slicereview.app.images.importing import import_paths
from slicereview.engines.agreement import majority_vote, staple
from slicereview.engines.imaging.importer import SliceSelection
from slicereview.launcher import main
from slicereview.model import Certainty, Polygon
from slicereview.store import Project


def _square(x, y, s):
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=float)


@pytest.fixture(scope="module")
def project_path(tmp_path_factory):
    """Two PNGs (16×20) and a 5×6×7 volume sliced along y; annotators a, b, c mark shifted
    squares (b's second one uncertain); the second PNG has only a's annotation; a has a repeat
    of the first PNG that marks everything (it must not count)."""
    import SimpleITK as sitk

    folder = tmp_path_factory.mktemp("consensus")
    data = folder / "data"
    data.mkdir()
    for k, name in enumerate(("a", "b")):  # different pixels: the importer skips duplicates
        PILImage.fromarray((np.arange(320).reshape(16, 20) * (k + 1) % 256).astype(np.uint8)
                           ).save(data / f"{name}.png")
    vol = sitk.GetImageFromArray(np.arange(5 * 6 * 7, dtype=np.int16).reshape(5, 6, 7))
    vol.SetSpacing((0.8, 0.9, 2.5))
    vol.SetOrigin((10.0, 20.0, -30.0))
    sitk.WriteImage(vol, str(data / "vol.nii.gz"))
    path = folder / "p.srproj"
    with Project.create(path) as project:
        report = import_paths(project, [data], slices=SliceSelection(axis=1, mode="all"))
        assert not report.failed
        raters = [project.raters.add(n) for n in ("a", "b", "sim c")]
        [second_png] = [im for im in project.images.all() if im.path.endswith("b.png")]
        for image in project.images.all():
            for k, rater in enumerate(raters):
                if image.id == second_png.id and k:
                    continue
                ann = project.annotations.for_image(rater, image.id)
                size = min(image.rows, image.cols) / 2
                polys = [Polygon(_square(1 + k, 1, size))]
                if k == 1:
                    polys.append(Polygon(_square(size, size / 2, size / 2),
                                         Certainty.UNCERTAIN))
                project.polygons.replace(ann.id, polys)
                project.annotations.set_status(ann.id, "submitted")
        first = project.annotations.for_image(raters[0], 1)
        again = project.repeats.create(first.id)
        project.polygons.replace(again.id, [Polygon(_square(0, 0, 16))])
        project.annotations.set_status(again.id, "submitted")
    return path


def _labels(path):
    with Project.open(path) as project:
        out: dict[int, list[np.ndarray]] = {}
        images = {}
        for a in project.annotations.all():
            out.setdefault(a.image_id, []).append(label_image(project, a.id))
            images[a.image_id] = project.images.get(a.image_id)
        return {i: np.stack(v) for i, v in out.items() if len(v) >= 2}, images


@pytest.mark.parametrize("level", ["relaxed", "strict"])
def test_png_majority(project_path, tmp_path, capsys, level):
    out = tmp_path / "m"
    assert main(["export", str(project_path), "--masks", str(out), "--consensus", "majority",
                 "--level", level]) == 0
    said = capsys.readouterr().out
    assert "majority consensus" in said and "1 with a single annotation skipped" in said
    labels, images = _labels(project_path)
    assert len(list(out.glob("*.png"))) == len(labels) == 1 + 6
    for image_id, lab in labels.items():
        got = np.asarray(PILImage.open(out / f"{images[image_id].case_id}_consensus-majority.png"))
        assert got.dtype == np.uint8 and set(np.unique(got)) <= {0, 1}
        np.testing.assert_array_equal(got.astype(bool), majority_vote(lab, level))
    with open(out / "consensus.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 * len(labels)
    assert {r["estimate"] for r in rows} == {"vs majority mask"}
    assert {r["simulated"] for r in rows} == {"0"}
    with open(out / "index.csv", newline="") as fh:
        index = list(csv.DictReader(fh))
    assert {r["annotators"] for r in index} == {"3"} and len(index) == len(labels)


def test_png_staple_and_scores(project_path, tmp_path):
    out = tmp_path / "s"
    assert main(["export", str(project_path), "--masks", str(out), "--consensus", "staple"]) == 0
    labels, images = _labels(project_path)
    with open(out / "consensus.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for image_id, lab in labels.items():
        case = images[image_id].case_id
        expected = staple(lab)
        got = np.asarray(PILImage.open(out / f"{case}_consensus-staple.png"))
        np.testing.assert_array_equal(got.astype(bool), expected.mask)
        mine = [r for r in rows if r["case_id"] == case]
        assert [r["rater"] for r in mine] == ["a", "b", "sim c"]
        assert [float(r["sensitivity"]) for r in mine] == pytest.approx(
            expected.sensitivity, abs=1e-6)
        assert [float(r["specificity"]) for r in mine] == pytest.approx(
            expected.specificity, abs=1e-6)
        assert {r["estimate"] for r in mine} == {"STAPLE"}


def test_nifti_volume_and_2d_geometry(project_path, tmp_path):
    import SimpleITK as sitk

    assert main(["export", str(project_path), "--masks", str(tmp_path), "--format", "nifti",
                 "--consensus", "majority"]) == 0
    labels, images = _labels(project_path)
    [vol_file] = tmp_path.glob("S*_axis1_consensus-majority.nii.gz")
    got = sitk.ReadImage(str(vol_file))
    assert got.GetSize() == (7, 6, 5)
    np.testing.assert_allclose(got.GetSpacing(), (0.8, 0.9, 2.5), atol=1e-6)
    np.testing.assert_allclose(got.GetOrigin(), (10.0, 20.0, -30.0), atol=1e-5)
    arr = sitk.GetArrayFromImage(got)
    for image_id, lab in labels.items():
        im = images[image_id]
        if im.is_slice:
            np.testing.assert_array_equal(arr[:, im.slice_index, :], majority_vote(lab))
        else:
            flat = sitk.ReadImage(str(tmp_path / f"{im.case_id}_consensus-majority.nii.gz"))
            np.testing.assert_array_equal(sitk.GetArrayFromImage(flat), majority_vote(lab))


def test_refusals_and_nothing_to_do(project_path, tmp_path, capsys):
    assert main(["export", str(project_path), "--masks", str(tmp_path), "--format", "coco",
                 "--consensus", "staple"]) == 2
    assert "png or nifti" in capsys.readouterr().err
    assert main(["export", str(project_path), "--masks", str(tmp_path), "--consensus",
                 "majority", "--include-in-progress"]) == 2
    assert "finished" in capsys.readouterr().err
    assert main(["export", str(project_path), "--masks", str(tmp_path / "x"), "--consensus",
                 "majority", "--rater", "a"]) == 1
    assert "No image has two finished annotations" in capsys.readouterr().out
