"""From issue 28 (packages and the PACS): exporting SR with ``--masks`` after a SEG export
writes the same SEG objects (the same content gives the same UIDs) and, against the real
Orthanc the tests start, does not send what the PACS holds already: one SEG series of one
annotation, not two."""

from __future__ import annotations

import pydicom
import pytest

from slicereview.cli import main
from slicereview.store import Project
from tests.app.dicom_project import build
from tests.orthanc_server import PASSWORD, USER, start


@pytest.fixture(scope="module")
def orthanc(tmp_path_factory):
    server = start(tmp_path_factory.mktemp("orthanc"))
    yield server
    server.stop()


@pytest.mark.file_only("the DICOM test project is a file (its UIDs are the same on a server)")
def test_sr_with_masks_after_a_seg_export_sends_no_seg_twice(orthanc, tmp_path, monkeypatch,
                                                             capsys):
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_USER", USER)
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_PASSWORD", PASSWORD)
    path = build(tmp_path / "project")
    for source in ("CT_small.dcm", "MR_small.dcm"):
        from pydicom.data import get_testdata_file

        orthanc.upload(get_testdata_file(source))
    assert main(["export", str(path), "--masks", str(tmp_path / "seg"), "--format", "dicom-seg",
                 "--stow", orthanc.dicomweb]) == 0
    first = capsys.readouterr().out
    segs = {pydicom.dcmread(f, stop_before_pixels=True).SOPInstanceUID
            for f in (tmp_path / "seg").glob("*.seg.dcm")}
    assert segs and f"{len(segs)} stored, 0 refused." in first
    assert main(["export", str(path), "--reports", str(tmp_path / "sr"), "--masks",
                 str(tmp_path / "seg2"), "--format", "dicom-sr", "--stow",
                 orthanc.dicomweb]) == 0
    second = capsys.readouterr().out
    again = {pydicom.dcmread(f, stop_before_pixels=True).SOPInstanceUID
             for f in (tmp_path / "seg2").glob("*.seg.dcm")}
    assert again == segs  # the same content, the same objects
    assert f"{len(segs)} held there already (not sent again)" in second
    found = orthanc.post("/tools/find", {"Level": "Instance", "Query": {"Modality": "SEG"}})
    assert len(found) == len(segs)  # one SEG per annotation on the PACS, not two
    series = {orthanc.get(f"/instances/{i}")["ParentSeries"] for i in found}
    with Project.open(path) as project:
        annotators = {a.rater_id for a in project.annotations.all()}
    assert len(series) <= 2 * len(annotators)  # (per study and author: never a second one)
    # a changed annotation gets new UIDs (a new object, sent)
    from slicereview.app import annotating
    from tests.app.dicom_project import square

    with Project.open(path) as project:
        annotation = next(a for a in project.annotations.all() if a.status == "submitted")
        annotating.replace_polygons(project, annotation.id, [square(1, 1, 5)])
        annotating.finish(project, annotation.id, "submitted")
    assert main(["export", str(path), "--masks", str(tmp_path / "seg3"), "--format",
                 "dicom-seg"]) == 0
    third = {pydicom.dcmread(f, stop_before_pixels=True).SOPInstanceUID
             for f in (tmp_path / "seg3").glob("*.seg.dcm")}
    assert len(third - segs) == 1 and len(third & segs) == len(segs) - 1
