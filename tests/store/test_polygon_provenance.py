"""Polygon provenance in the store: the migration that adds ``tool``, ``edited`` and ``model``
keeps every polygon of an older project (as ``manual``, not edited) on a file and on a server;
provenance is stored and read back as given; the schema refuses what the model refuses; and
``copy`` carries it between backends."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from slicereview.model import NewImage, Polygon, Tool
from slicereview.store import Project
from slicereview.store.copying import copy_project
from slicereview.store.polygons import blob_to_vertices, vertices_to_blob
from slicereview.store.schema import (
    _POLYGON_PROVENANCE,
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
)

_T = "2025-01-01T00:00:00.000Z"
_BEFORE = MIGRATIONS.index(_POLYGON_PROVENANCE)
_TRIANGLE = np.array([[1.0, 1.0], [6.5, 1.25], [3.0, 5.0]])
_SQUARE = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])
#: The rows of a project one version before provenance: an image, two annotators, their
#: annotations, three polygons (statements with ``?`` parameters, for a file and a server).
_ROWS: list[tuple[str, tuple]] = [
    ("INSERT INTO sources (id, path, sha256, format, size_bytes, added_at) "
     "VALUES (1, 'a.png', 'x', 'png', 1, ?)", (_T,)),
    ("INSERT INTO images (id, source_id, case_id, rows, cols) VALUES (1, 1, 'C000001', 8, 8)",
     ()),
    ("INSERT INTO raters (id, name, role) VALUES (1, 'ann', 'annotator'), "
     "(2, 'bob', 'annotator')", ()),
    ("INSERT INTO annotations (id, rater_id, image_id, status, active_ms, updated_at) "
     "VALUES (5, 1, 1, 'submitted', 3000, ?), (6, 2, 1, 'in_progress', 0, ?)", (_T, _T)),
    *(("INSERT INTO polygons (id, annotation_id, position, certainty, vertices, label, "
       "classifications) VALUES (?, ?, ?, ?, ?, ?, ?)",
       (pid, ann, pos, certainty, vertices_to_blob(v), label, '{"q": "yes"}'))
      for pid, ann, pos, certainty, v, label in (
          (11, 5, 0, "certain", _TRIANGLE, "mass"), (12, 5, 1, "uncertain", _SQUARE, ""),
          (17, 6, 0, "certain", _SQUARE + 2.0, ""))),
]


def _previous_version(location) -> None:
    """Make ``location`` a project of the version before provenance, holding :data:`_ROWS`."""
    if not isinstance(location, str):
        conn = sqlite3.connect(location)
        conn.execute("PRAGMA foreign_keys = ON")
        for script in MIGRATIONS[:_BEFORE]:
            conn.executescript(script)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {_BEFORE}")
        for statement, values in _ROWS:
            conn.execute(statement, values)
        conn.commit()
        conn.close()
        return
    import psycopg

    from slicereview.store.postgres_schema import (
        STATE_DDL,
        STATE_INSERT,
        STATE_TABLE,
        migration_statements,
    )

    with psycopg.connect(location, autocommit=True) as conn:
        conn.execute(STATE_DDL)
        conn.execute(STATE_INSERT)
        for step in range(_BEFORE):
            for statement in migration_statements(step):
                conn.execute(statement)
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = {_BEFORE}")
        for statement, values in _ROWS:
            conn.execute(statement.replace("?", "%s"), values)


def test_older_polygons_become_manual_not_edited_row_for_row(location):
    where = location("old.srproj")
    _previous_version(where)
    with Project.open(where) as project:  # migrated on opening
        rows = project.db.execute(
            "SELECT id, annotation_id, position, certainty, vertices, label, classifications, "
            "tool, edited, model FROM polygons ORDER BY id").fetchall()
        assert [tuple(r[:4]) for r in rows] == [(11, 5, 0, "certain"), (12, 5, 1, "uncertain"),
                                                (17, 6, 0, "certain")]
        for row, v in zip(rows, (_TRIANGLE, _SQUARE, _SQUARE + 2.0), strict=True):
            assert np.array_equal(blob_to_vertices(bytes(row[4])), v)  # bit for bit
        assert [tuple(r[5:]) for r in rows] == [
            ("mass", '{"q": "yes"}', "manual", 0, None), ("", '{"q": "yes"}', "manual", 0, None),
            ("", '{"q": "yes"}', "manual", 0, None)]
        [first, second] = project.polygons.of(5)
        assert (first.tool, first.edited, first.model, first.label) == (Tool.MANUAL, False,
                                                                       None, "mass")
        assert project.annotations.get(5).updated_at == _T  # the migration stamps nothing
        assert project.polygons.tool_counts() == {(Tool.MANUAL, None): (3, 0)}
        new = project.polygons.add(6, Polygon(_SQUARE, tool="wand"))
        assert new > 17 and project.polygons.get(new).tool is Tool.WAND  # ids go on
        if not project.is_server:
            assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert project.db.execute("PRAGMA foreign_key_check").fetchall() == []


@pytest.fixture
def annotation(location, tmp_path):
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    project = Project.create(location("p.srproj"))
    [image] = project.images.add_source(f, "0" * 64, "png", [NewImage(8, 8)])
    ann = project.annotations.for_image(project.raters.add("ann"), image)
    yield project, ann.id
    project.close()


def test_provenance_is_stored_and_read_back_as_given(annotation):
    project, ann = annotation
    made = [Polygon(_SQUARE + k, tool=tool) for k, tool in enumerate(Tool) if tool is not
            Tool.MODEL]
    made.append(Polygon(_TRIANGLE, "uncertain", tool="model", model="vessels@1.2", edited=True))
    ids = project.polygons.replace(ann, made)
    back = project.polygons.of(ann)
    assert back == made and [p.id for p in back] == ids
    assert [str(p.tool) for p in back] == [str(t) for t in Tool]
    assert (back[-1].model, back[-1].edited) == ("vessels@1.2", True)
    edited = Polygon(_SQUARE, id=ids[0], tool="freehand", edited=True)
    project.polygons.update(ids[0], edited)  # stored as given (the rule is the app layer's)
    assert project.polygons.get(ids[0]) == edited
    project.polygons.delete(ids[1])
    project.polygons.add(ann, back[1], position=1)  # undo of a deletion: its id, its tool
    assert project.polygons.get(ids[1]) == back[1] and project.polygons.get(ids[1]).id == ids[1]
    counts = project.polygons.tool_counts()
    assert list(counts)[:3] == [(Tool.FREEHAND, None), (Tool.POINTS, None),
                                (Tool.SCRIBBLE, None)]
    assert counts[(Tool.FREEHAND, None)] == (2, 1)
    assert counts[(Tool.MODEL, "vessels@1.2")] == (1, 1) and (Tool.MANUAL, None) not in counts


@pytest.mark.parametrize("values", [("lasso", 0, None), ("model", 0, None),
                                    ("wand", 0, "net@1"), ("manual", 2, None)])
def test_the_schema_refuses_what_the_model_refuses(annotation, values):
    project, ann = annotation
    with pytest.raises(project.db.IntegrityError), project.transaction():
        project.db.execute(
            "INSERT INTO polygons (annotation_id, position, certainty, vertices, tool, edited, "
            "model) VALUES (?, 0, 'certain', ?, ?, ?, ?)",
            (ann, vertices_to_blob(_SQUARE), *values))
    assert project.polygons.of(ann) == []


def test_a_model_polygon_names_its_model_and_no_other_does():
    with pytest.raises(ValueError, match="names it"):
        Polygon(_SQUARE, tool="model")
    with pytest.raises(ValueError, match="only a model's polygon names a model"):
        Polygon(_SQUARE, tool="wand", model="net@1")
    with pytest.raises(ValueError, match="lasso"):
        Polygon(_SQUARE, tool="lasso")
    assert Polygon(_SQUARE) == Polygon(_SQUARE, tool="manual", edited=False)
    assert Polygon(_SQUARE) != Polygon(_SQUARE, edited=True)
    assert Polygon(_SQUARE) != Polygon(_SQUARE, tool="freehand")


def test_copy_carries_provenance_to_a_server_and_back(location, tmp_path):
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    made = [Polygon(_SQUARE, tool="trace", edited=True),
            Polygon(_TRIANGLE, "uncertain", tool="model", model="net")]
    with Project.create(tmp_path / "source.srproj") as project:
        [image] = project.images.add_source(f, "0" * 64, "png", [NewImage(8, 8)])
        ann = project.annotations.for_image(project.raters.add("ann"), image).id
        project.polygons.replace(ann, made)
    target = location("copy.srproj")
    copy_project(tmp_path / "source.srproj", target)
    copy_project(target, tmp_path / "back.srproj")
    for where in (target, tmp_path / "back.srproj"):
        with Project.open(where) as copy:
            assert copy.polygons.of(ann) == made
