"""SEG and SR objects of real DICOM sources: valid for dciodvfy, read back with highdicom to
the same masks and values, referencing their source."""

from __future__ import annotations

import math

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file

from slicereview.engines.dicomout.common import Authoring
from slicereview.engines.dicomout.seg import Algorithm, Segment, read_masks, segmentation
from slicereview.engines.dicomout.sr import (
    ImageReview,
    Pin,
    Rating,
    ReviewDecision,
    SegReference,
    read_review,
    review_report,
)
from tests.dicom_tools import dciodvfy_errors

SOURCES = ["CT_small.dcm", "MR_small.dcm", "mammogram"]


def _source(name: str) -> pydicom.Dataset:
    if name == "mammogram":  # a secondary capture: no frame of reference, no spacing
        from slicereview.demo.project import mammogram_files

        return pydicom.dcmread(mammogram_files()[0], stop_before_pixels=True)
    return pydicom.dcmread(get_testdata_file(name), stop_before_pixels=True)


def _authoring() -> Authoring:
    return Authoring("Demo — formal, round 1", "0.1.0", pydicom.uid.generate_uid())


@pytest.mark.parametrize("name", SOURCES)
def test_binary_seg_is_valid_and_reads_back(name, tmp_path):
    source = _source(name)
    shape = (int(source.Rows), int(source.Columns))
    certain = np.zeros(shape, bool)
    certain[10:40, 10:30] = True
    uncertain = np.zeros(shape, bool)
    uncertain[50:60, 5:9] = True
    seg = segmentation(source, [Segment("certain", certain), Segment("uncertain", uncertain)],
                       _authoring(), creator="Zoë Müller")
    path = tmp_path / "seg.dcm"
    seg.save_as(path)
    assert dciodvfy_errors(path) == []
    back = pydicom.dcmread(path)
    labels, masks = read_masks(back)
    assert labels == ["certain", "uncertain"]
    assert np.array_equal(masks[0], certain) and np.array_equal(masks[1], uncertain)
    # The source is referenced, study and frame of reference are the source's.
    ref = back.ReferencedSeriesSequence[0]
    assert ref.SeriesInstanceUID == source.SeriesInstanceUID
    assert ref.ReferencedInstanceSequence[0].ReferencedSOPInstanceUID == source.SOPInstanceUID
    assert back.StudyInstanceUID == source.StudyInstanceUID
    assert str(back.ContentCreatorName) == "Zoë Müller^"
    assert back.SeriesDescription == "Demo — formal, round 1"
    item = back.SegmentSequence[0]
    assert item.SegmentAlgorithmType == "MANUAL"
    assert item.SegmentedPropertyCategoryCodeSequence[0].CodeValue == "49755003"
    assert item.SegmentedPropertyTypeCodeSequence[0].CodeValue == "52988006"
    if "FrameOfReferenceUID" in source:  # geometry copied, so the mask overlays the image
        assert back.FrameOfReferenceUID == source.FrameOfReferenceUID
        shared = back.SharedFunctionalGroupsSequence[0]
        measures = shared.PixelMeasuresSequence[0]
        assert [float(v) for v in measures.PixelSpacing] == [
            float(v) for v in source.PixelSpacing]
        assert [float(v) for v in shared.PlaneOrientationSequence[0].ImageOrientationPatient
                ] == [float(v) for v in source.ImageOrientationPatient]
        position = back.PerFrameFunctionalGroupsSequence[0].PlanePositionSequence[0]
        assert [float(v) for v in position.ImagePositionPatient] == [
            float(v) for v in source.ImagePositionPatient]
    else:
        assert "FrameOfReferenceUID" not in back


@pytest.mark.parametrize("name", SOURCES)
def test_empty_segments(name, tmp_path):
    """An empty segment has no frame unless include_empty keeps an empty one."""
    source = _source(name)
    empty = np.zeros((int(source.Rows), int(source.Columns)), bool)
    for include in (True, False):
        mask = empty.copy()
        if not include:
            mask[3, 4] = True  # (with no pixel at all there would be no frame to write)
        seg = segmentation(source, [Segment("certain", mask), Segment("uncertain", empty)],
                           _authoring(), creator="A", include_empty=include)
        path = tmp_path / f"seg{include}.dcm"
        seg.save_as(path)
        assert dciodvfy_errors(path) == []
        _, masks = read_masks(pydicom.dcmread(path))
        assert int(masks.sum()) == int(mask.sum())


@pytest.mark.parametrize("name", SOURCES)
def test_fractional_staple_seg(name, tmp_path):
    source = _source(name)
    rng = np.random.default_rng(7)
    probability = rng.random((int(source.Rows), int(source.Columns))).astype(np.float32)
    probability[0, :3] = (0.0, 0.5, 1.0)
    seg = segmentation(source, [Segment("consensus", probability)], _authoring(), creator="x",
                       fractional=True, content_label="CONSENSUS",
                       algorithm=Algorithm("STAPLE", "0.1.0", {"level": "relaxed"}))
    path = tmp_path / "frac.dcm"
    seg.save_as(path)
    assert dciodvfy_errors(path) == []
    back = pydicom.dcmread(path)
    assert back.SegmentationType == "FRACTIONAL"
    assert back.SegmentationFractionalType == "PROBABILITY"
    assert back.SegmentSequence[0].SegmentAlgorithmType == "AUTOMATIC"
    _, masks = read_masks(back)
    # 255 steps: within half a step (plus float32 rounding) of the probability.
    assert np.abs(masks[0] - probability).max() <= 0.5 / 255 + 1e-6
    assert masks[0][0, :3].tolist() == [0.0, pytest.approx(128 / 255), 1.0]


