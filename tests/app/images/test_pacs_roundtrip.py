"""A round trip through a real Orthanc (Debian's orthanc + orthanc-dicomweb, started on a
loopback port with temporary storage and configuration): upload DICOM files, import them over
DICOMweb, show an image after its cache was deleted, annotate through the application layer,
export SEG with --stow and find each SEG in Orthanc, modality SEG, in the source study,
referencing the right instance."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file

from slicereview.app import annotating
from slicereview.app.images.importing import import_paths
from slicereview.app.images.pacs import Credentials, Locator
from slicereview.app.images.pacs_import import import_dicomweb
from slicereview.engines.dicomweb.errors import AuthenticationError
from slicereview.engines.dicomweb.http import Auth
from slicereview.engines.imaging.loader import load_display
from slicereview.store import Project
from tests.app.dicom_project import square
from tests.orthanc_server import PASSWORD, USER, start

FILES = ["CT_small.dcm", "MR_small.dcm"]


@pytest.fixture(scope="module")
def orthanc(tmp_path_factory):
    server = start(tmp_path_factory.mktemp("orthanc"))
    try:
        from slicereview.demo.project import mammogram_files

        for name in FILES:
            server.upload(get_testdata_file(name))
        server.upload(mammogram_files()[0])  # RLE-compressed, 4432 x 2864
        yield server
    finally:
        server.stop()


@pytest.fixture
def env(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_CACHE", str(cache))
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_USER", USER)
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_PASSWORD", PASSWORD)
    return cache


@pytest.mark.slow  # 5 s
def test_import_show_after_cache_loss_annotate_and_stow(location, orthanc, env, tmp_path):
    auth = Auth.basic(USER, PASSWORD)
    path = location("p.srproj")
    with Project.create(path, name="PACS trip") as project:
        report = import_dicomweb(project, orthanc.dicomweb, auth=auth)
        assert (report.added_files, report.added_images, report.failed) == (3, 3, [])
        assert project.images.missing_sources() == []
        again = import_dicomweb(project, orthanc.dicomweb, auth=auth)
        assert again.added_files == 0 and len(again.duplicates) == 3
        images = project.images.all()
        # No patient data in the project: the allow-list of technical metadata, as for files.
        assert all("patient" not in str(im.info).lower() for im in images)
        locator = Locator(project, Credentials())
        ct = next(im for im in images if im.rows == 128)
        location = locator.file_of(ct)
        original = load_display(location, ct)
        # Done when: an image imported over DICOMweb shows after its cache was deleted.
        for file in env.glob("*.dcm"):
            file.unlink()
        shown = load_display(location, ct)  # fetched again and decoded in the decoding child
        assert np.array_equal(shown.data, original.data)
        assert hashlib.sha256(Path(location).read_bytes()).hexdigest() == location.sha256
        # Annotate through the application layer: two annotators on each image.
        for name in ("Ann", "Bob"):
            rater = annotating.add_annotator(project, name)
            for image in images:
                annotation = project.annotations.for_image(rater, image.id, create=True)
                annotating.replace_polygons(project, annotation.id, [square(3, 4, 20)])
                annotating.finish(project, annotation.id, "submitted")
    for file in env.glob("*.dcm"):  # the export fetches its sources' headers again
        file.unlink()
    out = tmp_path / "seg"
    result = subprocess.run(
        [sys.executable, "-m", "slicereview", "export", str(path), "--masks", str(out),
         "--format", "dicom-seg", "--stow", orthanc.dicomweb],
        capture_output=True, text=True, env=os.environ.copy(), timeout=600,
        stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 SEG files written" in result.stdout
    assert "6 stored, 0 refused" in result.stdout
    # Done when: Orthanc lists every SEG, modality SEG, in its source study.
    segs = [pydicom.dcmread(p, stop_before_pixels=True) for p in sorted(out.glob("*.seg.dcm"))]
    for seg in segs:
        found = orthanc.post("/tools/find", {"Level": "Instance",
                                             "Query": {"SOPInstanceUID": seg.SOPInstanceUID}})
        assert len(found) == 1
        tags = orthanc.get(f"/instances/{found[0]}/simplified-tags")
        assert tags["Modality"] == "SEG"
        assert tags["StudyInstanceUID"] == seg.StudyInstanceUID
        source_uid = seg.ReferencedSeriesSequence[0].ReferencedInstanceSequence[0
                                                                                ].ReferencedSOPInstanceUID
        referenced = tags["ReferencedSeriesSequence"][0]["ReferencedInstanceSequence"][0]
        assert referenced["ReferencedSOPInstanceUID"] == source_uid
        source = orthanc.post("/tools/find", {"Level": "Instance",
                                              "Query": {"SOPInstanceUID": source_uid}})
        study_of_source = orthanc.get(f"/instances/{source[0]}/study")["MainDicomTags"]
        assert study_of_source["StudyInstanceUID"] == seg.StudyInstanceUID
        orthanc.delete(f"/instances/{found[0]}")  # the PACS as it was, for the next backend


def test_a_file_imported_from_disk_is_a_duplicate(location, orthanc, env, tmp_path):
    with Project.create(location("p.srproj")) as project:
        import_paths(project, [get_testdata_file("CT_small.dcm")])
        report = import_dicomweb(project, orthanc.dicomweb, auth=Auth.basic(USER, PASSWORD),
                                 modality="CT")
        assert report.added_files == 0 and len(report.duplicates) == 1
        assert len(project.images.sources()) == 1


def test_wrong_password_is_refused_and_imports_nothing(location, orthanc, env, tmp_path):
    with Project.create(location("p.srproj")) as project:
        with pytest.raises(AuthenticationError, match="HTTP 401"):
            import_dicomweb(project, orthanc.dicomweb, auth=Auth.basic(USER, "wrong"))
        assert project.images.sources() == []
