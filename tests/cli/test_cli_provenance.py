"""Polygon provenance from the CLI: ``info`` counts the polygons by tool (and the edited ones),
``review show`` lists each annotation's polygons by tool."""

from __future__ import annotations

import re

import numpy as np

from slicereview.launcher import main
from slicereview.model import NewImage, Polygon
from slicereview.store import Project

SQUARE = np.array([[1.0, 1.0], [5.0, 1.0], [5.0, 5.0], [1.0, 5.0]])


def test_info_and_review_show_list_polygons_by_tool(location, tmp_path, capsys):
    (tmp_path / "x.png").write_bytes(b"")
    where = location("p.srproj")
    with Project.create(where) as project:
        [image] = project.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                                            [NewImage(9, 9)])
        assert main(["info", str(where)]) == 0
        assert "Polygons by tool" not in capsys.readouterr().out  # (none yet)
        for name, polygons in (
                ("ann", [Polygon(SQUARE, tool="wand", edited=True), Polygon(SQUARE),
                         Polygon(SQUARE, tool="wand")]),
                ("bob", [Polygon(SQUARE, "uncertain", tool="model", model="net@2")])):
            ann = project.annotations.for_image(project.raters.add(name), image)
            project.polygons.replace(ann.id, polygons)
            project.annotations.set_status(ann.id, "submitted")
    assert main(["info", str(where)]) == 0
    assert "Polygons by tool: manual 1, wand 2 (1 edited), model net@2 1\n" in (
        capsys.readouterr().out)
    assert main(["review", "show", str(where), "--case", "C000001"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"ann\s+1\s+submitted\s+\S+\s+3 \(manual 1, wand 2; 1 edited\)", out)
    assert re.search(r"bob\s+1\s+submitted\s+\S+\s+1 \(model net@2 1\)", out)
