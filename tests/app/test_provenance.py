"""Polygon provenance through the application layer, on both backends: a polygon is added with
the tool that made it; every edit command keeps the tool and marks the polygon edited when its
outline changes (a certainty toggle or a classification answer does not); undo and redo
restore the stored provenance exactly; a revision and a work package carry it."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from slicereview.app import annotating
from slicereview.app.commands import AddPolygon, DeletePolygon, EditPolygon
from slicereview.app.qa.packages import merge, package
from slicereview.app.review.decisions import decide, start_revision
from slicereview.app.undo import CommandStack
from slicereview.model import NewImage, Polygon, Role, Tool
from slicereview.store import Project

SQUARE = np.array([[1.0, 1.0], [5.0, 1.0], [5.0, 5.0], [1.0, 5.0]])


@pytest.fixture
def annotation(location, tmp_path: Path):
    (tmp_path / "x.png").write_bytes(b"")  # (a source's file is looked at, never decoded)
    project = Project.create(location("p.srproj"))
    image = project.images.add_source(tmp_path / "x.png", "0" * 64, "png", [NewImage(9, 9)])[0]
    ann = annotating.start(project, annotating.add_annotator(project, "ann"), image)
    yield project, ann.id
    project.close()


def _stored(project: Project, ann: int) -> list[tuple[str, bool, str | None]]:
    return [(str(p.tool), p.edited, p.model) for p in project.polygons.of(ann)]


def test_every_edit_marks_edited_and_undo_restores_it_exactly(annotation) -> None:
    project, ann = annotation
    stack = CommandStack()
    add = AddPolygon(project, ann, Polygon(SQUARE, tool=Tool.FREEHAND))
    assert stack.push(add)
    drawn = project.polygons.get(add.polygon_id)
    assert (drawn.tool, drawn.edited) == (Tool.FREEHAND, False)
    # a certainty toggle and a classification answer are not edits of the outline
    stack.push(EditPolygon(project, ann, drawn, replace(drawn, certainty="uncertain")))
    stack.push(EditPolygon(project, ann, project.polygons.get(drawn.id),
                           replace(drawn, certainty="uncertain", classifications={"q": "a"})))
    assert _stored(project, ann) == [("freehand", False, None)]
    # a vertex drag is; the tool stays, even when the caller's value says otherwise
    before = project.polygons.get(drawn.id)
    dragged = SQUARE.copy()
    dragged[2] = (6.0, 7.0)
    stack.push(EditPolygon(project, ann, before,
                           Polygon(dragged, "uncertain", id=drawn.id), "Move vertex"))
    assert _stored(project, ann) == [("freehand", True, None)]
    moved = project.polygons.get(drawn.id)
    stack.push(EditPolygon(project, ann, moved, replace(moved, vertices=dragged - 1.0)))
    assert _stored(project, ann) == [("freehand", True, None)]
    # undo walks back to the exact stored values, redo forward again
    assert stack.undo() and stack.undo()
    assert project.polygons.get(drawn.id) == before and not before.edited
    assert stack.redo()
    assert project.polygons.get(drawn.id) == moved
    # a deletion and its undo keep the id and the provenance
    stack.push(DeletePolygon(project, ann, moved))
    assert project.polygons.of(ann) == []
    assert stack.undo() and project.polygons.get(drawn.id) == moved
    while stack.undo():
        pass
    assert project.polygons.of(ann) == []
    while stack.redo():  # the last step redone is the deletion
        pass
    assert project.polygons.of(ann) == []
    assert stack.undo() and project.polygons.get(drawn.id) == moved


def test_a_tool_applied_to_a_polygon_makes_a_new_outline(annotation) -> None:
    """``refine`` of a selected polygon: the new outline is the refine tool's, not edited;
    undo gives the edited manual polygon back."""
    project, ann = annotation
    pid = annotating.add_polygon(project, ann, Polygon(SQUARE, edited=True))
    before = project.polygons.get(pid)
    stack = CommandStack()
    stack.push(EditPolygon(project, ann, before, replace(before, vertices=SQUARE + 0.5),
                           "Refine", tool=Tool.REFINE))
    assert _stored(project, ann) == [("refine", False, None)]
    assert stack.undo() and _stored(project, ann) == [("manual", True, None)]
    with pytest.raises(ValueError, match="predicted"):
        EditPolygon(project, ann, before, before, tool=Tool.MODEL)


def test_a_models_polygon_keeps_its_model_once_edited(annotation) -> None:
    project, ann = annotation
    pid = annotating.add_polygon(project, ann, Polygon(SQUARE, tool="model", model="bac@3"))
    shown = project.polygons.get(pid)
    assert annotating.provenance_text(shown) == "model bac@3"
    EditPolygon(project, ann, shown, replace(shown, vertices=SQUARE * 1.5)).apply()
    edited = project.polygons.get(pid)
    assert _stored(project, ann) == [("model", True, "bac@3")]
    assert annotating.provenance_text(edited) == "model-edited (bac@3)"
    assert annotating.tool_summary([edited, Polygon(SQUARE)]) == (
        "2 (manual 1, model bac@3 1; 1 edited)")


def test_a_revision_starts_with_the_polygons_provenance(annotation) -> None:
    project, ann = annotation
    annotating.replace_polygons(project, ann, [
        Polygon(SQUARE, tool="wand", edited=True), Polygon(SQUARE + 1, "uncertain", tool="box")])
    annotating.finish(project, ann, "submitted")
    reviewer = project.raters.ensure("rev", Role.REVIEWER)
    decide(project, reviewer, ann, "reject", ["missed finding"])
    revision = start_revision(project, ann)
    assert revision != ann
    assert _stored(project, revision) == [("wand", True, None), ("box", False, None)]
    assert {p.id for p in project.polygons.of(revision)}.isdisjoint(
        p.id for p in project.polygons.of(ann))


def _send_back(out: Path, folder: Path, back: Path) -> None:
    """Zip the annotator's edited project back in the package's layout."""
    with zipfile.ZipFile(out) as zin, zipfile.ZipFile(back, "w") as zout:
        for item in zin.infolist():
            data = (folder / "project.srproj").read_bytes() if item.filename == \
                "project.srproj" else zin.read(item)
            zout.writestr(item, data)


def _drop_provenance(path: Path) -> None:
    """Turn a package's project file into one of the version before provenance (what an
    older slicereview wrote)."""
    import sqlite3

    from slicereview.store.connection import _statements
    from slicereview.store.schema import _POLYGON_PROVENANCE, MIGRATIONS

    version = MIGRATIONS.index(_POLYGON_PROVENANCE)
    later = sqlite3.connect(":memory:")  # the tables of the migrations after provenance
    for script in MIGRATIONS[:version]:
        later.executescript(script)

    def columns() -> dict[str, list[str]]:
        return {t: [c[1] for c in later.execute(f"PRAGMA table_info({t})")] for (t,) in
                later.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()}

    older = columns()
    for script in MIGRATIONS[version:]:
        for statement in _statements(script):
            later.execute(statement)
    conn = sqlite3.connect(path)
    for table, names in columns().items():
        if table not in older:
            conn.execute(f"DROP TABLE {table}")
            continue
        for column in reversed([n for n in names if n not in older[table]]):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def test_a_work_package_carries_provenance_and_an_older_one_still_merges(location, tmp_path
                                                                         ) -> None:
    from PIL import Image as PILImage

    from slicereview.app.images.importing import import_paths
    from slicereview.app.qa.workflow import define_batch

    PILImage.fromarray(np.zeros((9, 9), np.uint8)).save(tmp_path / "a.png")
    where = location("p.srproj")
    with Project.create(where) as project:
        import_paths(project, [tmp_path / "a.png"])
        define_batch(project, "b", "formal", [1], raters=[annotating.add_annotator(project, "ann")])
        out = package(project, "ann", tmp_path / "ann.zip")
    for older in (False, True):
        folder = tmp_path / f"remote-{older}"
        with zipfile.ZipFile(out) as zf:
            zf.extractall(folder)
        with Project.open(folder / "project.srproj") as pkg:
            ann = annotating.start(pkg, pkg.raters.by_name("ann").id, 1, round=1 + older).id
            annotating.replace_polygons(pkg, ann, [Polygon(SQUARE, tool="trace", edited=True)])
            annotating.finish(pkg, ann, "submitted")
        if older:
            _drop_provenance(folder / "project.srproj")
        _send_back(out, folder, tmp_path / f"back-{older}.zip")
        with Project.open(where) as project:
            report = merge(project, tmp_path / f"back-{older}.zip")
            assert len(report.added) == 1
            merged = project.polygons.of(report.added[0])
            assert [(str(p.tool), p.edited) for p in merged] == (
                [("manual", False)] if older else [("trace", True)])
            assert np.array_equal(merged[0].vertices, SQUARE)
