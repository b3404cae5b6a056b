"""Listing a PACS for an import, against a real Orthanc holding nine studies: the cap on an
import that names no study (set low here) refused with the count and how to narrow, the
listing's progress counted study by study, Cancel and Ctrl+C while listing adding nothing.

A PACS of 10,000 studies used to keep ``import --dicomweb`` at "Importing 0/0 listing the
studies" for minutes, one series query per study, with no progress and no way out but
killing it. Ctrl+C is sent to a real ``slicereview import`` while a relay in front of
Orthanc holds its second series query (``tests/gated_proxy.py``): no race, no sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.uid import generate_uid

from slicereview.app.images.pacs_import import import_dicomweb
from slicereview.app.images.pacs_listing import TooManyStudiesError
from slicereview.cli import main
from slicereview.engines.dicomweb.http import Auth
from slicereview.store import Project
from tests.gated_proxy import GatedProxy
from tests.orthanc_server import PASSWORD, USER, start
from tests.postgres_cluster import fingerprint

#: The studies uploaded: (source file, StudyDate); CT_small is modality CT, MR_small MR.
STUDIES = [("CT_small.dcm", f"2024010{d}") for d in range(1, 8)] + [
    ("MR_small.dcm", "20240201"), ("MR_small.dcm", "20240202")]
AUTH = Auth.basic(USER, PASSWORD)


@pytest.fixture(scope="module")
def orthanc(tmp_path_factory):
    server = start(tmp_path_factory.mktemp("orthanc"))
    folder = tmp_path_factory.mktemp("studies")
    try:
        for k, (name, date) in enumerate(STUDIES):
            ds = pydicom.dcmread(get_testdata_file(name))
            ds.StudyInstanceUID, ds.SeriesInstanceUID = generate_uid(), generate_uid()
            ds.SOPInstanceUID = ds.file_meta.MediaStorageSOPInstanceUID = generate_uid()
            ds.StudyDate = ds.SeriesDate = date
            ds.save_as(folder / f"{k}.dcm")
            server.upload(folder / f"{k}.dcm")
        yield server
    finally:
        server.stop()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_CACHE", str(folder))
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_USER", USER)
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_PASSWORD", PASSWORD)
    return folder


def test_more_studies_than_the_cap_are_refused_with_their_count(location, orthanc, cache):
    path = location("p.srproj")
    Project.create(path).close()
    before = fingerprint(path)
    with Project.open(path) as project:
        asked: list[tuple[int, int, str]] = []
        with pytest.raises(TooManyStudiesError) as refused:
            import_dicomweb(project, orthanc.dicomweb, auth=AUTH, max_studies=5,
                            progress=lambda *step: asked.append(step))
    where = orthanc.url
    assert str(refused.value) == (
        f"The PACS at {where} lists 9 studies, more than the 5 an import without --study "
        "takes, so nothing was imported; name the studies to import with --study UID (File > "
        "Import from PACS… lists and searches them), narrow them with --modality CODE or "
        "--date YYYYMMDD[-YYYYMMDD], or raise the cap with --max-studies 9.")
    assert (refused.value.count, refused.value.cap) == (9, 5)
    assert asked == [(0, 0, "listing the studies"), (0, 0, "counting the studies")]
    assert fingerprint(path) == before and not list(cache.glob("*.dcm"))
    with Project.open(path) as project:  # narrowed by modality and date, until under the cap
        with pytest.raises(TooManyStudiesError, match=r"lists 6 studies of modality CT from "
                           r"20240102 to 20240107, more than the 5"):
            import_dicomweb(project, orthanc.dicomweb, auth=AUTH, max_studies=5,
                            modality="CT", date="2024-01-02-2024-01-07")
        report = import_dicomweb(project, orthanc.dicomweb, auth=AUTH, max_studies=2,
                                 modality="MR")
        assert report.added_files == 2


def test_the_listing_counts_its_progress_study_by_study(location, orthanc, cache):
    with Project.create(location("p.srproj")) as project:
        asked: list[tuple[int, int, str]] = []
        report = import_dicomweb(project, orthanc.dicomweb, auth=AUTH, max_studies=9,
                                 progress=lambda *step: asked.append(step))
        assert report.added_files == 9 and len(project.images.all()) == 9
    listing = [step for step in asked if step[2].startswith("listing")]
    assert listing[0] == (0, 0, "listing the studies")
    per_study = sorted(set(listing[1:]))
    assert per_study == [(k, 9, f"listing study {k + 1} of 9") for k in range(9)]
    assert [s for s in listing[1:] if s[2] == "listing study 1 of 9"] == [(0, 9, "listing "
                                                                          "study 1 of 9")] * 2
    fetching = asked[len(listing):]
    assert fetching[0][:2] == (0, 9) and fetching[-1] == (9, 9, "")


def test_cancel_while_listing_adds_nothing_and_asks_no_more(location, orthanc, cache):
    path = location("p.srproj")
    Project.create(path).close()
    before = fingerprint(path)
    asked: list[str] = []
    with Project.open(path) as project:
        report = import_dicomweb(project, orthanc.dicomweb, auth=AUTH,
                                 progress=lambda done, total, what: asked.append(what),
                                 cancel=lambda: "listing study 3 of 9" in asked)
    assert report.cancelled and report.added_files == 0
    assert report.summary() == "0 files added (0 images); 0 duplicates skipped; 0 unreadable; " \
        "cancelled"
    assert asked[-1] == "listing study 3 of 9"        # no step, and no request, after Cancel
    assert fingerprint(path) == before and not list(cache.glob("*.dcm"))


def test_the_cli_refuses_over_the_cap_and_names_the_options(location, orthanc, cache, capsys):
    path = location("p.srproj")
    Project.create(path).close()
    code = main(["import", str(path), "--dicomweb", orthanc.dicomweb, "--max-studies", "4"])
    assert code == 2
    [line] = capsys.readouterr().err.strip().splitlines()[-1:]
    assert line.startswith(f"slicereview: error: The PACS at {orthanc.url} lists 9 studies, "
                           "more than the 4 an import without --study takes") and \
        line.endswith("or raise the cap with --max-studies 9.")
    assert main(["import", str(path), "--dicomweb", orthanc.dicomweb, "--date", "2024"]) == 2
    assert "--date '2024' is not a date: give YYYYMMDD" in capsys.readouterr().err
    assert main(["import", str(path), "--dicomweb", orthanc.dicomweb, "--date",
                 "20240201-20240228"]) == 0
    assert capsys.readouterr().out.startswith("2 files added (2 images)")


def _interruptible() -> None:
    """In the child before it starts: Ctrl+C as a terminal gives it, even when the test run
    itself ignores SIGINT (a background job of a shell, nohup), which the child would inherit
    (Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow  # 4-8 s: a child process
def test_ctrl_c_while_listing_is_one_sentence_exit_130_and_nothing_imported(location, orthanc,
                                                                            cache, tmp_path):
    path = location("p.srproj")
    with Project.create(path) as project:  # one image already there: it must stay
        first = import_dicomweb(project, orthanc.dicomweb, auth=AUTH, modality="MR",
                                date="20240201")
        assert first.added_files == 1
    before = fingerprint(path)
    proxy = GatedProxy(orthanc.url)
    try:
        reached = proxy.hold(r"/studies/[0-9.]+/series$", nth=2)   # the 2nd study's series
        child = subprocess.Popen(
            [sys.executable, "-m", "slicereview", "import", str(path), "--dicomweb",
             f"{proxy.url}/dicom-web", "--max-studies", "20"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
            stdin=subprocess.DEVNULL, preexec_fn=_interruptible)
        assert reached.wait(120), "the import never asked for the second study's series"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        proxy.stop()
    assert child.returncode == 130, (out, err)
    lines = err.strip().splitlines()
    assert lines[0] == "Importing: listing the studies"
    assert lines[-1] == ("Import from the PACS interrupted: nothing was added to the project "
                         "(the images fetched so far were removed from the cache); run the "
                         "command again to import.")
    assert "Traceback" not in err and out == ""
    assert fingerprint(path) == before                 # nothing half-imported
    with Project.open(path) as project:                # and the project opens as it was
        assert len(project.images.all()) == 1
    assert len(list(cache.glob("*.dcm"))) == 1          # only the first import's file


def test_the_study_list_says_when_the_pacs_has_more(orthanc):
    from slicereview.app.images.pacs_listing import list_studies

    found = list_studies(orthanc.dicomweb, AUTH, rows=4)
    assert len(found.rows) == 4 and found.more
    everything = list_studies(orthanc.dicomweb, AUTH)
    assert len(everything.rows) == 9 and not everything.more
    assert [r.date for r in everything.rows][:2] == ["2024-02-02", "2024-02-01"]  # newest first
