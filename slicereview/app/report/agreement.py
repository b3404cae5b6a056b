"""Inter-rater agreement over a project for the owner's report: image- and box-level α of every
image ([CrowdSegQA, Fig. 5]), the annotator × annotator matrix of pairwise strict α, and each
annotator's leave-one-out effect on α. One pass over the images; each annotation is rasterised once,
and each image's part is cached by edit times (:mod:`slicereview.app.report.image_cache`).

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
  Pairwise and leave-one-out α come from one table of pixel overlaps per image
  (:mod:`slicereview.engines.agreement.gram`), not one pass over the pixels each.
* **STAPLE sensitivity / specificity** — per image, STAPLE ([Warfield2004];
  :func:`~slicereview.engines.agreement.consensus_masks.staple_rates`, ITK's EM
  over vote patterns, all images with the same number of annotators at once) of the image's
  annotators at the *relaxed* level (certain or uncertain pixels count as marked: STAPLE is
  binary, and the relaxed mask is what an annotator claims is lesion); per annotator the mean
  over the images they annotated with at least one other annotator. Undefined values (nobody
  marked anything: sensitivity NaN) are left out of the mean. The per-image pass counts the
  vote patterns; the EMs run after it in batches (one at a time they took ~1 ms an image).
* **per image** — each selection's row (:class:`ImageAgreement`): image α strict and relaxed,
  and the two platform measures of :mod:`slicereview.app.report.label_agreement` (mean pairwise
  consensus, Labelbox; mean pairwise mask IoU, Label Studio), from the same pass.
* **per polygon** — each polygon's matched Dice against the selection's other annotators
  (:mod:`slicereview.engines.agreement.polygon_dice`; the report's per-tool section), from the
  same fill of each polygon: :attr:`InterRater.polygon_dice`.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(10, 10)])
>>> for name, x in (("a", 1), ("b", 1), ("c", 4)):
...     ann = project.annotations.for_image(project.raters.add(name), img)
...     v = np.array([[x, 1], [x + 4, 1], [x + 4, 5], [x, 5]], float)
...     _ = project.polygons.replace(ann.id, [Polygon(v)])
...     project.annotations.set_status(ann.id, "submitted")
>>> result = inter_rater(project)
>>> result.pairwise[(1, 2)], result.loo[3] > 0
(1.0, True)
>>> result.sensitivity[1] > result.sensitivity[3], result.staple_images[3]
(True, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from slicereview.app.models.raters import model_ids
from slicereview.app.report import image_cache
from slicereview.engines.agreement import segmentation_agreement
from slicereview.engines.agreement.consensus_masks import roi_masks, staple_rates
from slicereview.engines.agreement.gram import overlaps, subset_alpha
from slicereview.engines.agreement.polygon_dice import polygon_agreement
from slicereview.engines.agreement.staple_em import vote_patterns
from slicereview.engines.masks import rasterize
from slicereview.engines.review.parallel import default_workers, make_pool
from slicereview.model import Annotation, AnnotationStatus
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
#: From this many images on, the per-image pass runs in two processes by default.
PARALLEL_FROM = 400
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ImageAgreement:
    """One image selection (image and phase, two or more annotators) of the per-image table."""

    image_id: int
    phase: str
    annotators: int
    strict_alpha: float
    relaxed_alpha: float
    consensus: float
    mask_iou: float


@dataclass
class InterRater:
    """Result of :func:`inter_rater` (see the module doc for the definitions).

    ``image_alpha``/``box_alpha``: level → list of α values (one per image / per box);
    ``pairwise``: ``(rater a, rater b)`` with ``a < b`` → mean strict α; ``pair_images``: the
    number of images behind it; ``loo``: rater → mean leave-one-out effect; ``images``: images
    used; ``sensitivity``/``specificity``: rater → mean STAPLE estimate (relaxed) over
    ``staple_images[rater]`` images; ``polygon_dice``: annotation id → the matched Dice of
    its polygons in drawing order (NaN for a polygon without a pixel).
    """

    image_alpha: dict[str, list[float]] = field(
        default_factory=lambda: {"strict": [], "relaxed": []})
    box_alpha: dict[str, list[float]] = field(
        default_factory=lambda: {"strict": [], "relaxed": []})
    pairwise: dict[tuple[int, int], float] = field(default_factory=dict)
    pair_images: dict[tuple[int, int], int] = field(default_factory=dict)
    loo: dict[int, float] = field(default_factory=dict)
    images: int = 0
    sensitivity: dict[int, float] = field(default_factory=dict)
    specificity: dict[int, float] = field(default_factory=dict)
    staple_images: dict[int, int] = field(default_factory=dict)
    per_image: list[ImageAgreement] = field(default_factory=list)
    polygon_dice: dict[int, list[float]] = field(default_factory=dict)


def selections(project: Project, raters: Iterable[int] | None = None
               ) -> list[list[Annotation]]:
    """Per (image, phase): the latest finished annotation of each annotator, two or more
    (people only: a model's predictions are never counted among them)."""
    keep = None if raters is None else set(raters)
    gold, models = project.workflow.gold_annotation_ids(), model_ids(project)
    chosen: dict[tuple[int, str], dict[int, Annotation]] = {}
    for ann in project.annotations.all(status=FINISHED):
        if ann.id in gold or ann.rater_id in models or (keep is not None
                                                         and ann.rater_id not in keep):
            continue
        chosen.setdefault((ann.image_id, str(ann.phase)), {})[ann.rater_id] = ann
    return [list(v.values()) for _, v in sorted(chosen.items()) if len(v) >= 2]


def image_summary(task: tuple[tuple[int, int], list[list[tuple[np.ndarray, str]]]]
                  ) -> tuple[float, float, list[float], list[float], np.ndarray, np.ndarray]:
    """One image's part of the pass (module level, so a spawned worker can run it): ``task`` is
    ``((H, W), [annotator polygons as (vertices, certainty)])``; returns strict and relaxed
    image α, strict and relaxed box α values, the strict overlap table
    (:func:`~slicereview.engines.agreement.gram.overlaps`) and the counts of the relaxed vote
    patterns (:func:`~slicereview.engines.agreement.staple_em.vote_patterns`) for STAPLE."""
    shape, annotators = task
    labels = np.stack([rasterize([_Poly(v, c) for v, c in polys], shape)
                       for polys in annotators])
    return _summary(labels)


def _summary(labels: np.ndarray) -> tuple:
    """:func:`image_summary` of the rasterised label images ``uint8 (R, H, W)``."""
    agreement = segmentation_agreement(labels)
    patterns = vote_patterns(roi_masks(labels, "relaxed"))[1]
    return (agreement.strict.alpha, agreement.relaxed.alpha,
            [b.alpha for b in agreement.strict.boxes],
            [b.alpha for b in agreement.relaxed.boxes], overlaps(labels == 1), patterns)


@dataclass(frozen=True)
class _Poly:
    vertices: np.ndarray
    certainty: str
    label: str = ""
    classifications: dict = field(default_factory=dict)


def image_row(task: tuple) -> tuple:
    """:func:`image_summary` of ``task[:2]`` plus the label scores (consensus, mask IoU) of
    ``task[2] = (answers per annotator, (label, classifications) per polygon, question kinds)``
    and, per annotator, its polygons' matched Dice."""
    from slicereview.app.report.label_agreement import Work, label_scores

    shape, annotators, (answers, extras, kinds) = task
    works = [Work(a, tuple(_Poly(v, c, *x) for (v, c), x in zip(polys, more, strict=True)))
             for a, polys, more in zip(answers, annotators, extras, strict=True)]
    crops: list[list] = [[] for _ in works]
    labels = np.stack([rasterize(w.polygons, shape, crops[k])  # one fill serves both
                       for k, w in enumerate(works)])
    scores = label_scores(shape, works, kinds, list(labels != 0), crops)
    return (*_summary(labels), scores.consensus, scores.mask_iou, polygon_agreement(crops))


def _summaries(tasks: list, workers: int, progress: Progress | None) -> Iterator[tuple]:
    if workers <= 1:
        for done, task in enumerate(tasks, start=1):
            yield image_row(task)
            if progress is not None:
                progress(done, len(tasks))
        return

    pool = make_pool(workers)
    try:
        chunk = max(1, len(tasks) // (8 * workers))
        for done, result in enumerate(pool.map(image_row, tasks, chunksize=chunk), start=1):
            yield result
            if progress is not None:
                progress(done, len(tasks))  # may raise to cancel: the queued chunks are dropped
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _rows(project: Project, groups: list[list[Annotation]], shapes: dict[int, tuple[int, int]],
          kinds: dict[str, str], namespace: str, progress: Progress | None,
          workers: int | None) -> list[tuple]:
    """Each selection's :func:`image_row`: from the cache where its key matches
    (:mod:`slicereview.app.report.image_cache`), else computed (and cached in batches as the
    pass goes, so that a cancelled pass keeps its work). ``progress`` counts the selections,
    the cached ones at once."""
    cached = image_cache.load(project, namespace)
    keys = [image_cache.entry_key(anns, shapes[anns[0].image_id], kinds) for anns in groups]
    rows: list[tuple | None] = [None] * len(groups)
    todo = []
    for k, anns in enumerate(groups):
        hit = cached.get((str(anns[0].phase), anns[0].image_id))
        if hit is not None and hit[0] == keys[k]:
            rows[k] = image_cache.from_json(hit[1])
        else:
            todo.append(k)
    polygons = project.polygons.of_many([a.id for k in todo for a in groups[k]])
    tasks = [(shapes[groups[k][0].image_id],
              [[(p.vertices, str(p.certainty)) for p in polygons[a.id]] for a in groups[k]],
              ([a.classifications for a in groups[k]],
               [[(p.label, p.classifications) for p in polygons[a.id]] for a in groups[k]],
               kinds)) for k in todo]
    if workers is None:
        workers = min(2, default_workers()) if len(tasks) >= PARALLEL_FROM else 1
    base = len(groups) - len(todo)
    if progress is not None:
        progress(base, len(groups))

    def counted(done: int, _n: int) -> None:
        if progress is not None:
            progress(base + done, len(groups))

    batch: list[image_cache.Entry] = []
    try:
        for k, row in zip(todo, _summaries(tasks, workers, counted), strict=False):
            rows[k] = row
            anns = groups[k]
            batch.append((str(anns[0].phase), anns[0].image_id, keys[k], row))
            if len(batch) >= image_cache.BATCH:
                image_cache.store(project, namespace, batch)
                batch = []
    finally:
        if batch:
            image_cache.store(project, namespace, batch)
    return [r for r in rows if r is not None]


def inter_rater(project: Project, raters: Iterable[int] | None = None,
                progress: Progress | None = None, workers: int | None = None) -> InterRater:
    """Image- and box-level α, the pairwise matrix and leave-one-out effects (one pass).

    ``workers`` > 1 runs the per-image part in spawned processes. The default: two (at most
    the CPUs available) from :data:`PARALLEL_FROM` images on, else inline — starting the
    processes takes about a second. On the 2-core test machine 1,200 images of 256 × 256
    took 5.1–5.5 s inline and 3.5–4.2 s with two workers (with STAPLE counted per image;
    before it, 3.4 s inline against 4.4–5.0 s). Each image's row is cached by edit times
    (:mod:`slicereview.app.report.image_cache`): only new or changed selections are computed,
    and ``workers`` counts those.
    """
    raters = None if raters is None else list(raters)
    groups = selections(project, raters)
    shapes = {i: (r, c) for i, (_, r, c) in project.images.cases().items()}
    kinds = {q.name: str(q.kind) for q in project.questions.all(retired=True)}
    rows = _rows(project, groups, shapes, kinds, image_cache.namespace(raters), progress,
                 workers)
    out = InterRater()
    sums: dict[tuple[int, int], float] = {}
    loo_sum: dict[int, list[float]] = {}
    patterns: list[np.ndarray] = []
    for anns, (strict_a, relaxed_a, strict_boxes, relaxed_boxes, g, counts, consensus,
               mask_iou, matched) in zip(groups, rows, strict=True):
        patterns.append(counts)
        out.polygon_dice.update((a.id, dice) for a, dice in zip(anns, matched, strict=True))
        out.per_image.append(ImageAgreement(anns[0].image_id, str(anns[0].phase), len(anns),
                                            strict_a, relaxed_a, consensus, mask_iou))
        for level, alpha, boxes in (("strict", strict_a, strict_boxes),
                                    ("relaxed", relaxed_a, relaxed_boxes)):
            if not math.isnan(alpha):
                out.image_alpha[level].append(alpha)
            out.box_alpha[level] += [b for b in boxes if not math.isnan(b)]
        pixels = shapes[anns[0].image_id][0] * shapes[anns[0].image_id][1]
        ids = [a.rater_id for a in anns]
        everyone = range(len(anns))
        for i in everyone:
            for j in range(i + 1, len(anns)):
                a = subset_alpha(g, (i, j), pixels)
                if not math.isnan(a):
                    key = (min(ids[i], ids[j]), max(ids[i], ids[j]))
                    sums[key] = sums.get(key, 0.0) + a
                    out.pair_images[key] = out.pair_images.get(key, 0) + 1
        if len(anns) >= 3 and not math.isnan(strict_a):
            for k, rater in enumerate(ids):
                without = subset_alpha(g, [i for i in everyone if i != k], pixels)
                if not math.isnan(without):
                    loo_sum.setdefault(rater, []).append(without - strict_a)
        out.images += 1
    out.pairwise = {k: sums[k] / out.pair_images[k] for k in sums}
    out.loo = {r: float(np.mean(v)) for r, v in loo_sum.items()}
    estimates: dict[int, tuple[list[float], list[float]]] = {}
    rates = staple_rates(patterns, [len(anns) for anns in groups])
    for anns, (sens, spec) in zip(groups, rates, strict=True):
        for ann, one_se, one_sp in zip(anns, sens, spec, strict=True):
            found = estimates.setdefault(ann.rater_id, ([], []))
            found[0].append(one_se)
            found[1].append(one_sp)
    for rater, (all_se, all_sp) in estimates.items():
        out.sensitivity[rater] = _mean(all_se)
        out.specificity[rater] = _mean(all_sp)
        out.staple_images[rater] = len(all_se)
    return out


def _mean(values: list[float]) -> float:
    """Mean of the defined values; NaN when none is."""
    finite = [v for v in values if not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan
