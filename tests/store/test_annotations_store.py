"""Annotations, polygons and questions in the project file: exact save/load, transactions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.app.annotating import label_image
from slicereview.engines.masks import rasterize
from slicereview.model import AnnotationStatus, Certainty, NewImage, Phase, Polygon
from slicereview.store import Project
from slicereview.store.polygons import blob_to_vertices, vertices_to_blob

SQUARE = np.array([[2, 3], [3, 3], [3, 4], [2, 4]], dtype=float)


@pytest.fixture
def project(location, tmp_path):
    (tmp_path / "img.png").write_bytes(b"fake")
    p = Project.create(location("p.srproj"))
    p.images.add_source(tmp_path / "img.png", "a" * 64, "png", [NewImage(rows=20, cols=30)])
    p.raters.add("ann1")
    p.raters.add("ann2")
    yield p
    p.close()


def reopen(project):
    where = project.location
    project.close()
    return Project.open(where)


def test_annotation_for_creates_once(project):
    a = project.annotations.for_image(1, 1)
    assert a.status is AnnotationStatus.IN_PROGRESS and a.phase is Phase.FORMAL and a.round == 1
    assert project.annotations.for_image(1, 1) == a
    assert project.annotations.for_image(1, 1, Phase.PILOT, create=False) is None
    b = project.annotations.for_image(1, 1, "pilot", 2)
    assert b.id != a.id and b.phase is Phase.PILOT and b.round == 2
    with pytest.raises(KeyError):
        project.annotations.get(999)


def test_vertices_round_trip_bit_exact_across_reopen(project):
    rng = np.random.default_rng(3)
    odd = np.array([[0.1, 1 / 3], [np.pi, 1e-300], [-0.0, 5e300], [2 ** -1074, 7.0]])
    polys = [Polygon(SQUARE), Polygon(odd, Certainty.UNCERTAIN, label="x"),
             Polygon(rng.normal(0, 1e3, (2000, 2)), classifications={"type": ["vascular"]})]
    ann = project.annotations.for_image(1, 1)
    ids = [project.polygons.add(ann.id, p) for p in polys]
    before = rasterize(polys, (20, 30))
    project = reopen(project)
    loaded = project.polygons.of(ann.id)
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
    ann = project.annotations.for_image(1, 1)
    with pytest.raises(ValueError):
        project.polygons.add(ann.id, Polygon(np.array([[0, 0], [1, np.nan], [1, 1]])))
    assert project.polygons.of(ann.id) == []


def test_add_at_position_update_delete_keep_order(project):
    ann = project.annotations.for_image(1, 1)
    a = project.polygons.add(ann.id, Polygon(SQUARE))
    b = project.polygons.add(ann.id, Polygon(SQUARE + 1))
    c = project.polygons.add(ann.id, Polygon(SQUARE + 2), position=0)
    assert [p.id for p in project.polygons.of(ann.id)] == [c, a, b]
    project.polygons.update(a, Polygon(SQUARE * 2, Certainty.UNCERTAIN, label="L"))
    got = project.polygons.get(a)
    assert got.certainty is Certainty.UNCERTAIN and got.label == "L"
    np.testing.assert_array_equal(got.vertices, SQUARE * 2)
    pos = project.polygons.delete(a)
    assert pos == 1 and [p.id for p in project.polygons.of(ann.id)] == [c, b]
    # undo of the delete: same id, same place
    assert project.polygons.add(ann.id, got, position=pos) == a
    assert [p.id for p in project.polygons.of(ann.id)] == [c, a, b]
    positions = [r[0] for r in project.db.execute(
        "SELECT position FROM polygons WHERE annotation_id = ? ORDER BY position", (ann.id,))]
    assert positions == [0, 1, 2]
    with pytest.raises(KeyError):
        project.polygons.delete(12345)
    with pytest.raises(KeyError):
        project.polygons.update(12345, Polygon(SQUARE))


def test_replace_polygons_for_undo_redo(project):
    ann = project.annotations.for_image(1, 1)
    first = [Polygon(SQUARE), Polygon(SQUARE + 5, Certainty.UNCERTAIN)]
    ids = project.polygons.replace(ann.id, first)
    before = project.polygons.of(ann.id)
    after = [before[1], Polygon(SQUARE + 9)]  # the edit: drop one, add one
    new_ids = project.polygons.replace(ann.id, after)
    assert new_ids[0] == ids[1]
    assert project.polygons.of(ann.id) == [before[1], Polygon(SQUARE + 9)]
    # undo writes the old list back with the old ids
    assert project.polygons.replace(ann.id, before) == ids
    assert project.polygons.of(ann.id) == before
    assert project.polygons.replace(ann.id, []) == []
    assert project.polygons.of(ann.id) == []


def test_replace_does_not_steal_ids_of_other_annotations(project):
    a = project.annotations.for_image(1, 1)
    b = project.annotations.for_image(2, 1)
    pa = project.polygons.add(a.id, Polygon(SQUARE))
    [pb] = project.polygons.replace(b.id, [Polygon(SQUARE, id=pa)])
    assert pb != pa and len(project.polygons.of(a.id)) == 1


def test_a_failed_replace_changes_nothing(project):
    ann = project.annotations.for_image(1, 1)
    project.polygons.replace(ann.id, [Polygon(SQUARE)])
    stamp = project.annotations.get(ann.id).updated_at
    bad = Polygon(SQUARE)
    object.__setattr__(bad, "vertices", np.array([[np.inf, 0.0]] * 3))
    with pytest.raises(ValueError):
        project.polygons.replace(ann.id, [Polygon(SQUARE + 1), bad])
    assert project.polygons.of(ann.id) == [Polygon(SQUARE)]
    assert project.annotations.get(ann.id).updated_at == stamp


def test_status_time_and_classifications(project):
    ann = project.annotations.for_image(1, 1)
    assert project.annotations.add_active_time(ann.id, 1500) == 1500
    assert project.annotations.add_active_time(ann.id, 250) == 1750
    with pytest.raises(ValueError):
        project.annotations.add_active_time(ann.id, -1)
    project.annotations.set_status(ann.id, "nothing_to_annotate")
    assert project.annotations.get(ann.id).status is AnnotationStatus.NOTHING_TO_ANNOTATE
    # drawing afterwards means there was something after all
    pid = project.polygons.add(ann.id, Polygon(SQUARE))
    assert project.annotations.get(ann.id).status is AnnotationStatus.IN_PROGRESS
    with pytest.raises(ValueError, match="delete them"):
        project.annotations.set_status(ann.id, AnnotationStatus.NOTHING_TO_ANNOTATE)
    project.annotations.set_status(ann.id, AnnotationStatus.SUBMITTED)
    project.annotations.set_image_classifications(ann.id, {"density": "B",
                                                           "findings": ["calc", "mass"]})
    project.polygons.set_classifications(pid, {"type": {"vascular": "linear"}})
    with pytest.raises(ValueError):
        project.annotations.set_image_classifications(ann.id, ["not", "a", "dict"])  # type: ignore[arg-type]
    project = reopen(project)
    a = project.annotations.get(ann.id)
    assert a.status is AnnotationStatus.SUBMITTED and a.active_ms == 1750
    assert a.classifications == {"density": "B", "findings": ["calc", "mass"]}
    assert project.polygons.get(pid).classifications == {"type": {"vascular": "linear"}}
    project.close()


def test_listing_for_review(project):
    a1 = project.annotations.for_image(1, 1)
    a2 = project.annotations.for_image(2, 1)
    project.annotations.for_image(1, 1, Phase.PILOT)
    project.polygons.add(a1.id, Polygon(SQUARE))
    project.annotations.set_status(a1.id, "submitted")
    project.annotations.set_status(a2.id, "nothing_to_annotate")
    assert [a.id for a in project.annotations.all(image_id=1, phase="formal")] == [a1.id, a2.id]
    assert len(project.annotations.all(image_id=1)) == 3
    assert [a.id for a in project.annotations.all(status="submitted")] == [a1.id]
    assert [a.id for a in project.annotations.all(rater_id=2)] == [a2.id]
    finished = project.annotations.with_polygons(1)
    assert [(a.rater_id, len(p)) for a, p in finished] == [(1, 1), (2, 0)]
    assert len(project.annotations.with_polygons(1, status=None)) == 3


def test_questions_crud(project):
    q1 = project.questions.add("density", "Breast density", "radio", options=["A", "B", "C", "D"])
    tree = [{"value": "calcification", "children": [{"value": "vascular"}, {"value": "other"}]}]
    q2 = project.questions.add("type", "Finding type", "dropdown", scope="polygon", options=tree)
    q3 = project.questions.add("notes", "Notes", "text")
    assert [q.name for q in project.questions.all()] == ["density", "type", "notes"]
    assert [q.id for q in project.questions.all(scope="polygon")] == [q2]
    assert project.questions.get(q2).options == tree
    project.questions.update(q3, title="Free notes", position=0)
    assert [q.id for q in project.questions.all()] == [q3, q1, q2]
    assert project.questions.get(q3).title == "Free notes"
    project.questions.update(q1, kind="checklist", options=["A", "B"])
    changed = project.questions.get(q1)
    assert changed.kind == "checklist" and changed.options == ["A", "B"]
    with pytest.raises(ValueError):
        project.questions.add("x", "X", "slider")
    with pytest.raises(ValueError):
        project.questions.add("y", "Y", "radio", options=[])
    with pytest.raises(ValueError):
        project.questions.update(q1, scope="box")
    with pytest.raises(project.db.IntegrityError):
        project.questions.add("density", "again", "text")
    project.questions.delete(q2)
    assert [q.id for q in project.questions.all()] == [q3, q1]
    with pytest.raises(KeyError):
        project.questions.delete(q2)
