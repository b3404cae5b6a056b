"""A small project of real DICOM files (pydicom's CT and MR test images) and one PNG, with
three annotators, a reviewer's decisions and pins, and a classification session."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image as PILImage
from pydicom.data import get_testdata_file

from slicereview.app import annotating
from slicereview.app.images.importing import import_paths
from slicereview.app.review.decisions import decide, pin
from slicereview.model import Polygon, Role
from slicereview.store import Project


def square(x: float, y: float, s: float, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float), certainty)


def build_at(location, folder: Path) -> str | Path:
    """:func:`build` in ``folder``, then at ``location("p.srproj")`` (the test's backend): the
    built file itself, or a copy on the server."""
    from slicereview.store.copying import copy_project

    made = build(folder)
    where = location("p.srproj")
    if not isinstance(where, str):
        return made
    copy_project(made, where)
    return where


def build(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    png = folder / "grey.png"
    PILImage.fromarray(np.full((32, 40), 90, np.uint8)).save(png)
    path = folder / "dicom.srproj"
    with Project.create(path, name="DICOM test") as project:
        import_paths(project, [get_testdata_file("CT_small.dcm"),
                               get_testdata_file("MR_small.dcm"), png])
        images = project.images.all()
        raters = [annotating.add_annotator(project, n) for n in ("Ann", "Bob", "Cy Ü")]
        reviewer = project.raters.ensure("Rev", Role.REVIEWER)
        for image in images:
            for k, rater in enumerate(raters):
                ann = project.annotations.for_image(rater, image.id, create=True)
                if k == 2 and image.format == "dicom" and image.rows == 64:
                    annotating.finish(project, ann.id, "nothing_to_annotate")
                    continue
                # certain and uncertain overlap: certain wins where both
                polygons = [square(4 + k, 5, 12), square(10, 8, 9, "uncertain")]
                annotating.replace_polygons(project, ann.id, polygons)
                annotating.finish(project, ann.id, "submitted")
        ct = images[0]
        first = project.annotations.for_image(raters[0], ct.id)
        second = project.annotations.for_image(raters[1], ct.id)
        decide(project, reviewer, first.id, "reject", ["extra region"], "too wide")
        decide(project, reviewer, second.id, "accept")
        pin(project, reviewer, ct.id, point=(20.5, 30.25), text="look here")
        pin(project, reviewer, ct.id, box=(1, 2, 11.5, 22), tags=["missed finding"])
        set_id = project.image_sets.create("all", [im.id for im in images])
        from slicereview.app.rating.sessions import create_session

        session = create_session(project, "classify", raters[0], set_id, "grades 1",
                                 "how dense?", settings={"labels": ["low", "high"]})
        project.ratings.set_grade(session, ct.id, 1)
    return path
