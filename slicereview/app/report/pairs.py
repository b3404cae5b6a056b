"""Where two annotators disagree most: the images both finished, ordered by their pairwise
Krippendorff's α (nominal, strict, image level; lowest first) — what a cell of the report's
annotator × annotator matrix opens.

Example
-------
>>> import pathlib, tempfile
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                          [NewImage(10, 10, frame=k) for k in range(2)])
>>> a, b = project.raters.add("a"), project.raters.add("b")
>>> for rater, shift in ((a, 0), (b, 4)):
...     for k, img in enumerate(ids):
...         ann = project.annotations.for_image(rater, img)
...         x = 1 + shift * k
...         v = np.array([[x, 1], [x + 4, 1], [x + 4, 5], [x, 5]], float)
...         _ = project.polygons.replace(ann.id, [Polygon(v)])
...         project.annotations.set_status(ann.id, "submitted")
>>> [(row.image_id, round(row.alpha, 2)) for row in pair_disagreements(project, a, b)]
[(2, -0.18), (1, 1.0)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from slicereview.app.report.agreement import image_summary, selections
from slicereview.store import Project


@dataclass(frozen=True)
class PairImage:
    """One image both annotators finished: ``alpha`` is their strict image-level α."""

    image_id: int
    case_id: str
    phase: str
    alpha: float
    annotation_ids: tuple[int, int]


def pair_disagreements(project: Project, a: int, b: int, limit: int = 50) -> list[PairImage]:
    """The images (per phase) both ``a`` and ``b`` finished, lowest α first (NaN last), at
    most ``limit``."""
    shapes = {i: (r, c) for i, (_, r, c) in project.images.cases().items()}
    cases = {i: case for i, (case, _, _) in project.images.cases().items()}
    found = []
    for anns in selections(project, [a, b]):
        if len(anns) != 2:
            continue
        polygons = project.polygons.of_many([x.id for x in anns])
        task = (shapes[anns[0].image_id],
               [[(p.vertices, str(p.certainty)) for p in polygons[x.id]] for x in anns])
        alpha = image_summary(task)[0]
        found.append(PairImage(anns[0].image_id, cases[anns[0].image_id], str(anns[0].phase),
                               alpha, (anns[0].id, anns[1].id)))
    found.sort(key=lambda r: (math.isnan(r.alpha), r.alpha, r.image_id))
    return found[:limit]
