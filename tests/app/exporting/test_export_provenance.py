"""Exports carry polygon provenance: COCO has each annotation's tool, edited and model; a SEG
says per segment how it was made (MANUAL for hand tools, SEMIAUTOMATIC naming the tools,
AUTOMATIC for a model's unedited polygons) and still passes dciodvfy."""

from __future__ import annotations

import json
from dataclasses import replace

import pydicom
import pytest

from slicereview.app import annotating
from slicereview.app.exporting.masks import export_masks
from slicereview.app.exporting.seg import export_seg
from slicereview.engines.dicomout.seg import read_masks
from slicereview.store import Project
from tests.app.dicom_project import build, square
from tests.dicom_tools import dciodvfy_errors


@pytest.fixture(scope="module")
def made(tmp_path_factory, module_backend, on_backend):
    """The small DICOM project with tools: on the CT, Ann's certain polygon is a wand's and
    edited, her uncertain one manual; Bob's two are one model's, unedited; Cy drew freehand."""
    path = build(tmp_path_factory.mktemp("made"))
    with Project.open(path) as project:
        ct = project.images.all()[0]
        ann, bob, cy = (project.raters.by_name(n).id for n in ("Ann", "Bob", "Cy Ü"))
        for rater, tools in (
                (ann, [{"tool": "wand", "edited": True}, {}]),
                (bob, [{"tool": "model", "model": "bac-net@2.1"}] * 2),
                (cy, [{"tool": "freehand"}, {"tool": "freehand", "edited": True}])):
            a = project.annotations.for_image(rater, ct.id)
            polygons = [square(4, 5, 12), square(10, 8, 9, "uncertain")]
            annotating.replace_polygons(project, a.id, [
                replace(p, **t) for p, t in zip(polygons, tools, strict=True)])
            annotating.finish(project, a.id, "submitted")
    return on_backend(module_backend, path)


def test_coco_has_each_polygons_provenance(made, tmp_path):
    with Project.open(made, read_only=True) as project:
        export_masks(project, tmp_path, "coco")
        ct = project.images.all()[0].id
    doc = json.loads((tmp_path / "annotations.json").read_text())
    found = {(a["attributes"]["rater"], a["category_id"]): a["attributes"]
             for a in doc["annotations"] if a["image_id"] == ct}
    provenance = {k: (v["tool"], v["edited"], v["model"]) for k, v in found.items()}
    assert provenance == {
        ("Ann", 1): ("wand", True, None), ("Ann", 2): ("manual", False, None),
        ("Bob", 1): ("model", False, "bac-net@2.1"), ("Bob", 2): ("model", False, "bac-net@2.1"),
        ("Cy Ü", 1): ("freehand", False, None), ("Cy Ü", 2): ("freehand", True, None)}
    others = [a["attributes"] for a in doc["annotations"] if a["image_id"] != ct]
    assert others and all((a["tool"], a["edited"], a["model"]) == ("manual", False, None)
                          for a in others)  # (polygons drawn without saying how)


def test_seg_says_per_segment_how_it_was_made(made, tmp_path):
    with Project.open(made, read_only=True) as project:
        report = export_seg(project, tmp_path)
        ct = project.images.all()[0]
        ids = {project.annotations.for_image(project.raters.by_name(n).id, ct.id).id: n
               for n in ("Ann", "Bob", "Cy Ü")}
    seen = {}
    for annotation_id, name in ids.items():
        seg = report.objects[annotation_id]
        path = next(p for p in report.files if p.suffix == ".dcm" and pydicom.dcmread(
            p, stop_before_pixels=True).SOPInstanceUID == seg.SOPInstanceUID)
        assert dciodvfy_errors(path) == []
        back = pydicom.dcmread(path)
        assert read_masks(back)[0] == ["certain", "uncertain"]
        seen[name] = [(s.SegmentAlgorithmType, s.get("SegmentAlgorithmName"))
                      for s in back.SegmentSequence]
        if name == "Ann":
            item = back.SegmentSequence[0].SegmentationAlgorithmIdentificationSequence[0]
            assert item.AlgorithmParameters == "wand=1,edited=1"
            assert item.AlgorithmFamilyCodeSequence[0].CodeMeaning == (
                "Interactive segmentation tools")
            assert "CodingSchemeIdentificationSequence" in back
        if name == "Bob":
            item = back.SegmentSequence[1].SegmentationAlgorithmIdentificationSequence[0]
            assert item.AlgorithmVersion == "2.1"
    assert seen == {"Ann": [("SEMIAUTOMATIC", "slicereview: wand"), ("MANUAL", None)],
                    "Bob": [("AUTOMATIC", "bac-net"), ("AUTOMATIC", "bac-net")],
                    "Cy Ü": [("MANUAL", None), ("MANUAL", None)]}
    # the masks are those of the label image, however the polygons were made
    masks = read_masks(pydicom.dcmread(next(
        p for p in report.files if p.name.startswith("C000001_Ann"))))[1]
    assert masks[0].sum() == 12 * 12 and masks[1].any() and not (masks[0] & masks[1]).any()
