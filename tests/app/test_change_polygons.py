"""ChangePolygons (app/commands.py): a brush or eraser stroke's change of several polygons is
one transaction, undone and redone whole with the polygons' ids and drawing order — on a
project file and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slicereview.app import annotating
from slicereview.app.commands import ChangePolygons
from slicereview.app.undo import CommandStack
from slicereview.engines.strokes import apply_stroke
from slicereview.model import AnnotationStatus, Certainty, NewImage, Polygon
from slicereview.store import Project


def _square(x0: float, y0: float, x1: float, y1: float, **kw) -> Polygon:
    return Polygon(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float), **kw)


def _stored(project: Project, ann: int) -> list[tuple[int | None, str, float, dict]]:
    from slicereview.engines.strokes import area_of

    return [(p.id, str(p.certainty), round(area_of(p.vertices), 3), p.classifications)
            for p in project.polygons.of(ann)]


def _project(location, tmp_path: Path) -> tuple[Project, int]:
    project = Project.create(location("c.srproj"))
    png = tmp_path / "x.png"
    png.write_bytes(b"x")
    [image] = project.images.add_source(png, "0" * 64, "png", [NewImage(100, 120)])
    ann = project.annotations.for_image(annotating.add_annotator(project, "ann"), image)
    return project, ann.id


def test_a_split_is_one_step_undone_and_redone_with_the_same_ids(location, tmp_path) -> None:
    project, ann = _project(location, tmp_path)
    with project:
        below = annotating.add_polygon(project, ann, _square(0, 0, 10, 10))
        split = annotating.add_polygon(project, ann, _square(20, 20, 100, 60, certainty="uncertain",
                                                             classifications={"k": "v"}))
        above = annotating.add_polygon(project, ann, _square(0, 80, 10, 90))
        annotating.finish(project, ann, AnnotationStatus.SUBMITTED)
        before = _stored(project, ann)
        polygons = project.polygons.of(ann)
        stroke = apply_stroke(polygons, [[70.0, 0.0], [70.0, 90.0]], 3.0, erase=True,
                              selected=split)
        stack = CommandStack()
        command = ChangePolygons(project, ann, stroke.before, stroke.after, "Erase")
        assert stack.push(command)
        after = _stored(project, ann)
        assert [p[0] for p in after] == [below, split, above, command.added_ids[0]]
        assert after[1][1:] == ("uncertain", pytest.approx(after[1][2]), {"k": "v"})
        assert after[3][1] == "uncertain" and after[3][3] == {"k": "v"}  # the new piece
        assert after[1][2] + after[3][2] == pytest.approx(80 * 40 - 6.2 * 40, rel=0.01)
        # an edit reopens the submitted annotation, in the same transaction
        assert project.annotations.get(ann).status is AnnotationStatus.IN_PROGRESS
        assert stack.undo() and _stored(project, ann) == before
        assert stack.redo() and _stored(project, ann) == after  # the same ids again


def test_a_polygon_erased_away_comes_back_at_its_place(location, tmp_path) -> None:
    project, ann = _project(location, tmp_path)
    with project:
        ids = [annotating.add_polygon(project, ann, _square(x, 10, x + 6, 16))
               for x in (10, 30, 50)]
        before = _stored(project, ann)
        stroke = apply_stroke(project.polygons.of(ann), [[33.0, 13.0]], 8.0, erase=True)
        assert stroke.deleted == [ids[1]]
        command = ChangePolygons(project, ann, stroke.before, stroke.after, "Erase")
        stack = CommandStack()
        assert stack.push(command)
        assert [p.id for p in project.polygons.of(ann)] == [ids[0], ids[2]]
        assert stack.undo() and _stored(project, ann) == before  # in the middle again


def test_a_new_painted_polygon_is_added_and_removed(location, tmp_path) -> None:
    project, ann = _project(location, tmp_path)
    with project:
        stroke = apply_stroke([], [[20.0, 20.0], [40.0, 30.0]], 4.0,
                              certainty=Certainty.UNCERTAIN)
        command = ChangePolygons(project, ann, stroke.before, stroke.after, "Paint")
        stack = CommandStack()
        assert stack.push(command)
        [stored] = project.polygons.of(ann)
        assert stored.id == command.added_ids[0] and stored.certainty is Certainty.UNCERTAIN
        assert stack.undo() and project.polygons.of(ann) == []
        assert stack.redo() and [p.id for p in project.polygons.of(ann)] == command.added_ids


def test_a_change_that_fails_halfway_writes_nothing(location, tmp_path) -> None:
    project, ann = _project(location, tmp_path)
    with project:
        first = annotating.add_polygon(project, ann, _square(10, 10, 20, 20))
        before = _stored(project, ann)
        gone = _square(30, 30, 40, 40, id=first + 100)  # not stored: its delete fails
        stack = CommandStack()
        assert not stack.push(ChangePolygons(project, ann,
                                             [project.polygons.of(ann)[0], gone], []))
        assert _stored(project, ann) == before  # the first delete was rolled back
        assert not stack.can_undo


def test_a_change_needs_the_stored_ids() -> None:
    with pytest.raises(ValueError, match="ids"):
        ChangePolygons(None, 1, [_square(0, 0, 1, 1)], [])  # type: ignore[arg-type]
    one = _square(0, 0, 1, 1, id=4)
    with pytest.raises(ValueError, match="each once"):
        ChangePolygons(None, 1, [one, one], [])  # type: ignore[arg-type]


def test_a_stroke_keeps_how_each_polygon_was_made_and_marks_the_changed_ones_edited(
        location, tmp_path) -> None:
    """A painted polygon is the brush's; a polygon the stroke changed keeps its tool and is
    edited, and so is each piece of a polygon it split; undo brings back the unedited one."""
    from slicereview.model import Tool

    project, ann = _project(location, tmp_path)
    with project:
        wand = annotating.add_polygon(project, ann, _square(20, 20, 100, 60, tool=Tool.WAND))
        stack = CommandStack()
        painted = apply_stroke(project.polygons.of(ann), [[5.0, 80.0], [12.0, 80.0]], 3.0)
        stack.push(ChangePolygons(project, ann, painted.before, painted.after, "Paint"))
        split = apply_stroke(project.polygons.of(ann), [[70.0, 0.0], [70.0, 90.0]], 3.0,
                             erase=True, selected=wand)
        stack.push(ChangePolygons(project, ann, split.before, split.after, "Erase"))
        made = sorted((str(p.tool), p.edited, p.id == wand) for p in project.polygons.of(ann))
        assert made == [("brush", False, False), ("wand", True, False), ("wand", True, True)]
        stack.undo()
        made = sorted((str(p.tool), p.edited) for p in project.polygons.of(ann))
        assert made == [("brush", False), ("wand", False)]


def test_an_assisted_tools_result_is_new_work_of_that_tool(location, tmp_path) -> None:
    """With ``tool`` (an accepted assisted outline): the added polygons are that tool's and
    not edited, and a polygon it replaces (refine) keeps its id but becomes the tool's new
    outline; one undo restores the manual polygon exactly."""
    from slicereview.model import Tool

    project, ann = _project(location, tmp_path)
    with project:
        rough_id = annotating.add_polygon(project, ann, _square(10, 10, 40, 40, label="calc"))
        [rough] = project.polygons.of(ann)
        stack = CommandStack()
        snapped = _square(12, 12, 38, 38, id=rough_id, label="calc")
        margin = _square(11, 11, 39, 39, certainty="uncertain")
        assert stack.push(ChangePolygons(project, ann, [rough], [snapped, margin], "Refine",
                                         tool=Tool.REFINE))
        got = {p.id: p for p in project.polygons.of(ann)}
        assert (got[rough_id].tool, got[rough_id].edited, got[rough_id].label) == \
            (Tool.REFINE, False, "calc")
        [added] = [p for i, p in got.items() if i != rough_id]
        assert (added.tool, added.edited, added.certainty) == \
            (Tool.REFINE, False, Certainty.UNCERTAIN)
        assert stack.push(ChangePolygons(project, ann, [], [_square(50, 50, 60, 60)], "Points",
                                         tool=Tool.POINTS))
        assert [(p.tool, p.edited) for p in project.polygons.of(ann)][-1] == (Tool.POINTS, False)
        assert stack.undo() and stack.undo()
        assert project.polygons.of(ann) == [rough]