@pytest.mark.parametrize("name", SOURCES)
def test_each_segment_says_how_it_was_made(name, tmp_path):
    """One SEG, three segments: MANUAL, SEMIAUTOMATIC with the private assisted family (whose
    scheme is then declared) and AUTOMATIC with a model's name, version and the CID 7162
    *Artificial Intelligence* family; dciodvfy accepts it."""
    from slicereview.engines.dicomout.seg import ASSISTED_FAMILY, MODEL_FAMILY

    source = _source(name)
    mask = np.zeros((int(source.Rows), int(source.Columns)), bool)
    mask[5:9, 5:9] = True
    assisted = Algorithm("slicereview: manual, wand", "0.1.0", {"manual": "2", "wand": "1"},
                         "SEMIAUTOMATIC", ASSISTED_FAMILY)
    model = Algorithm("bac-net", "2.1", {}, "AUTOMATIC", MODEL_FAMILY)
    seg = segmentation(source, [Segment("certain", mask), Segment("uncertain", mask, "", assisted),
                                Segment("model", mask, "", model)], _authoring(), creator="A")
    path = tmp_path / "made.dcm"
    seg.save_as(path)
    assert dciodvfy_errors(path) == []
    back = pydicom.dcmread(path)
    manual, semi, auto = back.SegmentSequence
    assert manual.SegmentAlgorithmType == "MANUAL" and "SegmentAlgorithmName" not in manual
    assert (semi.SegmentAlgorithmType, semi.SegmentAlgorithmName) == (
        "SEMIAUTOMATIC", "slicereview: manual, wand")
    identification = semi.SegmentationAlgorithmIdentificationSequence[0]
    assert identification.AlgorithmFamilyCodeSequence[0].CodingSchemeDesignator == "99SLRV"
    assert identification.AlgorithmParameters == "manual=2,wand=1"
    assert (auto.SegmentAlgorithmType, auto.SegmentAlgorithmName) == ("AUTOMATIC", "bac-net")
    identification = auto.SegmentationAlgorithmIdentificationSequence[0]
    assert identification.AlgorithmVersion == "2.1"
    assert identification.AlgorithmFamilyCodeSequence[0].CodeMeaning == "Artificial Intelligence"
    assert back.CodingSchemeIdentificationSequence[0].CodingSchemeDesignator == "99SLRV"
    plain = segmentation(source, [Segment("model", mask, "", model)], _authoring(), creator="A")
    assert "CodingSchemeIdentificationSequence" not in plain  # (no private code in it)


def test_mask_of_the_wrong_shape_is_refused():
    source = _source("CT_small.dcm")
    with pytest.raises(ValueError, match="source image is"):
        segmentation(source, [Segment("certain", np.zeros((3, 3), bool))], _authoring(),
                     creator="A")


@pytest.mark.parametrize("name", ["CT_small.dcm", "mammogram"])
def test_review_sr_is_valid_and_reads_back(name, tmp_path):
    source = _source(name)
    mask = np.zeros((int(source.Rows), int(source.Columns)), bool)
    mask[5:9, 5:9] = True
    seg = segmentation(source, [Segment("certain", mask)], _authoring(), creator="Ann")
    review = ImageReview(
        decisions=(
            ReviewDecision("Ann Ü", "Rev", "reject", ("extra region", "outline too loose"),
                           "too big\nsecond line",
                           SegReference(seg.SOPClassUID, seg.SOPInstanceUID, (1, 2))),
            ReviewDecision("Bob", "Rev", "accept"),
            ReviewDecision("Cy", "Rev", "expert_review", (), "ask Dr X")),
        pins=(Pin("point", (3.5, 4.0), "here", "Rev", ("missed finding",)),
              Pin("box", (1.0, 2.0, 10.5, 20.25), "box here", "Rev 2")),
        alphas={"strict_alpha": 0.5, "relaxed_alpha": math.nan},
        ratings=(Rating("grade", "classify 1", 2.0), Rating("rank", "sort 1", 5.0)))
    sr = review_report(source, review, _authoring(), evidence=[seg])
    path = tmp_path / "sr.dcm"
    sr.save_as(path)
    assert dciodvfy_errors(path) == []
    back = pydicom.dcmread(path)
    assert read_review(back) == review
    assert back.StudyInstanceUID == source.StudyInstanceUID
    evidence = {item.ReferencedSOPInstanceUID
                for study in back.CurrentRequestedProcedureEvidenceSequence
                for series in study.ReferencedSeriesSequence
                for item in series.ReferencedSOPSequence}
    assert evidence == {source.SOPInstanceUID, seg.SOPInstanceUID}


def test_unknown_decision_is_refused():
    with pytest.raises(ValueError, match="decision must be"):
        review_report(_source("CT_small.dcm"),
                      ImageReview(decisions=(ReviewDecision("a", "b", "maybe"),)), _authoring())
