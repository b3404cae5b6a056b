"""DICOM SEG and SR export through the application layer: the demo's mammograms and a small
project of pydicom's test images; every object passes dciodvfy and reads back with
highdicom to what the PNG export writes."""

from __future__ import annotations

import numpy as np
import pydicom
import pytest
from PIL import Image as PILImage

from slicereview.app.exporting.masks import export_masks
from slicereview.app.exporting.seg import export_seg
from slicereview.app.exporting.sr import export_sr
from slicereview.engines.agreement.consensus_masks import staple
from slicereview.engines.dicomout.seg import read_masks
from slicereview.engines.dicomout.sr import read_review
from slicereview.store import Project
from tests.app.dicom_project import build
from tests.dicom_tools import dciodvfy_errors


@pytest.fixture(scope="module")
def small(tmp_path_factory, module_backend, on_backend):
    return on_backend(module_backend, build(tmp_path_factory.mktemp("dicom")))


def _pngs(project, folder):
    report = export_masks(project, folder, "png")
    return {p.name: np.asarray(PILImage.open(p)) for p in report.files if p.suffix == ".png"}


@pytest.mark.slow  # 25 s
def test_demo_mammograms_export_as_seg_like_the_png(demo_location, tmp_path):
    """Done when: the demo's mammogram annotations export as SEG files that pass dciodvfy,
    read back to the PNG export's masks and reference their source instances."""
    with Project.open(demo_location, read_only=True) as project:
        report = export_seg(project, tmp_path / "seg")
        pngs = _pngs(project, tmp_path / "png")
        mammograms = {im.id: im for im in project.images.all() if im.format == "dicom"}
        sops = {im.id: pydicom.dcmread(project.images.resolve(im.path), stop_before_pixels=True)
                .SOPInstanceUID for im in mammograms.values()}
        items = {a.id: a for a in project.annotations.all(phase="formal", round=1)}
        raters = project.raters.all()
    # 8 mammograms x (3 annotators + the demo's simulated model, whose SEG says AUTOMATIC)
    assert report.written == len(report.objects) == 32
    model = {a.id for a in items.values() if a.rater_id == next(
        r.id for r in raters if r.is_model)}
    assert len(model) == 8 and all(
        {s.SegmentAlgorithmType for s in report.objects[a].SegmentSequence} == {"AUTOMATIC"}
        for a in model)
    non_dicom = {case for case, reason in report.skipped if reason.startswith("not from DICOM")}
    assert len(non_dicom) == len(report.skipped) > 0  # one line per image, counted
    for annotation_id, seg in report.objects.items():
        image_id = items[annotation_id].image_id
        path = next(p for p in report.files if p.name.startswith(mammograms[image_id].case_id)
                    and pydicom.dcmread(p, stop_before_pixels=True).SOPInstanceUID
                    == seg.SOPInstanceUID)
        assert dciodvfy_errors(path) == []
        back = pydicom.dcmread(path)
        labels, masks = read_masks(back)
        png = pngs[path.name.replace(".seg.dcm", ".png")]
        assert labels == ["certain", "uncertain"]
        assert np.array_equal(masks[0], png == 1) and np.array_equal(masks[1], png == 2)
        reference = back.ReferencedSeriesSequence[0].ReferencedInstanceSequence[0]
        assert reference.ReferencedSOPInstanceUID == sops[image_id]
        assert back.SeriesDescription.startswith("slicereview demo: formal, round 1")


def test_consensus_seg(small, tmp_path):
    with Project.open(small, read_only=True) as project:
        majority = export_seg(project, tmp_path / "m", consensus="majority")
        fractional = export_seg(project, tmp_path / "s", consensus="staple", level="strict")
        labels = {im.case_id: np.stack([a.labels() for a in items]) for im, items in
                  _by_image(project).items()}
    assert majority.written == fractional.written == 2  # the two DICOM images
    for report, kind in ((majority, "BINARY"), (fractional, "FRACTIONAL")):
        for path in report.files[:-1]:
            assert dciodvfy_errors(path) == []
            back = pydicom.dcmread(path)
            assert back.SegmentationType == kind
            _, masks = read_masks(back)
            case = path.name.split("_")[0]
            if kind == "FRACTIONAL":
                expected = staple(labels[case], "strict").probability
                assert np.abs(masks[0] - expected).max() <= 0.5 / 255 + 1e-6
            else:
                votes = (labels[case] != 0).sum(axis=0)
                assert np.array_equal(masks[0], 2 * votes > labels[case].shape[0])


def _by_image(project):
    from slicereview.app.exporting.masks import select

    out: dict = {}
    for item in select(project):
        if item.image.format == "dicom":
            out.setdefault(item.image, []).append(item)
    return out


def test_empty_annotation_needs_include_empty(small, tmp_path):
    with Project.open(small, read_only=True) as project:
        plain = export_seg(project, tmp_path / "a")
        empty = export_seg(project, tmp_path / "b", include_empty=True)
    assert [r for c, r in plain.skipped if r.startswith("empty")] == [
        "empty annotation (use --include-empty to write it)"]
    assert empty.written == plain.written + 1
    newest = max(empty.files[:-1], key=lambda p: "Cy" in p.name and "C000002" in p.name)
    assert dciodvfy_errors(newest) == []
    assert read_masks(pydicom.dcmread(newest))[1].sum() == 0


def test_sr_references_source_and_seg(small, tmp_path):
    with Project.open(small, read_only=True) as project:
        segs = export_seg(project, tmp_path / "seg")
        report = export_sr(project, tmp_path / "sr", segs=segs)
        ct = project.images.all()[0]
        ct_sop = pydicom.dcmread(project.images.resolve(ct.path), stop_before_pixels=True
                                 ).SOPInstanceUID
    assert report.written == 1  # only the CT has decisions, pins and a grade
    assert [c for c, r in report.skipped] == []  # the PNG has nothing to report
    path = report.files[0]
    assert dciodvfy_errors(path) == []
    review = read_review(pydicom.dcmread(path))
    assert [(d.annotator, d.decision, d.reasons, d.comment) for d in review.decisions] == [
        ("Ann", "reject", ("extra region",), "too wide"), ("Bob", "accept", (), "")]
    assert all(d.seg is not None for d in review.decisions)
    written = {str(s.SOPInstanceUID) for s in segs.objects.values()}
    assert {d.seg.sop_instance_uid for d in review.decisions} <= written
    assert [(p.kind, p.at, p.comment, p.tags) for p in review.pins] == [
        ("point", (20.5, 30.25), "look here", ()),
        ("box", (1.0, 2.0, 11.5, 22.0), "", ("missed finding",))]
    assert [(r.kind, r.session, r.value) for r in review.ratings] == [("grade", "grades 1", 1)]
    back = pydicom.dcmread(path)
    source = back.ContentSequence[0].ReferencedSOPSequence[0]
    assert source.ReferencedSOPInstanceUID == ct_sop
