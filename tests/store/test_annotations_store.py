"""Annotations, polygons and questions in the project file: exact save/load, transactions."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.app.annotating import label_image
from slicereview.engines.masks import rasterize
from slicereview.model import AnnotationStatus, Certainty, NewImage, Phase, Polygon
from slicereview.store import Project
from slicereview.store.annotations import blob_to_vertices, vertices_to_blob

SQUARE = np.array([[2, 3], [3, 3], [3, 4], [2, 4]], dtype=float)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "img.png").write_bytes(b"fake")
    p = Project.create(tmp_path / "p.srproj")
    p.add_source(tmp_path / "img.png", "a" * 64, "png", [NewImage(rows=20, cols=30)])
    p.add_rater("ann1")
    p.add_rater("ann2")
    yield p
    p.close()


def reopen(project):
    path = project.path
    project.close()
    return Project.open(path)


def test_annotation_for_creates_once(project):
    a = project.annotation_for(1, 1)
    assert a.status is AnnotationStatus.IN_PROGRESS and a.phase is Phase.FORMAL and a.round == 1
    assert project.annotation_for(1, 1) == a
    assert project.annotation_for(1, 1, Phase.PILOT, create=False) is None
    b = project.annotation_for(1, 1, "pilot", 2)
    assert b.id != a.id and b.phase is Phase.PILOT and b.round == 2
    with pytest.raises(KeyError):
        project.annotation(999)


def test_vertices_round_trip_bit_exact_across_reopen(project):
    rng = np.random.default_rng(3)
    odd = np.array([[0.1, 1 / 3], [np.pi, 1e-300], [-0.0, 5e300], [2 ** -1074, 7.0]])
    polys = [Polygon(SQUARE), Polygon(odd, Certainty.UNCERTAIN, label="x"),
             Polygon(rng.normal(0, 1e3, (2000, 2)), classifications={"type": ["vascular"]})]
    ann = project.annotation_for(1, 1)
    ids = [project.add_polygon(ann.id, p) for p in polys]
    before = rasterize(polys, (20, 30))
    project = reopen(project)
    loaded = project.polygons(ann.id)
    assert [p.id for p in loaded] == ids
    for p, q in zip(polys, loaded, strict=True):
        assert p == q  # vertices compared with array_equal, plus certainty/label/classes
        assert q.vertices.tobytes() == p.vertices.tobytes()  # includes the sign of -0.0
    np.testing.assert_array_equal(rasterize(loaded, (20, 30)), before)
    np.testing.assert_array_equal(label_image(project, ann.id), before)
    project.close()


@given(st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False),
                          st.floats(allow_nan=False, allow_infinity=False)), max_size=50))
def test_blob_is_little_endian_float64_and_exact(pts):
    v = np.array(pts, dtype=float).reshape(-1, 2)
    blob = vertices_to_blob(v)
    assert blob == v.astype("<f8").tobytes() and len(blob) == 16 * len(v)
    assert blob_to_vertices(blob).tobytes() == v.tobytes()


def test_nan_vertices_refused(project):
    ann = project.annotation_for(1, 1)
    with pytest.raises(ValueError):
        project.add_polygon(ann.id, Polygon(np.array([[0, 0], [1, np.nan], [1, 1]])))
    assert project.polygons(ann.id) == []


def test_add_at_position_update_delete_keep_order(project):
    ann = project.annotation_for(1, 1)
    a = project.add_polygon(ann.id, Polygon(SQUARE))
    b = project.add_polygon(ann.id, Polygon(SQUARE + 1))
    c = project.add_polygon(ann.id, Polygon(SQUARE + 2), position=0)
    assert [p.id for p in project.polygons(ann.id)] == [c, a, b]
    project.update_polygon(a, Polygon(SQUARE * 2, Certainty.UNCERTAIN, label="L"))
    got = project.polygon(a)
    assert got.certainty is Certainty.UNCERTAIN and got.label == "L"
    np.testing.assert_array_equal(got.vertices, SQUARE * 2)
    pos = project.delete_polygon(a)
    assert pos == 1 and [p.id for p in project.polygons(ann.id)] == [c, b]
    # undo of the delete: same id, same place
    assert project.add_polygon(ann.id, got, position=pos) == a
    assert [p.id for p in project.polygons(ann.id)] == [c, a, b]
    positions = [r[0] for r in project.conn.execute(
        "SELECT position FROM polygons WHERE annotation_id = ? ORDER BY position", (ann.id,))]
    assert positions == [0, 1, 2]
    with pytest.raises(KeyError):
        project.delete_polygon(12345)
    with pytest.raises(KeyError):
        project.update_polygon(12345, Polygon(SQUARE))


def test_replace_polygons_for_undo_redo(project):
    ann = project.annotation_for(1, 1)
    first = [Polygon(SQUARE), Polygon(SQUARE + 5, Certainty.UNCERTAIN)]
    ids = project.replace_polygons(ann.id, first)
    before = project.polygons(ann.id)
    after = [before[1], Polygon(SQUARE + 9)]  # the edit: drop one, add one
    new_ids = project.replace_polygons(ann.id, after)
    assert new_ids[0] == ids[1]
    assert project.polygons(ann.id) == [before[1], Polygon(SQUARE + 9)]
    # undo writes the old list back with the old ids
    assert project.replace_polygons(ann.id, before) == ids
    assert project.polygons(ann.id) == before
    assert project.replace_polygons(ann.id, []) == []
    assert project.polygons(ann.id) == []


def test_replace_does_not_steal_ids_of_other_annotations(project):
    a = project.annotation_for(1, 1)
    b = project.annotation_for(2, 1)
    pa = project.add_polygon(a.id, Polygon(SQUARE))
    [pb] = project.replace_polygons(b.id, [Polygon(SQUARE, id=pa)])
    assert pb != pa and len(project.polygons(a.id)) == 1


def test_a_failed_replace_changes_nothing(project):
    ann = project.annotation_for(1, 1)
    project.replace_polygons(ann.id, [Polygon(SQUARE)])
    stamp = project.annotation(ann.id).updated_at
    bad = Polygon(SQUARE)
    object.__setattr__(bad, "vertices", np.array([[np.inf, 0.0]] * 3))
    with pytest.raises(ValueError):
        project.replace_polygons(ann.id, [Polygon(SQUARE + 1), bad])
    assert project.polygons(ann.id) == [Polygon(SQUARE)]
    assert project.annotation(ann.id).updated_at == stamp


def test_status_time_and_classifications(project):
    ann = project.annotation_for(1, 1)
    assert project.add_active_time(ann.id, 1500) == 1500
    assert project.add_active_time(ann.id, 250) == 1750
    with pytest.raises(ValueError):
        project.add_active_time(ann.id, -1)
    project.set_annotation_status(ann.id, "nothing_to_annotate")
    assert project.annotation(ann.id).status is AnnotationStatus.NOTHING_TO_ANNOTATE
    # drawing afterwards means there was something after all
    pid = project.add_polygon(ann.id, Polygon(SQUARE))
    assert project.annotation(ann.id).status is AnnotationStatus.IN_PROGRESS
    with pytest.raises(ValueError, match="delete them"):
        project.set_annotation_status(ann.id, AnnotationStatus.NOTHING_TO_ANNOTATE)
    project.set_annotation_status(ann.id, AnnotationStatus.SUBMITTED)
    project.set_image_classifications(ann.id, {"density": "B", "findings": ["calc", "mass"]})
    project.set_polygon_classifications(pid, {"type": {"vascular": "linear"}})
    with pytest.raises(ValueError):
        project.set_image_classifications(ann.id, ["not", "a", "dict"])  # type: ignore[arg-type]
    project = reopen(project)
    a = project.annotation(ann.id)
    assert a.status is AnnotationStatus.SUBMITTED and a.active_ms == 1750
    assert a.classifications == {"density": "B", "findings": ["calc", "mass"]}
    assert project.polygon(pid).classifications == {"type": {"vascular": "linear"}}
    project.close()


def test_listing_for_review(project):
    a1 = project.annotation_for(1, 1)
    a2 = project.annotation_for(2, 1)
    project.annotation_for(1, 1, Phase.PILOT)
    project.add_polygon(a1.id, Polygon(SQUARE))
    project.set_annotation_status(a1.id, "submitted")
    project.set_annotation_status(a2.id, "nothing_to_annotate")
    assert [a.id for a in project.annotations(image_id=1, phase="formal")] == [a1.id, a2.id]
    assert len(project.annotations(image_id=1)) == 3
    assert [a.id for a in project.annotations(status="submitted")] == [a1.id]
    assert [a.id for a in project.annotations(rater_id=2)] == [a2.id]
    finished = project.image_annotations(1)
    assert [(a.rater_id, len(p)) for a, p in finished] == [(1, 1), (2, 0)]
    assert len(project.image_annotations(1, status=None)) == 3


def test_questions_crud(project):
    q1 = project.add_question("density", "Breast density", "radio", options=["A", "B", "C", "D"])
    tree = [{"value": "calcification", "children": [{"value": "vascular"}, {"value": "other"}]}]
    q2 = project.add_question("type", "Finding type", "dropdown", scope="polygon", options=tree)
    q3 = project.add_question("notes", "Notes", "text")
    assert [q.name for q in project.questions()] == ["density", "type", "notes"]
    assert [q.id for q in project.questions(scope="polygon")] == [q2]
    assert project.question(q2).options == tree
    project.update_question(q3, title="Free notes", position=0)
    assert [q.id for q in project.questions()] == [q3, q1, q2]
    assert project.question(q3).title == "Free notes"
    project.update_question(q1, kind="checklist", options=["A", "B"])
    assert project.question(q1).kind == "checklist" and project.question(q1).options == ["A", "B"]
    with pytest.raises(ValueError):
        project.add_question("x", "X", "slider")
    with pytest.raises(ValueError):
        project.add_question("y", "Y", "radio", options=[])
    with pytest.raises(ValueError):
        project.update_question(q1, scope="box")
    with pytest.raises(sqlite3.IntegrityError):
        project.add_question("density", "again", "text")
    project.delete_question(q2)
    assert [q.id for q in project.questions()] == [q3, q1]
    with pytest.raises(KeyError):
        project.delete_question(q2)
