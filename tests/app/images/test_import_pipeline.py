"""The import pipeline (issue 8): groups read by two decoding children while the importing
thread hashes the next files; results written in file order, promptly; Cancel keeps what was
read; a file that crashes a child is refused alone."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.app.images import importing
from slicereview.app.images.importing import DECODED_AT_IMPORT, import_paths
from slicereview.engines.imaging import dicom_checks, importer, isolated, parallel
from slicereview.store import Project

N = 40
TWO_CORES = parallel.decoding_children(N, importing.GROUP_FILES) == 2


@pytest.fixture()
def dicoms(tmp_path) -> list[Path]:
    folder = tmp_path / "dcm"
    folder.mkdir()
    ds = dcmread(get_testdata_file("MR_small.dcm"))
    for k in range(N):
        ds.InstanceNumber = k + 1  # unique bytes: no duplicates
        ds.save_as(folder / f"mr_{k:03d}.dcm")
    return sorted(folder.iterdir())


@pytest.fixture()
def slots_used(monkeypatch) -> list[int]:
    """The decoding child (slot) each group of an import went to."""
    used: list[int] = []
    real = importing.read_entries_many

    def recording(items, slices, *, slot=0, **kwargs):
        used.append(slot)
        return real(items, slices, slot=slot, **kwargs)

    monkeypatch.setattr(importing, "read_entries_many", recording)
    return used


def _names(project: Project) -> list[str]:
    return [Path(im.path).name for im in project.images.all()]


@pytest.mark.slow  # 4 s
@pytest.mark.skipif(not TWO_CORES, reason="one core: the import uses one decoding child")
def test_a_large_import_reads_on_two_children_and_keeps_the_file_order(
        location, tmp_path, dicoms, slots_used, monkeypatch):
    # Groups of exactly 8 files: a group is cut after 50 ms of hashing, which a loaded machine
    # (or a server's round trips) may reach first.
    monkeypatch.setattr(importing, "GROUP_PREPARE_S", 60.0)
    isolated.shutdown()  # the second child starts in the background during the first import
    with Project.create(location("a.srproj")) as project:
        report = import_paths(project, dicoms)
        assert report.added_files == N and not report.failed
        assert _names(project) == [f.name for f in dicoms]
    deadline = time.monotonic() + 120
    while not isolated.running(1) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert isolated.running(1)
    slots_used.clear()
    with Project.create(location("b.srproj")) as project:
        report = import_paths(project, [dicoms[0].parent])
        images = project.images.all()
    assert report.added_files == N and not report.failed
    assert sorted(set(slots_used)) == [0, 1]  # both children read groups
    assert len(slots_used) == -(-N // importing.GROUP_FILES)
    assert [Path(im.path).name for im in images] == [f.name for f in dicoms]
    assert [im.case_id for im in images] == [f"C{k:06d}" for k in range(1, N + 1)]
    assert all(im.info[DECODED_AT_IMPORT] for im in images)


@pytest.mark.slow  # 5 s
def test_a_file_that_crashes_a_child_is_refused_alone(location, tmp_path, dicoms, monkeypatch):
    isolated.shutdown()
    monkeypatch.setenv("SLICEREVIEW_TEST_CRASH_FILE", "mr_013.dcm")  # new children have it
    try:
        with Project.create(location("c.srproj")) as project:
            report = import_paths(project, dicoms)
            names = _names(project)
    finally:
        isolated.shutdown()
        isolated.forget_crashes()
    [(path, reason)] = report.failed
    assert Path(path).name == "mr_013.dcm" and "stopped abnormally on mr_013.dcm" in reason
    assert report.added_files == N - 1
    assert names == [f.name for f in dicoms if f.name != "mr_013.dcm"]


def test_files_are_committed_while_the_import_runs(location, tmp_path, dicoms, monkeypatch):
    monkeypatch.setattr(importing, "COMMIT_EVERY_S", 0.0)  # commit each group
    monkeypatch.setattr(importing, "GROUP_FILES", 4)
    path = location("d.srproj")
    committed: dict[int, int] = {}

    def progress(done, total, current):
        if done in (24, 36):  # another connection sees what was committed so far
            with Project.open(path, read_only=True) as other:
                committed[done] = other.counts()["sources"]

    with Project.create(path) as project:
        report = import_paths(project, dicoms, progress=progress)
    assert report.added_files == N
    # At most one group more than the children hold (LANES each) is read but not yet written
    # when a file is hashed.
    lag = (parallel.LANES * parallel.decoding_children(N, 4) + 1) * 4
    assert committed[24] >= 24 - lag and committed[36] >= 36 - lag
    assert 0 < committed[24] < committed[36]


def test_cancel_keeps_every_file_read_so_far_and_a_second_import_adds_the_rest(location,
        tmp_path, dicoms):
    seen: list[int] = []
    with Project.create(location("e.srproj")) as project:
        report = import_paths(project, dicoms, progress=lambda d, t, p: seen.append(d),
                              cancel=lambda: len(seen) >= 10)
        assert report.cancelled and report.added_files == 10 and not report.failed
        assert _names(project) == [f.name for f in dicoms[:10]]
        again = import_paths(project, dicoms)
        assert again.added_files == N - 10 and len(again.duplicates) == 10
        assert _names(project) == [f.name for f in dicoms]


def test_the_deflate_check_reads_pydicoms_file_meta_only_when_in_doubt(tmp_path, monkeypatch):
    asked: list[Path] = []
    real = dicom_checks._meta_end
    monkeypatch.setattr(dicom_checks, "_meta_end", lambda p: asked.append(p) or real(p))
    plain = Path(get_testdata_file("CT_small.dcm"))
    dicom_checks.check_deflated(plain)
    assert asked == []  # a plain file: decided from its first bytes
    deflated = Path(get_testdata_file("image_dfl.dcm"))
    assert not dicom_checks._surely_not_deflated(deflated)
    dicom_checks.check_deflated(deflated)  # (small: within the limits)
    assert asked == [deflated]
    # A file meta group longer than the bytes read first: pydicom decides.
    ds = dcmread(plain)
    ds.file_meta.add_new(0x00020102, "OB", bytes(40_000))  # Private Information
    big = tmp_path / "big_meta.dcm"
    ds.save_as(big)
    assert not dicom_checks._surely_not_deflated(big)
    # No preamble: pydicom decides too.
    assert not dicom_checks._surely_not_deflated(Path(get_testdata_file("no_meta.dcm")))


def test_the_group_reader_runs_the_reader_given(tmp_path, dicoms):
    """The in-process reader (tests, scripts) goes through the same reader as the children."""
    from functools import partial

    read = partial(importer.read_entries_many, isolated=False)
    with parallel.GroupReader(read, children=1) as reader:
        futures = [reader.submit([(f, "dicom")], importer.SliceSelection()) for f in dicoms[:3]]
        results = [f.result() for f in futures]
    assert [r[0][1][0].rows for r in results] == [64, 64, 64]


@pytest.mark.slow  # 3 s
def test_a_request_waiting_behind_a_crash_is_answered_by_a_new_child(tmp_path, monkeypatch):
    """Two requests in one child's pipe (an import's group and a thumbnail): the first crashes
    the child; the second is sent again to a new child, and only the first file is refused."""
    import shutil
    import threading

    from slicereview.engines.imaging.errors import DecoderCrashedError
    from slicereview.model import Image

    bad, good = tmp_path / "bad.dcm", tmp_path / "good.dcm"
    shutil.copy(get_testdata_file("MR_small.dcm"), bad)
    shutil.copy(get_testdata_file("CT_small.dcm"), good)
    isolated.shutdown()
    monkeypatch.setenv("SLICEREVIEW_TEST_CRASH_FILE", "bad.dcm")
    isolated.start(0)  # (a running child: the two requests go to the same one)
    sent = isolated._slots[0].tickets
    outcome: list[BaseException] = []

    def crash() -> None:
        try:
            isolated.read_entries(bad, "dicom", importer.SliceSelection())
        except DecoderCrashedError as exc:
            outcome.append(exc)

    first = threading.Thread(target=crash)
    try:
        first.start()
        while isolated._slots[0].tickets == sent:  # the crashing request is in the pipe
            time.sleep(0.001)
        thumb = isolated.thumbnail(good, Image(0, 0, "", "", "dicom"), 32)
        first.join(60)
        # (3 requests: the crash, the thumbnail lost with the child, the thumbnail again;
        # 2 when the child died before the thumbnail was sent)
        assert isolated._slots[0].tickets - sent in (2, 3)
        assert thumb.shape == (32, 32)
        [exc] = outcome
        assert "stopped abnormally on bad.dcm" in str(exc)
        assert isolated.known_crash(bad) and isolated.known_crash(good) is None
    finally:
        isolated.shutdown()
        isolated.forget_crashes()


@pytest.mark.slow  # 4 s
def test_an_interrupted_import_keeps_the_groups_handed_to_the_children(location,
        tmp_path, dicoms, monkeypatch):
    """Ctrl-C in the CLI raises KeyboardInterrupt in the progress callback: the groups handed
    to the children so far are read and committed before the interrupt goes on (the group
    being hashed is not: none of its files was read)."""
    monkeypatch.setattr(importing, "GROUP_PREPARE_S", 60.0)  # groups of exactly 8 files

    def progress(done, total, current):
        if done == 20:
            raise KeyboardInterrupt

    with Project.create(location("k.srproj")) as project:
        with pytest.raises(KeyboardInterrupt):
            import_paths(project, dicoms, progress=progress)
        assert _names(project) == [f.name for f in dicoms[:16]]


def test_a_store_error_rolls_back_its_transaction_and_stops_the_writing(
        location, tmp_path, dicoms, monkeypatch):
    """A failing write leaves no half-written file (a source without its image) and nothing
    after it; the files committed before stay."""
    monkeypatch.setattr(importing, "COMMIT_EVERY_S", 60.0)  # one transaction at the end
    monkeypatch.setattr(importing, "COMMIT_IDLE_S", 60.0)
    path = location("s.srproj")
    with Project.create(path) as project:
        real = project.images.add_source

        def add_source(file, *args, **kwargs):
            if Path(file).name == "mr_013.dcm":
                raise sqlite3.OperationalError("disk I/O error")
            return real(file, *args, **kwargs)

        monkeypatch.setattr(project.images, "add_source", add_source)
        with pytest.raises(sqlite3.OperationalError):
            import_paths(project, dicoms)
    with Project.open(path, read_only=True) as other:
        assert other.counts()["sources"] == other.counts()["images"] == 0


def test_no_transaction_stays_open_between_the_imports_writes(location, tmp_path, dicoms):
    """Another connection (the GUI recording an answer) can write while the import hashes
    files and waits for its decoding children: the import holds the project's write lock only
    while it writes."""
    path = location("w.srproj")
    writes: list[str] = []

    def progress(done, total, current):
        if done and done % 8 == 0:  # meanwhile, another connection writes
            with Project.open(path) as other:
                other.set_meta("probe", str(done))
            writes.append(str(done))

    with Project.create(path) as project:
        report = import_paths(project, dicoms, progress=progress)
        assert project.meta("probe") == "40"  # (the last progress call: done == total)
    assert report.added_files == N and writes == ["8", "16", "24", "32", "40"]
