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


def test_version_1_file_upgrades_keeping_reviews(tmp_path: Path):
    path = tmp_path / "old.srproj"
    _v1_file(path)
    with Project.open(path) as project:
        assert project.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 2
        [old] = project.reviews()
        assert old.comment == "old note" and old.active_ms == 0 and old.pin_kind is None
        project.store_review_features("formal", 0, "all", "relaxed", [(1, "k", {"x": 1})])
        assert project.review_features("formal", 0, "all", "relaxed") == {1: ("k", {"x": 1})}


@pytest.fixture
def project(tmp_path: Path):
    p = Project.create(tmp_path / "p.srproj")
    (tmp_path / "x.png").write_bytes(b"png")
    p.add_source(tmp_path / "x.png", "0" * 64, "png", [NewImage(8, 8, frame=k) for k in range(2)])
    yield p
    p.close()


def test_decisions_history_and_current(project: Project):
    boss = project.add_rater("boss", "reviewer")
    ann = project.annotation_for(project.add_rater("ann"), 1)
    first = project.add_review(1, boss, annotation_id=ann.id, decision="reject", tags=["x"],
                               alphas={"strict_alpha": 0.5}, active_ms=1200)
    second = project.add_review(1, boss, annotation_id=ann.id, decision="accept")
    current = project.current_decisions()
    assert current[ann.id].id == second and current[ann.id].decision is Decision.ACCEPT
    project.delete_review(second)
    again = project.current_decisions([ann.id])[ann.id]
    assert again.id == first and again.tags == ("x",) and again.alphas == {"strict_alpha": 0.5}
    assert again.active_ms == 1200
    # redo restores the same id
    assert project.add_review(1, boss, annotation_id=ann.id, decision="accept",
                              review_id=second) == second


def test_consistency_checks(project: Project):
    boss = project.add_rater("boss", "reviewer")
    ann = project.annotation_for(project.add_rater("ann"), 1)
    with pytest.raises(ValueError, match="not on image"):
        project.add_review(2, boss, annotation_id=ann.id, decision="accept")
    with pytest.raises(ValueError, match="annotation_id"):
        project.add_review(1, boss, decision="accept")
    with pytest.raises(ValueError, match="box"):
        project.add_review(1, boss, comment="c", pin_kind="box", pin_at=(1, 2))
    with pytest.raises(KeyError):
        project.delete_review(999)
    assert project.reviews() == []


def test_pins_round_trip(project: Project):
    boss = project.add_rater("boss", "reviewer")
    rid = project.add_review(2, boss, comment="look", tags=["calc"], pin_kind="point",
                             pin_at=(3.5, 4))
    [pin] = project.reviews(image_id=2)
    assert pin.id == rid and pin.is_pin and pin.pin_at == (3.5, 4.0) and pin.commented
    assert pin.decision is None


def test_features_cache_replaces_and_is_keyed(project: Project):
    project.store_review_features("formal", 0, "all", "relaxed", [(1, "a", {"v": 1})])
    project.store_review_features("formal", 0, "all", "relaxed", [(1, "b", {"v": 2})])
    project.store_review_features("formal", 0, "all", "strict", [(1, "c", {"v": 3})])
    assert project.review_features("formal", 0, "all", "relaxed") == {1: ("b", {"v": 2})}
    assert project.review_features("formal", 1, "all", "relaxed") == {}
    assert project.latest_review_features(1) in ({"v": 2}, {"v": 3})
    assert project.latest_review_features(2) is None
    assert project.image_cases()[2] == ("C000002", 8, 8)
