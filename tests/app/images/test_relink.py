"""Image paths in the project: relative below the project folder, relinking moved folders."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from slicereview.app.images.importing import relink
from slicereview.model import NewImage
from slicereview.store import Project

#: What only a project file has: image paths relative to its folder (a server stores absolute
#: paths).
RELATIVE = pytest.mark.file_only("image paths relative to a project file's folder")


def add_file(project: Project, path: Path, payload: bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(payload)
    project.images.add_source(path, hashlib.sha256(payload).hexdigest(), "dicom", [NewImage(4, 4)])
    return project.images.sources()[-1].id


@RELATIVE
def test_paths_below_project_folder_are_relative(tmp_path: Path):
    with Project.create(tmp_path / "proj" / "p.srproj") as project:
        add_file(project, tmp_path / "proj" / "data" / "a" / "x.dcm", b"inside")
        add_file(project, tmp_path / "elsewhere" / "y.dcm", b"outside")
        inside, outside = (s.path for s in project.images.sources())
        assert inside == "data/a/x.dcm"  # forward slashes, relative
        assert Path(outside).is_absolute() and outside.endswith("/elsewhere/y.dcm")
        assert project.images.resolve(inside) == tmp_path / "proj" / "data" / "a" / "x.dcm"
        assert project.images.missing_sources() == []


@RELATIVE
def test_moving_project_with_its_data_needs_no_relink(tmp_path: Path):
    with Project.create(tmp_path / "proj" / "p.srproj") as project:
        for k in range(3):
            add_file(project, tmp_path / "proj" / "data" / f"s{k}" / "img.dcm", b"v%d" % k)
    shutil.copytree(tmp_path / "proj", tmp_path / "moved" / "proj")
    shutil.rmtree(tmp_path / "proj")
    with Project.open(tmp_path / "moved" / "proj" / "p.srproj") as project:
        assert project.images.missing_sources() == []


def _study(root: Path) -> dict[str, bytes]:
    # Same file name in two series, with different content: only the path tail tells them apart.
    files = {
        "study/s1/img.dcm": b"series one",
        "study/s2/img.dcm": b"series two",
        "study/s2/other.dcm": b"series two, other",
    }
    for rel, payload in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(payload)
    return files


def test_relink_moved_folder_by_path_tail_and_hash(location, tmp_path: Path):
    old = tmp_path / "old"
    files = _study(old)
    with Project.create(location("proj/p.srproj")) as project:
        for rel, payload in files.items():
            project.images.add_source(old / rel, hashlib.sha256(payload).hexdigest(), "dicom",
                                      [NewImage(4, 4)])
        old.rename(tmp_path / "new")
        assert len(project.images.missing_sources()) == 3
        report = relink(project, tmp_path / "new")
        assert (report.relinked, report.still_missing, report.hash_mismatch) == (3, [], [])
        assert project.images.missing_sources() == []
        by_hash = {s.sha256: s.path for s in project.images.sources()}
        for rel, payload in files.items():
            expected = (tmp_path / "new" / rel).as_posix()
            assert by_hash[hashlib.sha256(payload).hexdigest()] == expected
    with Project.open(location("proj/p.srproj")) as project:  # committed
        assert project.images.missing_sources() == []


@RELATIVE
def test_relink_into_project_folder_stores_relative_paths(tmp_path: Path):
    old = tmp_path / "old"
    files = _study(old)
    with Project.create(tmp_path / "proj" / "p.srproj") as project:
        for rel, payload in files.items():
            project.images.add_source(old / rel, hashlib.sha256(payload).hexdigest(), "dicom",
                                      [NewImage(4, 4)])
        shutil.move(old, tmp_path / "proj" / "images")
        report = relink(project, tmp_path / "proj" / "images")
        assert report.relinked == 3
        assert sorted(s.path for s in project.images.sources()) == sorted(
            f"images/{rel}" for rel in files
        )


def test_relink_reports_missing_and_mismatched_files(location, tmp_path: Path):
    old = tmp_path / "old"
    files = _study(old)
    with Project.create(location("proj/p.srproj")) as project:
        for rel, payload in files.items():
            project.images.add_source(old / rel, hashlib.sha256(payload).hexdigest(), "dicom",
                                      [NewImage(4, 4)])
        new = tmp_path / "new"
        (new / "study" / "s1").mkdir(parents=True)
        (new / "study" / "s1" / "img.dcm").write_bytes(b"series one")  # the right file
        (new / "study" / "s2").mkdir(parents=True)
        (new / "study" / "s2" / "img.dcm").write_bytes(b"edited!")  # same name, other bytes
        shutil.rmtree(old)
        before = {s.id: s.path for s in project.images.sources()}
        report = relink(project, new)
        assert report.relinked == 1
        assert report.hash_mismatch == [str(new / "study" / "s2" / "img.dcm")]
        assert report.still_missing == [(old / "study" / "s2" / "other.dcm").as_posix()]
        after = {s.id: s.path for s in project.images.sources()}
        # The mismatched and the missing file keep their old paths; they are still missing.
        changed = {k for k in before if before[k] != after[k]}
        assert len(changed) == 1
        assert len(project.images.missing_sources()) == 2


def test_relink_without_verify_accepts_a_changed_file(location, tmp_path: Path):
    with Project.create(location("p.srproj")) as project:
        add_file(project, tmp_path / "old" / "a.dcm", b"original")
        shutil.rmtree(tmp_path / "old")
        (tmp_path / "new").mkdir()
        (tmp_path / "new" / "a.dcm").write_bytes(b"re-exported")
        assert relink(project, tmp_path / "new", verify=False).relinked == 1
        assert project.images.missing_sources() == []


def test_relink_finds_a_flattened_copy(location, tmp_path: Path):
    with Project.create(location("proj/p.srproj")) as project:
        add_file(project, tmp_path / "old" / "deep" / "er" / "a.dcm", b"aaa")
        shutil.rmtree(tmp_path / "old")
        (tmp_path / "flat").mkdir()
        (tmp_path / "flat" / "a.dcm").write_bytes(b"aaa")
        report = relink(project, tmp_path / "flat")
        assert report.relinked == 1
        assert project.images.sources()[0].path == (tmp_path / "flat" / "a.dcm").as_posix()


def test_relink_with_nothing_missing_changes_nothing(location, tmp_path: Path):
    with Project.create(location("p.srproj")) as project:
        add_file(project, tmp_path / "d" / "a.dcm", b"a")
        before = project.images.sources()
        report = relink(project, tmp_path)
        assert (report.relinked, report.still_missing, report.hash_mismatch) == (0, [], [])
        assert project.images.sources() == before


@RELATIVE
def test_relink_relative_path_moved_out_of_project_folder(tmp_path: Path):
    with Project.create(tmp_path / "proj" / "p.srproj") as project:
        add_file(project, tmp_path / "proj" / "data" / "a" / "x.dcm", b"xx")
        assert project.images.sources()[0].path == "data/a/x.dcm"
        shutil.move(tmp_path / "proj" / "data", tmp_path / "archive")
        assert relink(project, tmp_path / "archive").relinked == 1
        assert project.images.sources()[0].path == (tmp_path / "archive" / "a" / "x.dcm").as_posix()
        assert project.images.missing_sources() == []


def test_relink_searches_below_new_root_for_a_renamed_folder(location, tmp_path: Path):
    # The user renamed the data folder and points relink at its parent: the tail of the old
    # path no longer matches, so files are found by name below NEW_ROOT and chosen by hash.
    old = tmp_path / "old"
    files = _study(old)
    with Project.create(location("proj/p.srproj")) as project:
        for rel, payload in files.items():
            project.images.add_source(old / rel, hashlib.sha256(payload).hexdigest(), "dicom",
                                      [NewImage(4, 4)])
        (tmp_path / "disk").mkdir()
        old.rename(tmp_path / "disk" / "renamed")
        (tmp_path / "disk" / "renamed" / "study").rename(tmp_path / "disk" / "renamed" / "s")
        report = relink(project, tmp_path / "disk")
        assert (report.relinked, report.still_missing, report.hash_mismatch) == (3, [], [])
        by_hash = {s.sha256: s.path for s in project.images.sources()}
        for rel, payload in files.items():
            expected = (tmp_path / "disk" / "renamed" / "s" / Path(rel).relative_to("study"))
            assert by_hash[hashlib.sha256(payload).hexdigest()] == expected.as_posix()


def test_relink_by_name_without_verify_needs_a_unique_name(location, tmp_path: Path):
    old = tmp_path / "old"
    files = _study(old)  # two files named img.dcm
    with Project.create(location("proj/p.srproj")) as project:
        for rel, payload in files.items():
            project.images.add_source(old / rel, hashlib.sha256(payload).hexdigest(), "dicom",
                                      [NewImage(4, 4)])
        old.rename(tmp_path / "x")
        (tmp_path / "x" / "study").rename(tmp_path / "x" / "y")
        report = relink(project, tmp_path, verify=False)
        # other.dcm is unique below tmp_path; the two img.dcm are ambiguous without hashes.
        assert report.relinked == 1
        assert sorted(report.still_missing) == sorted(
            (old / rel).as_posix() for rel in files if rel.endswith("img.dcm"))
