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

from slicereview.app.report import image_cache
from slicereview.app.report.agreement import image_summary, selections
from slicereview.engines.agreement.gram import subset_alpha
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
    most ``limit``. An image whose report row is cached for all annotators
    (:mod:`slicereview.app.report.image_cache`, edit times unchanged) takes the pair's α from
    its overlap table (:func:`~slicereview.engines.agreement.gram.subset_alpha`, the same value);
    the others are rasterised."""
    found_cases = project.images.cases()
    kinds = {q.name: str(q.kind) for q in project.questions.all(retired=True)}
    cached = image_cache.load(project, image_cache.namespace(None))
    found = []
    for anns in selections(project):
        pair = [k for k, x in enumerate(anns) if x.rater_id in (a, b)]
        if len(pair) != 2:
            continue
        image = anns[0].image_id
        case, rows, cols = found_cases[image]
        hit = cached.get((str(anns[0].phase), image))
        if hit is not None and hit[0] == image_cache.entry_key(anns, (rows, cols), kinds):
            alpha = subset_alpha(image_cache.from_json(hit[1])[4], pair, rows * cols)
        else:
            polygons = project.polygons.of_many([anns[k].id for k in pair])
            alpha = image_summary(((rows, cols), [
                [(p.vertices, str(p.certainty)) for p in polygons[anns[k].id]]
                for k in pair]))[0]
        found.append(PairImage(image, case, str(anns[0].phase), alpha,
                               (anns[pair[0]].id, anns[pair[1]].id)))
    found.sort(key=lambda r: (math.isnan(r.alpha), r.alpha, r.image_id))
    return found[:limit]
