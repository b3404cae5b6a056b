"""Inter-rater agreement over a project for the owner's report: image- and box-level α of every
image (Fig. 5), the annotator × annotator matrix of pairwise strict α, and each annotator's
leave-one-out effect on α. One pass over the images; each annotation is rasterised once.

Definitions:

* **which annotations** — per image and phase, each annotator's latest finished round (gold
  left out); an image with fewer than two is skipped. ``raters`` restricts to a subset (e.g.
  without one group).
* **image-level / box-level α** — binary nominal Krippendorff's α over all pixels, strict
  (certain pixels) and relaxed (certain or uncertain), and the α of each box (the bounding
  box of one connected component of the union), as
  :func:`~slicereview.engines.agreement.segmentation_agreement` computes them.
* **pairwise strict α** — the image-level strict α of two annotators' masks, averaged over the
  images both annotated (in any one phase); the diagonal is left empty.
* **leave-one-out effect** — on images with three or more annotators: mean over those images
  of α(without the annotator) − α(all), strict. Positive: agreement rises without them.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(10, 10)])
>>> for name, x in (("a", 1), ("b", 1), ("c", 4)):
...     ann = project.annotation_for(project.add_rater(name), img)
...     v = np.array([[x, 1], [x + 4, 1], [x + 4, 5], [x, 5]], float)
...     _ = project.replace_polygons(ann.id, [Polygon(v)])
...     project.set_annotation_status(ann.id, "submitted")
>>> result = inter_rater(project)
>>> result.pairwise[(1, 2)], result.loo[3] > 0
(1.0, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from slicereview.engines.agreement import mask_alpha, segmentation_agreement
from slicereview.engines.masks import rasterize
from slicereview.model import Annotation, AnnotationStatus
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
Progress = Callable[[int, int], None]


@dataclass
class InterRater:
    """Result of :func:`inter_rater` (see the module doc for the definitions).

    ``image_alpha``/``box_alpha``: level → list of α values (one per image / per box);
    ``pairwise``: ``(rater a, rater b)`` with ``a < b`` → mean strict α; ``pair_images``: the
    number of images behind it; ``loo``: rater → mean leave-one-out effect; ``images``: images
    used.
    """

    image_alpha: dict[str, list[float]] = field(
        default_factory=lambda: {"strict": [], "relaxed": []})
    box_alpha: dict[str, list[float]] = field(
        default_factory=lambda: {"strict": [], "relaxed": []})
    pairwise: dict[tuple[int, int], float] = field(default_factory=dict)
    pair_images: dict[tuple[int, int], int] = field(default_factory=dict)
    loo: dict[int, float] = field(default_factory=dict)
    images: int = 0


def selections(project: Project, raters: Iterable[int] | None = None
               ) -> list[list[Annotation]]:
    """Per (image, phase): the latest finished annotation of each annotator, two or more."""
    keep = None if raters is None else set(raters)
    gold = project.gold_annotation_ids()
    chosen: dict[tuple[int, str], dict[int, Annotation]] = {}
    for ann in project.annotations(status=FINISHED):
        if ann.id in gold or (keep is not None and ann.rater_id not in keep):
            continue
        chosen.setdefault((ann.image_id, str(ann.phase)), {})[ann.rater_id] = ann
    return [list(v.values()) for _, v in sorted(chosen.items()) if len(v) >= 2]


def _polygons_by_annotation(project: Project, ids: set[int]) -> dict[int, list]:
    found: dict[int, list] = {i: [] for i in ids}
    for ann_id in ids:
        found[ann_id] = project.polygons(ann_id)
    return found


def inter_rater(project: Project, raters: Iterable[int] | None = None,
                progress: Progress | None = None) -> InterRater:
    """Image- and box-level α, the pairwise matrix and leave-one-out effects (one pass)."""
    groups = selections(project, raters)
    shapes = {i: (r, c) for i, (_, r, c) in project.image_cases().items()}
    polygons = _polygons_by_annotation(project, {a.id for g in groups for a in g})
    out = InterRater()
    sums: dict[tuple[int, int], float] = {}
    loo_sum: dict[int, list[float]] = {}
    for done, anns in enumerate(groups, start=1):
        labels = np.stack([rasterize(polygons[a.id], shapes[a.image_id]) for a in anns])
        agreement = segmentation_agreement(labels)
        for level in ("strict", "relaxed"):
            lv = getattr(agreement, level)
            if not math.isnan(lv.alpha):
                out.image_alpha[level].append(lv.alpha)
            out.box_alpha[level] += [b.alpha for b in lv.boxes if not math.isnan(b.alpha)]
        strict = labels == 1
        ids = [a.rater_id for a in anns]
        for i in range(len(anns)):
            for j in range(i + 1, len(anns)):
                a = mask_alpha(strict[[i, j]])
                if not math.isnan(a):
                    key = (min(ids[i], ids[j]), max(ids[i], ids[j]))
                    sums[key] = sums.get(key, 0.0) + a
                    out.pair_images[key] = out.pair_images.get(key, 0) + 1
        if len(anns) >= 3 and not math.isnan(agreement.strict.alpha):
            for k, rater in enumerate(ids):
                without = mask_alpha(np.delete(strict, k, axis=0))
                if not math.isnan(without):
                    loo_sum.setdefault(rater, []).append(without - agreement.strict.alpha)
        out.images += 1
        if progress is not None:
            progress(done, len(groups))
    out.pairwise = {k: sums[k] / out.pair_images[k] for k in sums}
    out.loo = {r: float(np.mean(v)) for r, v in loo_sum.items()}
    return out
