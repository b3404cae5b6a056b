"""The report's per-tool section on a project whose polygons, times and decisions are known:
every number worked out by hand from the definitions (app/report/tools.py), on both backends.

Images are 40 × 40; a square ``(x, y, s)`` covers columns x..x+s-1 and rows y..y+s-1.

Image 1, three annotators:
* A (20 s): manual S1 = (0, 0, 10). Accepted.
* B (6 s): wand (5, 0, 10), overlapping S1 on 50 pixels; wand (20, 20, 10), edited, where
  nobody else drew. Rejected.
* C (9 s): freehand (0, 0, 10) = S1; manual (30, 0, 5), where nobody else drew. Undecided.

Image 2: A alone (4 s), manual (0, 0, 8); and a gold annotation (box) that is left out.
Image 3: D alone (2 s), one polygon of the model ``net@1``.

Matched Dice (mean over the other annotators): A's S1 (0.5 + 1) / 2; B's first (0.5 + 0.5) / 2,
its second 0; C's freehand (1 + 0.5) / 2, its manual 0. Image 2 and 3 polygons: no one else.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.app.qa.workflow import mark_gold
from slicereview.app.report import tools
from slicereview.app.report.owner_report import collect, render
from slicereview.model import NewImage, Polygon, Role
from slicereview.store import Project


def sq(x: float, y: float, s: float, **provenance) -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float),
                   **provenance)


@pytest.fixture
def known(location, tmp_path):
    (tmp_path / "x.png").write_bytes(b"")
    project = Project.create(location("p.srproj"))
    images = [project.images.add_source(tmp_path / "x.png", f"{k:064x}", "png",
                                        [NewImage(40, 40)])[0] for k in range(3)]
    a, b, c, d, expert = (project.raters.add(n) for n in ("A", "B", "C", "D", "expert"))
    reviewer = project.raters.ensure("rev", Role.REVIEWER)

    def annotate(rater, image, seconds, polygons):
        ann = project.annotations.for_image(rater, image)
        project.polygons.replace(ann.id, polygons)
        project.annotations.add_active_time(ann.id, int(seconds * 1000))
        project.annotations.set_status(ann.id, "submitted")
        return ann.id

    first = annotate(a, images[0], 20, [sq(0, 0, 10)])
    second = annotate(b, images[0], 6, [sq(5, 0, 10, tool="wand"),
                                        sq(20, 20, 10, tool="wand", edited=True)])
    annotate(c, images[0], 9, [sq(0, 0, 10, tool="freehand"), sq(30, 0, 5)])
    annotate(a, images[1], 4, [sq(0, 0, 8)])
    mark_gold(project, annotate(expert, images[1], 50, [sq(0, 0, 8, tool="box")]))
    annotate(d, images[2], 2, [sq(3, 3, 6, tool="model", model="net@1")])
    project.reviews.add(images[0], reviewer, annotation_id=first, decision="accept")
    project.reviews.add(images[0], reviewer, annotation_id=second, decision="reject",
                        comment="too wide")
    yield project
    project.close()


def test_every_number_of_the_per_tool_table(known):
    rows = {r.tool: r for r in tools.collect(known)}
    assert list(rows) == ["manual", "freehand", "wand", "model net@1"]  # the tools' order
    manual, freehand, wand, model = rows.values()
    assert (manual.polygons, freehand.polygons, wand.polygons, model.polygons) == (3, 1, 2, 1)
    assert (manual.edited, wand.edited, wand.edited_share) == (0, 1, 0.5)
    # one-tool annotations: A's two (24 s, 2 polygons), B's (6 s, 2); C's mixes two tools
    assert (manual.one_tool_annotations, manual.one_tool_s) == (2, pytest.approx(12.0))
    assert (wand.one_tool_annotations, wand.one_tool_s) == (1, pytest.approx(3.0))
    assert freehand.one_tool_annotations == 0 and math.isnan(freehand.one_tool_s)
    assert model.one_tool_s == pytest.approx(2.0)
    # equal split: manual 20, 9/2, 4; wand 3, 3; freehand 9/2
    assert manual.split_s == pytest.approx((20 + 4.5 + 4) / 3)
    assert (wand.split_s, freehand.split_s) == (pytest.approx(3.0), pytest.approx(4.5))
    # matched Dice on image 1 (the only image with two or more annotators)
    assert (manual.scored, manual.agreement) == (2, pytest.approx((0.75 + 0.0) / 2))
    assert (wand.scored, wand.agreement) == (2, pytest.approx((0.5 + 0.0) / 2))
    assert (freehand.scored, freehand.agreement) == (1, pytest.approx(0.75))
    assert model.scored == 0 and math.isnan(model.agreement)
    # acceptance: A's accepted (manual), B's rejected (wand); C's undecided
    assert (manual.decided, manual.accepted, manual.acceptance) == (1, 1, 1.0)
    assert (wand.decided, wand.accepted, wand.acceptance) == (2, 0, 0.0)
    assert freehand.decided == 0 and math.isnan(freehand.acceptance)


def test_a_subset_of_annotators_and_the_report_html(known):
    a, b = known.raters.by_name("A").id, known.raters.by_name("B").id
    rows = {r.tool: r for r in tools.collect(known, [a, b])}
    assert list(rows) == ["manual", "wand"]
    assert rows["manual"].agreement == pytest.approx(0.5)  # A's S1 against B only
    assert rows["wand"].agreement == pytest.approx(0.25)
    page = render(collect(known))
    assert "<h2>Per tool</h2>" in page and "model net@1" in page
    row = page[page.index("<td class=l>manual</td>"):].split("</tr>")[0]
    assert [cell.split(">")[-1] for cell in row.split("</td>")[:-1]] == [
        "manual", "3", "0", "12.0", "2", "9.5", "0.375", "2", "100", "1"]
    assert "one-tool annotations: summed active time" in page


def test_no_polygon_yet(location):
    with Project.create(location("empty.srproj")) as project:
        assert tools.collect(project) == []
        assert "No finished annotation has a polygon yet." in render(collect(project))
