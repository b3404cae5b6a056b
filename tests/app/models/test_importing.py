"""``predictions import`` on both backends, with real files of every accepted kind: PNG label
images and 8-bit probabilities, float TIFF probabilities, NIfTI, and DICOM SEG (BINARY written
by slicereview's own export of a model rater, which must say AUTOMATIC with the model's name
and version and pass dciodvfy; FRACTIONAL written by highdicom) matched by case id, file name
and referenced SOP Instance UIDs; unmatched and refused files one line each."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pydicom
import pytest
from PIL import Image as PILImage

from slicereview.app.exporting.masks import export_masks
from slicereview.app.exporting.seg import export_seg
from slicereview.app.models.importing import import_predictions
from slicereview.app.models.predictions import store_prediction
from slicereview.app.models.raters import model_rater
from slicereview.engines.masks import rasterize
from slicereview.store import Project
from slicereview.store.copying import copy_project
from tests.app.dicom_project import build
from tests.dicom_tools import dciodvfy_errors


@pytest.fixture
def project(tmp_path: Path, location):
    made = build(tmp_path / "made")
    where = location("p.srproj")
    if not isinstance(where, str):
        where = made
    else:
        copy_project(made, where)
    with Project.open(where) as opened:
        yield opened


def _labels(project: Project, rater_id: int, image) -> np.ndarray:
    ann = project.annotations.for_image(rater_id, image.id, create=False)
    assert ann is not None, f"no prediction on {image.case_id}"
    return rasterize(project.polygons.of(ann.id), (image.rows, image.cols))


def _blob(rows: int, cols: int) -> np.ndarray:
    """A smooth bump: probability 1 at (rows/2, cols/3), falling off over ~rows/4."""
    r, c = np.mgrid[:rows, :cols]
    return np.exp(-(((r - rows / 2) / (rows / 4)) ** 2 + ((c - cols / 3) / (cols / 4)) ** 2))


def test_png_tiff_and_nifti_files_are_matched_thresholded_and_stored(project, tmp_path):
    import tifffile

    ct, mr, grey = project.images.all()
    folder = tmp_path / "in"
    folder.mkdir()
    prob = _blob(grey.rows, grey.cols)
    PILImage.fromarray(np.round(prob * 255).astype(np.uint8)).save(folder / f"{grey.case_id}.png")
    tifffile.imwrite(folder / "MR_small.tif", _blob(mr.rows, mr.cols).astype(np.float32))
    labels = np.zeros((ct.rows, ct.cols), np.uint8)
    labels[20:60, 30:90] = 2
    labels[30:50, 40:70] = 1
    PILImage.fromarray(labels).save(folder / f"{ct.case_id}_net.png")  # (a case id prefix)
    PILImage.fromarray(np.zeros((5, 5), np.uint8)).save(folder / "nobody.png")
    (folder / "notes.txt").write_text("not a prediction")
    PILImage.fromarray(np.zeros((7, 7), np.uint8)).save(folder / f"{mr.case_id}.png")

    model = model_rater(project, "net", "1")
    report = import_predictions(project, model, [folder], certain=0.6, uncertain=0.2)
    assert sorted(case for _, case in report.matched) == sorted(
        [grey.case_id, mr.case_id, ct.case_id])
    assert [f for f, _ in report.unmatched] == ["nobody.png"]
    refused = dict(report.refused)
    assert "notes.txt" not in refused  # (a folder's other files are left out)
    assert "is 7 × 7 pixels but the image is 64 × 64" in refused[f"{mr.case_id}.png"]
    assert len(report.lines()) == 5 and report.lines()[0].startswith("matched ")
    # probabilities at the two thresholds; 8-bit values are v / 255
    p8 = np.round(prob * 255) / 255
    expected = np.where(p8 >= 0.6, 1, np.where(p8 >= 0.2, 2, 0))
    stored = _labels(project, model.id, grey)
    assert np.mean(stored == expected) > 0.98  # (the outline's simplification, 1 px)
    # labels as they are, outlined within the outline's 1 px simplification (Dice >= 0.99)
    assert np.mean(_labels(project, model.id, ct) == labels) > 0.99
    assert (_labels(project, model.id, mr) == 1).sum() > 0

    # NIfTI: what `export --format nifti` writes for the model's own annotation reads back
    out = tmp_path / "nifti"
    export_masks(project, out, "nifti", raters=["net@1"])
    again = model_rater(project, "net", "2")
    report = import_predictions(project, again, sorted(out.glob("*.nii.gz")))
    assert sorted(case for _, case in report.matched) == sorted(
        [grey.case_id, mr.case_id, ct.case_id]), report.lines()
    for image in (ct, mr, grey):  # (the same orientation; outlined again within 1 px)
        a, b = _labels(project, again.id, image), _labels(project, model.id, image)
        assert np.mean(a == b) > 0.98 and (a == 1).sum() > 0.9 * (b == 1).sum(), image.case_id


def test_a_models_seg_export_is_automatic_and_imports_back_by_sop_uid(project, tmp_path):
    ct, mr, _ = project.images.all()
    model = model_rater(project, "bac-unet", "1.2")
    labels = np.zeros((ct.rows, ct.cols), np.uint8)
    labels[10:40, 10:50] = 2
    labels[15:30, 20:40] = 1
    store_prediction(project, model, ct.id, labels)
    report = export_seg(project, tmp_path / "seg", raters=["bac-unet"])  # (its one version)
    [path] = [p for p in report.files if p.suffix == ".dcm"]
    assert "bac-unet@1.2" in path.name or "bac-unet" in path.name
    assert dciodvfy_errors(path) == []
    seg = pydicom.dcmread(path)
    for segment in seg.SegmentSequence:
        assert segment.SegmentAlgorithmType == "AUTOMATIC"
        assert segment.SegmentAlgorithmName == "bac-unet"
        item = segment.SegmentationAlgorithmIdentificationSequence[0]
        assert (item.AlgorithmName, item.AlgorithmVersion) == ("bac-unet", "1.2")
    back = model_rater(project, "bac-unet", "1.2-reimported")
    imported = import_predictions(project, back, [path])
    assert [case for _, case in imported.matched] == [ct.case_id]
    assert np.mean(_labels(project, back.id, ct) == labels) > 0.99


def test_a_fractional_seg_is_matched_by_sop_uid_and_thresholded(project, tmp_path):
    import highdicom as hd
    from pydicom.data import get_testdata_file
    from pydicom.sr.codedict import codes

    mr = project.images.all()[1]
    source = pydicom.dcmread(get_testdata_file("MR_small.dcm"))
    prob = _blob(mr.rows, mr.cols).astype(np.float32)
    description = hd.seg.SegmentDescription(
        segment_number=1, segment_label="lesion",
        segmented_property_category=codes.SCT.MorphologicallyAbnormalStructure,
        segmented_property_type=codes.SCT.Lesion,
        algorithm_type=hd.seg.SegmentAlgorithmTypeValues.AUTOMATIC,
        algorithm_identification=hd.AlgorithmIdentificationSequence(
            name="vendor-ai", version="3", family=codes.cid7162.ArtificialIntelligence))
    seg = hd.seg.Segmentation(
        source_images=[source], pixel_array=prob[None, :, :, None],
        segmentation_type=hd.seg.SegmentationTypeValues.FRACTIONAL,
        segment_descriptions=[description], series_instance_uid=hd.UID(), series_number=9,
        sop_instance_uid=hd.UID(), instance_number=1, manufacturer="test",
        manufacturer_model_name="test", software_versions="1", device_serial_number="1",
        max_fractional_value=255)
    path = tmp_path / "ai-result.dcm"
    seg.save_as(path)
    model = model_rater(project, "vendor-ai", "3")
    report = import_predictions(project, model, [path])  # default thresholds 0.5 / 0.3
    assert [case for _, case in report.matched] == [mr.case_id], report.lines()
    p = np.round(prob * 255) / 255
    expected = np.where(p >= 0.5, 1, np.where(p >= 0.3, 2, 0))
    assert np.mean(_labels(project, model.id, mr) == expected) > 0.97
    # a SEG of an image the project does not have: unmatched, one line
    other = pydicom.dcmread(path)
    other.PerFrameFunctionalGroupsSequence[0].DerivationImageSequence[0].SourceImageSequence[
        0].ReferencedSOPInstanceUID = "1.2.3.4.5"
    other.save_as(tmp_path / "elsewhere.dcm")
    report = import_predictions(project, model, [tmp_path / "elsewhere.dcm"])
    assert report.matched == [] and "SOP Instance UID" in report.unmatched[0][1]
