"""Schema version 3: repeats (annotations.repeat_of), the v2 → v3 migration, store methods."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from slicereview.model import NewImage
from slicereview.store import Project
from slicereview.store.connection import _statements
from slicereview.store.schema import _V1, _V2, APPLICATION_ID, SCHEMA_VERSION


def _v2_file(path: Path) -> None:
    """A version-2 file (as the previous release wrote it) with two annotations and a review."""
    conn = sqlite3.connect(path, isolation_level=None)
    for script in (_V1, _V2):
        for statement in _statements(script):
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 2")
    conn.execute("INSERT INTO sources (path, sha256, format, size_bytes, added_at) "
                 "VALUES ('x.png', 'aa', 'png', 1, '2025-01-01')")
    conn.execute("INSERT INTO images (source_id, case_id, rows, cols) VALUES (1, 'C000001', 4, 4)")
    conn.execute("INSERT INTO raters (name, role) VALUES ('ann', 'annotator')")
    conn.execute("INSERT INTO raters (name, role) VALUES ('boss', 'reviewer')")
    for rnd in (1, 2):
        conn.execute("INSERT INTO annotations (rater_id, image_id, round, status, updated_at) "
                     f"VALUES (1, 1, {rnd}, 'submitted', '2025-01-0{rnd}')")
    conn.execute("INSERT INTO reviews (image_id, reviewer_id, annotation_id, decision, tags, "
                 "created_at) VALUES (1, 2, 1, 'reject', '[\"x\"]', '2025-01-02')")
    conn.close()


@pytest.mark.file_only("a format-2 file made with raw SQLite; test_server.py migrates a server")
def test_version_2_file_upgrades(tmp_path: Path):
    path = tmp_path / "old.srproj"
    _v2_file(path)
    with Project.open(path) as project:
        assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 3
        old = project.annotations.all()
        assert [(a.round, a.repeat_of) for a in old] == [(1, None), (2, None)]
        assert len(project.reviews.all()) == 1
        again = project.repeats.create(old[0].id)
        assert again.round == -1 and again.repeat_of == old[0].id
        assert project.repeats.pairs() == [(old[0], again)]
    # and it opens again, checked against the version-3 schema
    with Project.open(path, read_only=True) as project:
        assert len(project.annotations.all(repeats=None)) == 3


@pytest.fixture
def project(location, tmp_path: Path):
    (tmp_path / "x.png").write_bytes(b"png")
    p = Project.create(location("p.srproj"))
    p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                        [NewImage(8, 8, frame=k) for k in range(2)])
    yield p
    p.close()


def test_one_repeat_per_annotation_and_no_repeat_of_a_repeat(project: Project):
    ann = project.raters.add("ann")
    first = project.annotations.for_image(ann, 1)
    again = project.repeats.create(first.id)
    assert project.repeats.create(first.id) == again  # the existing one
    assert project.repeats.of(first.id) == again and project.repeats.of(again.id) is None
    with pytest.raises(ValueError, match="itself a repeat"):
        project.repeats.create(again.id)
    with pytest.raises(project.db.IntegrityError), project.transaction():
        project.db.execute(
            "INSERT INTO annotations (rater_id, image_id, round, updated_at, repeat_of) "
            "VALUES (?, 2, 1, 'x', ?)", (ann, first.id))


def test_repeats_stay_out_of_inter_rater_listings(project: Project):
    ann = project.raters.add("ann")
    first = project.annotations.for_image(ann, 1)
    project.annotations.set_status(first.id, "submitted")
    first = project.annotations.get(first.id)
    again = project.repeats.create(first.id)
    project.annotations.set_status(again.id, "nothing_to_annotate")
    again = project.annotations.get(again.id)
    assert project.annotations.all() == [first]
    assert project.annotations.all(repeats=True) == [again]
    assert [a for a, _ in project.annotations.with_polygons(1)] == [first]
    # a revision (round 2) does not collide with the repeat's round -1
    revision = project.annotations.for_image(ann, 1, round=2)
    assert revision is not None and revision.repeat_of is None
    assert project.repeats.pairs(status=["submitted", "nothing_to_annotate"]) == [(first, again)]
    project.annotations.set_status(first.id, "in_progress")
    assert project.repeats.pairs(status=["submitted", "nothing_to_annotate"]) == []
