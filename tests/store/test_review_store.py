"""Review store: the v2 migration, decisions and pins, the features cache."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from slicereview.model import Decision, NewImage
from slicereview.store import Project
from slicereview.store.connection import _statements
from slicereview.store.schema import _V1, APPLICATION_ID, SCHEMA_VERSION


def _v1_file(path: Path) -> None:
    """A version-1 project file (as the previous release wrote it) with one old review."""
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in _statements(_V1):
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO sources (path, sha256, format, size_bytes, added_at) "
                 "VALUES ('x.png', 'aa', 'png', 1, '2025-01-01')")
    conn.execute("INSERT INTO images (source_id, case_id, rows, cols) VALUES (1, 'C000001', 4, 4)")
    conn.execute("INSERT INTO raters (name, role) VALUES ('boss', 'reviewer')")
    conn.execute("INSERT INTO reviews (image_id, reviewer_id, decision, comment, created_at) "
                 "VALUES (1, 1, NULL, 'old note', '2025-01-01')")
    conn.close()


@pytest.mark.file_only("a format-1 file made with raw SQLite; test_server.py migrates a server")
def test_version_1_file_upgrades_keeping_reviews(tmp_path: Path):
    path = tmp_path / "old.srproj"
    _v1_file(path)
    with Project.open(path) as project:
        assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 2
        [old] = project.reviews.all()
        assert old.comment == "old note" and old.active_ms == 0 and old.pin_kind is None
        project.reviews.store_features("formal", 0, "all", "relaxed", [(1, "k", {"x": 1})])
        assert project.reviews.features("formal", 0, "all", "relaxed") == {1: ("k", {"x": 1})}


@pytest.fixture
def project(location, tmp_path: Path):
    p = Project.create(location("p.srproj"))
    (tmp_path / "x.png").write_bytes(b"png")
    p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                        [NewImage(8, 8, frame=k) for k in range(2)])
    yield p
    p.close()


def test_decisions_history_and_current(project: Project):
    boss = project.raters.add("boss", "reviewer")
    ann = project.annotations.for_image(project.raters.add("ann"), 1)
    first = project.reviews.add(1, boss, annotation_id=ann.id, decision="reject", tags=["x"],
                                alphas={"strict_alpha": 0.5}, active_ms=1200)
    second = project.reviews.add(1, boss, annotation_id=ann.id, decision="accept")
    current = project.reviews.current_decisions()
    assert current[ann.id].id == second and current[ann.id].decision is Decision.ACCEPT
    project.reviews.delete(second)
    again = project.reviews.current_decisions([ann.id])[ann.id]
    assert again.id == first and again.tags == ("x",) and again.alphas == {"strict_alpha": 0.5}
    assert again.active_ms == 1200
    # redo restores the same id
    assert project.reviews.add(1, boss, annotation_id=ann.id, decision="accept",
                               review_id=second) == second


def test_consistency_checks(project: Project):
    boss = project.raters.add("boss", "reviewer")
    ann = project.annotations.for_image(project.raters.add("ann"), 1)
    with pytest.raises(ValueError, match="not on image"):
        project.reviews.add(2, boss, annotation_id=ann.id, decision="accept")
    with pytest.raises(ValueError, match="annotation_id"):
        project.reviews.add(1, boss, decision="accept")
    with pytest.raises(ValueError, match="box"):
        project.reviews.add(1, boss, comment="c", pin_kind="box", pin_at=(1, 2))
    with pytest.raises(KeyError):
        project.reviews.delete(999)
    assert project.reviews.all() == []


def test_pins_round_trip(project: Project):
    boss = project.raters.add("boss", "reviewer")
    rid = project.reviews.add(2, boss, comment="look", tags=["calc"], pin_kind="point",
                              pin_at=(3.5, 4))
    [pin] = project.reviews.all(image_id=2)
    assert pin.id == rid and pin.is_pin and pin.pin_at == (3.5, 4.0) and pin.commented
    assert pin.decision is None


def test_features_cache_replaces_and_is_keyed(project: Project):
    project.reviews.store_features("formal", 0, "all", "relaxed", [(1, "a", {"v": 1})])
    project.reviews.store_features("formal", 0, "all", "relaxed", [(1, "b", {"v": 2})])
    project.reviews.store_features("formal", 0, "all", "strict", [(1, "c", {"v": 3})])
    assert project.reviews.features("formal", 0, "all", "relaxed") == {1: ("b", {"v": 2})}
    assert project.reviews.features("formal", 1, "all", "relaxed") == {}
    assert project.reviews.latest_features(1) in ({"v": 2}, {"v": 3})
    assert project.reviews.latest_features(2) is None
    assert project.images.cases()[2] == ("C000002", 8, 8)
