"""Which model made a SEG (app/models/seg_origin.py), on SEG objects highdicom writes: our
own export's model segments, another algorithm's, a person's, and a SEG without an
identification sequence (its equipment's software version then)."""

from __future__ import annotations

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file

from slicereview.app.exporting.seg import segment_algorithm
from slicereview.app.models.seg_origin import made_by, maker_text, matches
from slicereview.engines.dicomout.common import Authoring
from slicereview.engines.dicomout.seg import MODEL_FAMILY, Algorithm, Segment, segmentation
from slicereview.model import Polygon, Tool


def _seg(*algorithms: Algorithm | None, software: str = "0.9") -> pydicom.Dataset:
    source = pydicom.dcmread(get_testdata_file("CT_small.dcm"), stop_before_pixels=True)
    mask = np.zeros((128, 128), bool)
    mask[10:20, 30:40] = True
    segments = [Segment(f"s{k}", mask, algorithm=a) for k, a in enumerate(algorithms)]
    return segmentation(source, segments, Authoring("p: formal, round 1", software, "1.2.3"),
                        creator="someone")


def _model(label: str) -> Algorithm:
    made = segment_algorithm([Polygon([[0, 0], [4, 0], [4, 4]], tool=Tool.MODEL, model=label)])
    assert made is not None
    return made


def test_our_exports_model_segments_match_their_model_only() -> None:
    seg = _seg(_model("Lung-Net@2.1"), _model("Lung-Net@2.1"))
    assert made_by(seg) == [("Lung-Net", "2.1")] * 2
    assert matches(seg, "lung-net", "2.1") and matches(seg, " LUNG-NET ", "2.1")
    assert not matches(seg, "lung-net", "2.2")
    assert not matches(seg, "lung-net", None)  # (a version stated, none asked for)
    assert not matches(seg, "lung", "2.1")
    assert maker_text(seg) == '"Lung-Net 2.1"'


def test_a_model_without_version_matches_only_when_none_is_asked() -> None:
    seg = _seg(_model("spots"))  # (our export writes "unversioned")
    assert made_by(seg) == [("spots", "")]
    assert matches(seg, "spots", None)
    assert not matches(seg, "spots", "1")


@pytest.mark.parametrize("others", [[None], [Algorithm("other-algo", "2", {}, "AUTOMATIC",
                                                       MODEL_FAMILY)]])
def test_a_seg_with_a_segment_made_otherwise_is_not_the_models(others) -> None:
    seg = _seg(_model("net@1"), *others)
    assert not matches(seg, "net", "1")
    words = maker_text(seg)
    assert words.startswith('"net 1", ') and ("MANUAL" in words or '"other-algo 2"' in words)


def test_a_persons_seg_matches_no_model() -> None:
    seg = _seg(None)
    assert made_by(seg) == [None]
    assert not matches(seg, "someone", None)
    assert maker_text(seg) == "a person (MANUAL segments)"


def test_without_an_identification_sequence_the_equipments_version_is_stated() -> None:
    seg = _seg(_model("vendor-ai@3"), software="3.0.1")
    for item in seg.SegmentSequence:
        del item.SegmentationAlgorithmIdentificationSequence
    assert made_by(seg) == [("vendor-ai", "3.0.1")]
    assert matches(seg, "Vendor-AI", "3.0.1") and not matches(seg, "vendor-ai", "3")
    seg.SegmentSequence[0].SegmentAlgorithmName = ""
    seg.SeriesDescription = "vendor-ai"
    assert made_by(seg)[0] == ("vendor-ai", "3.0.1")  # (the series description names it)


def test_our_exported_model_seg_is_the_models_even_with_an_empty_segment(location, tmp_path):
    """A model's SEG from our export names the model in every segment, the empty ones too
    (only certain pixels; nothing found), so pulling it back matches its model."""
    from slicereview.app.exporting.seg import export_seg
    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater
    from slicereview.store import Project
    from tests.app.dicom_project import build_at

    where = build_at(location, tmp_path / "made")
    with Project.open(where) as project:
        ct, mr = project.images.all()[:2]
        labels = np.zeros((ct.rows, ct.cols), np.uint8)
        labels[30:70, 40:80] = 1
        store_prediction(project, model_rater(project, "net", "1"), ct.id, labels)
        store_prediction(project, model_rater(project, "quiet", None), mr.id,
                         np.zeros((mr.rows, mr.cols), np.uint8))
        report = export_seg(project, tmp_path / "seg", raters=["net@1", "quiet"],
                            include_empty=True)
    segs = {p.name: pydicom.dcmread(p) for p in report.files if p.suffix == ".dcm"}
    net = next(s for n, s in segs.items() if "net" in n)
    assert [str(s.SegmentAlgorithmType) for s in net.SegmentSequence] == ["AUTOMATIC"] * 2
    assert matches(net, "net", "1") and not matches(net, "quiet", None)
    quiet = next(s for n, s in segs.items() if "quiet" in n)
    assert made_by(quiet) == [("quiet", "")] * 2 and matches(quiet, "quiet", None)
