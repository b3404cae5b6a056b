"""What every project does, on a file and on a server: reopening, refusing to create over an
existing project, foreign keys, one transaction per intent (a failure rolls back all of it,
a nested call joins the outer transaction) and commits another connection sees at once."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from slicereview.model import NewImage
from slicereview.store import NotAProjectError, Project


def add_file(project: Project, path: Path, payload: bytes, n_images: int = 1) -> list[int]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    frames = [NewImage(rows=8, cols=8, frame=k) for k in range(n_images)]
    return project.images.add_source(path, digest, "png", frames)


@pytest.fixture
def study(location, tmp_path: Path):
    """A project with raters, images and guidelines."""
    where = location("study.srproj")
    with Project.create(where, name="study") as project:
        for k in range(40):
            project.raters.add(f"rater-{k:03d}-" + "x" * 100, "annotator", group="g1")
        for k in range(12):
            add_file(project, tmp_path / "data" / f"img{k}.png", bytes([k]) * 300, n_images=3)
        for k in range(30):
            project.guidelines.add(f"version {k}: " + "outline every lesion. " * 40)
    return where


def test_create_and_reopen_round_trip(study):
    with Project.open(study) as project:
        assert project.name == "study"
        assert project.meta("created_by", "").startswith("slicereview ")
        assert len(project.raters.all()) == 40
        assert project.raters.all()[3].group == "g1"
        images = project.images.all()
        assert len(images) == 36
        assert images[0].case_id == "C000001" and images[-1].case_id == "C000036"
        assert project.guidelines.get() == (30, "version 29: " + "outline every lesion. " * 40)
        assert project.images.missing_sources() == []
    with Project.open(study) as project:  # a second reopen sees the same
        assert project.counts()["images"] == 36


def test_create_refuses_an_existing_project(study):
    with pytest.raises(FileExistsError, match="already"):
        Project.create(study)
    with Project.open(study) as project:
        assert len(project.raters.all()) == 40


def test_a_missing_project_is_a_clear_error(location):
    with pytest.raises((FileNotFoundError, NotAProjectError), match="slicereview new"):
        Project.open(location("nope.srproj"))


def test_foreign_keys_are_enforced(study):
    with Project.open(study) as project:
        with pytest.raises(project.db.IntegrityError), project.transaction():
            project.db.execute(
                "INSERT INTO images (source_id, case_id, rows, cols) VALUES (999, 'X', 1, 1)"
            )
        # ON DELETE CASCADE works only with foreign keys on.
        source_id = project.images.sources()[0].id
        with project.transaction():
            project.db.execute("DELETE FROM sources WHERE id = ?", (source_id,))
        assert project.counts()["images"] == 33


def test_store_method_failure_rolls_back_whole_intent(study, tmp_path: Path):
    with Project.open(study) as project:
        counts = project.counts()
        file = tmp_path / "dup.png"
        file.write_bytes(b"dup")
        # The second frame collides with the first (UNIQUE source/frame/axis/slice): the source
        # row inserted before it must go too.
        with pytest.raises(project.db.IntegrityError):
            project.images.add_source(file, "f" * 64, "png", [NewImage(4, 4), NewImage(4, 4)])
        assert project.counts() == counts
        assert not project.db.in_transaction
        project.raters.add("after the failure")  # the connection works on


def test_outer_transaction_rolls_back_nested_store_calls(study):
    with Project.open(study) as project:
        with pytest.raises(RuntimeError, match="boom"), project.transaction():
            project.raters.add("new-rater")
            project.guidelines.add("new text")
            assert project.raters.by_name("new-rater") is not None  # visible inside
            raise RuntimeError("boom")
        assert project.raters.by_name("new-rater") is None
        assert project.guidelines.get()[0] == 30
    with Project.open(study) as project:  # and nothing was committed
        assert project.raters.by_name("new-rater") is None


def test_each_store_call_commits_before_returning(study):
    with Project.open(study) as project, Project.open(study, read_only=True) as other:
        rater_id = project.raters.add("committed")
        # A second connection sees it at once: it is committed, not pending.
        assert other.raters.get(rater_id).name == "committed"


def test_a_read_only_project_refuses_writes(study):
    with Project.open(study, read_only=True) as project, pytest.raises(
            Exception, match="(?i)read.?only"):
        project.raters.add("intruder")
    with Project.open(study) as project:
        assert project.raters.by_name("intruder") is None
