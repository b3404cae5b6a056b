"""``project.blobs``: a file's bytes held once per SHA-256, in parts, on both backends; bytes
that are not the hashed content are refused, damaged stored bytes are noticed, deleting the
source deletes them, and a held file is never a missing one."""

from __future__ import annotations

import hashlib
import os

import pytest

from slicereview.model import NewImage
from slicereview.store import Project
from slicereview.store import blobs as blobs_module
from slicereview.store.blobs import ChangedFileError


def _source(project: Project, path, data: bytes) -> str:
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    project.images.add_source(path, sha, "png", [NewImage(1, 1)])
    return sha


def test_bytes_round_trip_in_parts_once_per_content(location, tmp_path, monkeypatch):
    monkeypatch.setattr(blobs_module, "PART_BYTES", 1000)  # several parts per file
    data = os.urandom(4567)
    with Project.create(location()) as project:
        sha = _source(project, tmp_path / "a.png", data)
        empty = _source(project, tmp_path / "empty.png", b"")
        assert project.blobs.held() == set() and not project.blobs.has(sha)
        assert project.blobs.put(sha, tmp_path / "a.png") == 4567
        assert project.blobs.put(sha, tmp_path / "a.png") == 0  # held already: not again
        assert project.blobs.put(empty, tmp_path / "empty.png") == 0
        assert project.blobs.held() == {sha, empty} and project.blobs.has(empty)
        parts = project.db.execute("SELECT count(*) FROM blobs WHERE sha256 = ?",
                                   (sha,)).fetchone()[0]
        assert parts == 5 and project.blobs.total_bytes() == 4567
    with Project.open(location(), read_only=True) as project:
        assert project.blobs.write_to(sha, tmp_path / "copy") == 4567
        assert (tmp_path / "copy").read_bytes() == data
        assert project.blobs.write_to(empty, tmp_path / "copy-empty") == 0
        assert (tmp_path / "copy-empty").read_bytes() == b""


def test_a_file_changed_since_its_hash_is_refused_and_nothing_kept(location, tmp_path):
    with Project.create(location()) as project:
        sha = _source(project, tmp_path / "a.png", b"imported bytes")
        (tmp_path / "a.png").write_bytes(b"other bytes")
        with pytest.raises(ChangedFileError, match="changed while it was imported"):
            project.blobs.put(sha, tmp_path / "a.png")
        assert project.blobs.held() == set() and project.blobs.total_bytes() == 0


def test_damaged_or_absent_bytes_are_noticed_and_leave_no_file(location, tmp_path):
    with Project.create(location()) as project:
        sha = _source(project, tmp_path / "a.png", b"imported bytes")
        project.blobs.put(sha, tmp_path / "a.png")
        with project.transaction():
            project.db.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (b"flipped", sha))
        with pytest.raises(ChangedFileError, match="damaged"):
            project.blobs.write_to(sha, tmp_path / "out")
        assert not (tmp_path / "out").exists()
        with pytest.raises(KeyError):
            project.blobs.write_to("0" * 64, tmp_path / "out")
        assert not (tmp_path / "out").exists()


def test_held_files_are_never_missing_and_go_with_their_source(location, tmp_path):
    with Project.create(location()) as project:
        held = _source(project, tmp_path / "a.png", b"a")
        _source(project, tmp_path / "b.png", b"b")
        project.blobs.put(held, tmp_path / "a.png")
        (tmp_path / "a.png").unlink()
        (tmp_path / "b.png").unlink()
        assert [project.images.resolve(s.path).name
                for s in project.images.missing_sources()] == ["b.png"]
        source = project.images.source_by_hash(held)
        project.images.remove_source(source.id)
        assert project.blobs.held() == set() and project.blobs.total_bytes() == 0
