"""A hostile or broken PACS gets one plain sentence and imports nothing: wrong content type,
a cut-off multipart body, a cut-off connection, a 10 GB Content-Length, a redirect to another
host, HTTP 500, a server that stops answering and one that trickles; plus bearer tokens and
STOW-RS refusals with the server's reason. The answers come from a local HTTP server."""

from __future__ import annotations

import pytest

from slicereview.app.images.pacs_import import import_dicomweb
from slicereview.engines.dicomweb.client import Server
from slicereview.engines.dicomweb.errors import AuthenticationError, DicomwebError
from slicereview.engines.dicomweb.http import Auth, NetLimits
from slicereview.store import Project
from tests.engines.dicomweb.hostile_server import TOKEN, HostileServer

FAST = NetLimits(connect_timeout_s=2, read_timeout_s=1.0, total_timeout_s=2.0)


@pytest.fixture(scope="module")
def server():
    s = HostileServer()
    yield s
    s.stop()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_CACHE", str(folder))
    return folder


def test_a_good_server_imports_both_instances(server, cache, tmp_path):
    with Project.create(tmp_path / "p.srproj") as project:
        report = import_dicomweb(project, server.url("good"), net_limits=FAST)
        assert report.added_files == 2 and not report.failed
        assert len(list(cache.glob("*.dcm"))) == 2
        again = import_dicomweb(project, server.url("good"), net_limits=FAST)
        assert again.added_files == 0 and len(again.duplicates) == 2


HOSTILE = {
    "wrongtype": "answered with text/html where application/dicom+json was asked for",
    "truncated": "ended its answer early (the multipart body has no closing boundary)",
    "cutoff": "ended its answer early (it was cut off)",
    "huge": "announced 10.0 GB for one image",
    "redirect": "redirected to another server (http://127.0.0.2:",
    "error500": "answered with an error (HTTP 500",
    "slow": "stopped answering",
    "trickle": "is sending too slowly",
}


@pytest.mark.parametrize("mode", [
    # (31 s: the client reads 64 KiB at a time, so the time limit is looked at only once the
    # whole trickled answer is in)
    pytest.param(mode, marks=pytest.mark.slow) if mode == "trickle" else mode
    for mode in sorted(HOSTILE)])
def test_hostile_answer_is_one_sentence_and_imports_nothing(mode, server, cache, tmp_path):
    with Project.create(tmp_path / "p.srproj") as project:
        with pytest.raises(DicomwebError) as caught:
            import_dicomweb(project, server.url(mode), net_limits=FAST)
        message = str(caught.value)
        assert HOSTILE[mode] in message
        assert "\n" not in message and message.endswith(".") and message.count(". ") == 0
        assert project.images.all() == [] and project.images.sources() == []
    assert list(cache.glob("*")) == []  # nothing half-fetched left behind


def test_bearer_token(server, cache, tmp_path):
    with pytest.raises(AuthenticationError, match="HTTP 401"):
        Server(server.url("token"), limits=FAST).studies()
    with pytest.raises(AuthenticationError):
        Server(server.url("token"), Auth.bearer("wrong"), limits=FAST).studies()
    rows = Server(server.url("token"), Auth.bearer(TOKEN), limits=FAST).studies()
    assert [(r.date, r.modalities, r.description, r.images) for r in rows] == [
        ("2024-01-02", "CT", "Chest", 2)]


def test_unreachable_server():
    with pytest.raises(DicomwebError, match="Cannot reach the PACS at http://127.0.0.1:9"):
        Server("http://127.0.0.1:9/dicom-web", limits=FAST).studies()


def test_stow_reports_each_refusal_and_goes_on(server, tmp_path):
    from pydicom import dcmread
    from pydicom.data import get_testdata_file

    files = []
    for k in range(4):
        ds = dcmread(get_testdata_file("CT_small.dcm"))
        ds.SOPInstanceUID = f"1.2.826.0.1.3680043.8.498.99.{k + 1}{5 + k}"  # ...37 is refused
        path = tmp_path / f"{k}.dcm"
        ds.save_as(path)
        files.append(path)
    report = Server(server.url("stow"), limits=FAST).store(files)
    assert len(report.stored) == 3
    assert report.refused == [("1.2.826.0.1.3680043.8.498.99.37",
                               "the server refused it (HTTP 409 Conflict: failure reason "
                               "0xA900, data set does not match SOP class)")]


def test_a_work_package_carries_pacs_images_as_files(server, cache, tmp_path):
    """An annotator's work package holds the images themselves (fetched again if the cache
    lost them), so the annotator's machine never needs the PACS."""
    from slicereview.app import annotating
    from slicereview.app.qa.packages import package, unpack
    from slicereview.engines.imaging.loader import load_display

    path = tmp_path / "p.srproj"
    with Project.create(path) as project:
        import_dicomweb(project, server.url("good"), net_limits=FAST)
        ann = annotating.add_annotator(project, "Ann")
        for image in project.images.all():
            project.annotations.for_image(ann, image.id, create=True)
        for file in cache.glob("*.dcm"):
            file.unlink()
        zipped = package(project, "Ann", tmp_path / "ann.zip")
    with Project.open(unpack(zipped)) as pkg:
        assert pkg.dicomweb.refs() == {} and pkg.images.missing_sources() == []
        images = pkg.images.all()
        assert len(images) == 2
        for image in images:
            assert load_display(pkg.images.resolve(image.path), image).data.size > 0
