"""Intra-rater agreement for the owner's report ([CrowdSegQA, Fig. 5a]): for every repeat pair —
an annotation and its repeat (``annotations.repeat_of``, :mod:`slicereview.app.qa.repeats`), both
finished (``submitted`` or ``nothing_to_annotate``) — the image-level α and each box's α of
the annotator's two masks, strict and relaxed, with the same definitions as inter-rater
agreement (:func:`~slicereview.engines.agreement.segmentation_agreement` of the two label
images; a box is one connected component of the union of the two masks). ``raters``
restricts to a subset of annotators, as for the rest of the report. Undefined α (e.g. both
passes empty at the strict level) is left out of the histograms and counted in ``undefined``.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(10, 10)])
>>> first = project.annotations.for_image(project.raters.add("a"), img)
>>> again = project.repeats.create(first.id)
>>> square = Polygon(np.array([[1, 1], [5, 1], [5, 5], [1, 5]], float))
>>> for ann in (first, again):
...     _ = project.polygons.replace(ann.id, [square])
...     project.annotations.set_status(ann.id, "submitted")
>>> result = intra_rater(project)
>>> result.pairs, result.image_alpha["strict"], result.box_alpha["relaxed"]
(1, [1.0], [1.0])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from slicereview.app.qa.repeats import FINISHED
from slicereview.engines.agreement import segmentation_agreement
from slicereview.engines.masks import rasterize
from slicereview.store import Project


@dataclass
class IntraRater:
    """Result of :func:`intra_rater`: level → α values (one per pair / per box), the number of
    repeat pairs used and of pairs whose image-level α is undefined (per level)."""

    image_alpha: dict[str, list[float]] = field(
        default_factory=lambda: {"strict": [], "relaxed": []})
    box_alpha: dict[str, list[float]] = field(
        default_factory=lambda: {"strict": [], "relaxed": []})
    pairs: int = 0
    undefined: dict[str, int] = field(default_factory=lambda: {"strict": 0, "relaxed": 0})


def intra_rater(project: Project, raters: Iterable[int] | None = None) -> IntraRater:
    """Image- and box-level α of every finished repeat pair (see the module docstring)."""
    keep = None if raters is None else set(raters)
    gold = project.workflow.gold_annotation_ids()
    pairs = [(a, b) for a, b in project.repeats.pairs(status=FINISHED)
             if (keep is None or a.rater_id in keep) and a.id not in gold]
    shapes = {i: (r, c) for i, (_, r, c) in project.images.cases().items()}
    polygons = project.polygons.of_many([a.id for pair in pairs for a in pair])
    out = IntraRater()
    for first, again in pairs:
        shape = shapes[first.image_id]
        labels = np.stack([rasterize(polygons[a.id], shape) for a in (first, again)])
        agreement = segmentation_agreement(labels)
        for level, result in (("strict", agreement.strict), ("relaxed", agreement.relaxed)):
            if math.isnan(result.alpha):
                out.undefined[level] += 1
            else:
                out.image_alpha[level].append(result.alpha)
            out.box_alpha[level] += [b.alpha for b in result.boxes if not math.isnan(b.alpha)]
        out.pairs += 1
    return out
