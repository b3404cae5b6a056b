"""The demo's review set: crops of the real demo mammograms, three simulated annotators of
different skill, repeats for intra-rater α, and a simulated reviewer's decisions.

Everything here is **simulated** and deterministic from a seed; it gives the review queue,
``review-eval`` and the Review tab real material, it is not data.

* **Images** — :func:`write_crops`: ``CROP × CROP`` (512 × 512) windows inside the breast of
  each of the 8 demo mammograms (CBIS-DDSM, CC BY 3.0), chosen where the tissue fills the window
  (at least 90 %, non-overlapping, seeded), written as 16-bit PNGs beside the demo project
  (``images/review/``) and imported as the image set :data:`REVIEW_SET`. Six per mammogram,
  48 in all. Where each crop comes from is kept in the ``meta`` table (``demo_review``).
* **Truth** — the brightest blob-like spots of each crop
  (:func:`~slicereview.demo.annotators.find_bright_regions`); small spots count as
  faint.
* **Annotators** — :data:`PROFILES`, group :data:`REVIEW_GROUP`: "— careful" (rarely misses,
  tight outlines), "— misses faint regions" (misses small spots most of the time) and "— noisy,
  many uncertain marks" (false positives, loose wobbly outlines, mostly uncertain).
* **Repeats** — each annotator redoes about 10 % of the set
  (:func:`~slicereview.app.qa.repeats.schedule_repeats`): a fresh simulated drawing of the same
  truth, so intra-rater α shows each profile's own noise.
* **Reviewer** — "Simulated reviewer" compares every annotation of about two thirds of the set
  (a seeded subset, not the top of any queue, so ``review-eval`` is not biased towards one
  method) with the truth: Dice ≥ 0.6 and nothing missed or added is accepted; otherwise it is
  rejected with the reason that applies ("missed finding", "extra region", "wrong certainty",
  "outline too loose/tight"), sometimes with a comment; the worst annotation of the four
  reviewed images with the lowest strict α goes to expert review; a few missed spots get a pin
  on the annotation that missed them (its annotator reads it with the rejection).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import numpy as np

from slicereview.app.qa.repeats import schedule_repeats
from slicereview.app.review.decisions import decide, pin
from slicereview.demo.annotators import (
    Profile,
    find_bright_regions,
    simulate_annotators,
    tissue_mask,
)
from slicereview.engines.masks import PolygonLike, rasterize
from slicereview.model import AnnotationStatus, Certainty, Polygon, Role
from slicereview.store import Project

REVIEW_SET = "Review set (mammogram crops)"
REVIEW_GROUP = "Review set"
REVIEWER = "Simulated reviewer"
CROP = 512
CROPS_PER_IMAGE = 6
REPEAT_SHARE = 0.10
#: How many true spots a crop gets (drawn per crop).
REGIONS_PER_CROP = (0, 0, 1, 1, 1, 2, 3)

#: The three simulated annotators of the review set.
PROFILES = (
    Profile("Simulated annotator — careful", miss=0.06, extra=0.15, uncertain=0.10,
            margin=0.15, scale=1.00, scale_sd=0.05, wobble=0.04, tremor=0.3),
    Profile("Simulated annotator — misses faint regions", miss=0.40, extra=0.10,
            uncertain=0.10, margin=0.05, scale=0.95, scale_sd=0.06, wobble=0.05, tremor=0.4),
    Profile("Simulated annotator — noisy, many uncertain marks", miss=0.15, extra=0.6,
            uncertain=0.65, margin=0.40, scale=1.18, scale_sd=0.15, wobble=0.12, tremor=1.0),
)

Progress = Callable[[str], None]


# -- crops -------------------------------------------------------------------------------------
def crop_windows(tissue: np.ndarray, factor: int, shape: tuple[int, int], n: int,
                 rng: np.random.Generator, size: int = CROP) -> list[tuple[int, int]]:
    """Up to ``n`` non-overlapping ``size × size`` windows ``(row, col)`` (top-left, full
    resolution) of an image of ``shape`` where the reduced ``tissue`` mask (reduced by
    ``factor``) covers ≥ 90 % (falling back to ≥ 60 %), in a seeded order.

    >>> t = np.zeros((40, 40), bool); t[:, :30] = True
    >>> w = crop_windows(t, 10, (400, 400), 3, np.random.default_rng(0), size=100)
    >>> len(w), all(c + 100 <= 300 for _, c in w)
    (3, True)
    """
    h, w = shape
    step = size // 2
    s = max(1, size // factor)
    cands = []
    for r in range(0, h - size + 1, step):
        for c in range(0, w - size + 1, step):
            window = tissue[r // factor:r // factor + s, c // factor:c // factor + s]
            cands.append((float(window.mean()) if window.size else 0.0, r, c))
    order = rng.permutation(len(cands))
    for floor in (0.9, 0.6):
        chosen: list[tuple[int, int]] = []
        for k in order:
            cover, r, c = cands[k]
            if cover >= floor and all(abs(r - r2) >= size or abs(c - c2) >= size
                                      for r2, c2 in chosen):
                chosen.append((r, c))
                if len(chosen) == n:
                    return chosen
        if len(chosen) == n or floor == 0.6:
            return chosen
    return []  # pragma: no cover


def write_crops(project: Project, image_ids: Sequence[int], folder: Path, seed: int = 11,
                per_image: int = CROPS_PER_IMAGE) -> dict[str, dict]:
    """Write the crops of the given mammograms as 16-bit PNGs in ``folder``; returns
    ``{file name: {"case_id", "row", "col", "size"}}`` (where each crop comes from)."""
    from PIL import Image as PILImage

    from slicereview.engines.imaging.loader import load_display

    folder.mkdir(parents=True, exist_ok=True)
    origin: dict[str, dict] = {}
    for image in project.images.all(image_ids):
        try:
            display = load_display(project.images.resolve(image.path), image)
        except Exception:  # a missing codec: the demo still builds without this image
            continue
        pixels = np.asarray(display.data)
        if pixels.ndim != 2:
            continue
        if display.invert:  # MONOCHROME1: tissue must be bright
            pixels = pixels.max() - pixels
        factor = max(1, int(np.ceil(max(pixels.shape) / 300)))
        rng = np.random.default_rng([seed, image.id])
        windows = crop_windows(tissue_mask(pixels, factor), factor, pixels.shape, per_image,
                               rng)
        for r, c in windows:
            name = f"crop_{len(origin) + 1:02d}.png"
            crop = np.ascontiguousarray(pixels[r:r + CROP, c:c + CROP], dtype=np.uint16)
            # 16-bit grey PNG; light compression: the default level costs 4 s over 48 crops
            PILImage.fromarray(crop).save(folder / name, compress_level=1)
            origin[name] = {"case_id": image.case_id, "row": int(r), "col": int(c),
                            "size": CROP}
    return origin


# -- annotators and repeats --------------------------------------------------------------------
def _submit(project: Project, annotation_id: int, polygons: Sequence[Polygon],
            rng: np.random.Generator) -> None:
    project.polygons.replace(annotation_id, list(polygons))
    project.annotations.set_status(annotation_id, AnnotationStatus.SUBMITTED if polygons
                                   else AnnotationStatus.NOTHING_TO_ANNOTATE)
    project.annotations.add_active_time(annotation_id, int(rng.integers(20_000, 120_000)))


def annotate_batch(project: Project, image_ids: Sequence[int], seed: int = 21
                   ) -> dict[int, list[np.ndarray]]:
    """The three profiles' submitted annotations and their repeats; returns the true regions
    per image (outlines ``(x, y)``)."""
    from skimage import io

    raters = [project.raters.ensure(p.name, Role.ANNOTATOR, REVIEW_GROUP, simulated=True)
              for p in PROFILES]
    truth: dict[int, list[np.ndarray]] = {}
    where: dict[int, np.ndarray] = {}
    with project.transaction():
        for image in project.images.all(image_ids):
            pixels = np.asarray(io.imread(project.images.resolve(image.path)), dtype=np.float32)
            # Crops differ in how much there is to find (0-4 spots), like real cases do.
            rng = np.random.default_rng([seed, image.id])
            wanted = int(rng.choice(REGIONS_PER_CROP))
            truth[image.id] = (find_bright_regions(pixels, max_regions=wanted, sigma=4.0,
                                                   min_area=40.0) if wanted else [])
            where[image.id] = tissue_mask(pixels, 4)
            sims = simulate_annotators(pixels.shape, truth[image.id], seed=seed + image.id,
                                       profiles=PROFILES, where=where[image.id])
            for rater, prof in zip(raters, PROFILES, strict=True):
                ann = project.annotations.for_image(rater, image.id)
                assert ann is not None
                _submit(project, ann.id, sims[prof.name], rng)
        for k, (rater, prof) in enumerate(zip(raters, PROFILES, strict=True)):
            for image_id in schedule_repeats(project, rater, image_ids, REPEAT_SHARE, seed):
                image = project.images.get(image_id)
                again = simulate_annotators(
                    (image.rows, image.cols), truth[image_id], seed=seed + 1000 * (k + 1)
                    + image_id, profiles=[prof], where=where[image_id])[prof.name]
                first = project.annotations.for_image(rater, image_id)
                assert first is not None
                repeat = project.repeats.create(first.id)
                _submit(project, repeat.id, again, np.random.default_rng([seed, image_id, k]))
    return truth


# -- the reviewer ------------------------------------------------------------------------------
def _raster(polygons: Sequence[Polygon], shape: tuple[int, int]) -> np.ndarray:
    # model.Polygon is read-only; rasterize only reads the PolygonLike attributes.
    return rasterize(cast("Sequence[PolygonLike]", polygons), shape)


def _judge(polys: Sequence[Polygon], truth: np.ndarray, regions: list[np.ndarray],
           shape: tuple[int, int]) -> tuple[list[str], list[int]]:
    """Reason tags for one annotation against the truth (empty: accept), and the indices of
    the true regions it missed."""
    labels = _raster(polys, shape)
    marked = labels > 0
    inter, total = int((marked & truth).sum()), int(marked.sum() + truth.sum())
    dice = 2 * inter / total if total else 1.0
    missed = []
    for k, r in enumerate(regions):
        region = _raster([Polygon(r)], shape) > 0
        if region.any() and (region & marked).sum() < 0.3 * region.sum():
            missed.append(k)
    extras = len([p for p in polys
                  if not (_raster([Polygon(p.vertices)], shape) > 0)[truth].any()])
    uncertain = float((labels == 2).sum() / marked.sum()) if marked.any() else 0.0
    tags = []
    if missed and dice < 0.6:
        tags.append("missed finding")
    if extras >= 2:
        tags.append("extra region")
    if not tags and uncertain > 0.8 and dice < 0.6:
        tags.append("wrong certainty")
    if not tags and dice < 0.4:
        tags.append("outline too loose" if marked.sum() > truth.sum() else "outline too tight")
    return tags, missed


_COMMENTS = ("Compare with the guideline's examples of faint calcifications.",
             "Please look at this one again with a narrower window.",
             "Several marks here are not calcifications.")


def review_batch(project: Project, image_ids: Sequence[int], truth: dict[int, list[np.ndarray]],
                 seed: int = 31, share: float = 2 / 3, experts: int = 4, pins: int = 5) -> int:
    """The simulated reviewer's decisions on a seeded ``share`` of the set; returns the
    number of decisions. Features should be cached first (decisions store α at decision
    time)."""
    reviewer = project.raters.ensure(REVIEWER, Role.REVIEWER, simulated=True)
    rng = np.random.default_rng(seed)
    ids = list(image_ids)
    reviewed = sorted(rng.permutation(ids)[: int(round(share * len(ids)))].tolist())
    group = {r.id for r in project.raters.all() if r.group == REVIEW_GROUP}
    alphas = {}
    decisions = 0
    worst: dict[int, tuple[int, float]] = {}
    with project.transaction():
        for image_id in reviewed:
            image = project.images.get(image_id)
            shape = (image.rows, image.cols)
            regions = truth[image_id]
            true_mask = _raster([Polygon(r, Certainty.CERTAIN) for r in regions], shape) > 0
            feats = project.reviews.latest_features(image_id) or {}
            alphas[image_id] = feats.get("strict_alpha")
            pinned = False
            for ann, polys in project.annotations.with_polygons(image_id):
                if ann.rater_id not in group:
                    continue
                tags, missed = _judge(polys, true_mask, regions, shape)
                text = str(rng.choice(_COMMENTS)) if tags and rng.random() < 0.3 else ""
                decide(project, reviewer, ann.id, "reject" if tags else "accept", tags, text,
                       active_ms=int(rng.integers(5_000, 60_000)))
                decisions += 1
                if len(tags) >= worst.get(image_id, (0, 0))[1]:
                    worst[image_id] = (ann.id, len(tags))
                if missed and not pinned and pins > 0:
                    (x, y) = regions[missed[0]].mean(axis=0)
                    pin(project, reviewer, image_id, point=(float(x), float(y)),
                        text="A faint spot here was missed.", tags=["missed finding"],
                        annotation_id=ann.id)  # (it goes back with this rejection)
                    pins -= 1
                    pinned = True
        lowest = sorted((a, i) for i, a in alphas.items() if a is not None and i in worst)
        for _, image_id in lowest[:experts]:
            decide(project, reviewer, worst[image_id][0], "expert_review", (),
                   "Faint spots: needs a radiologist's eye.")
            decisions += 1
    return decisions


# -- all of it ---------------------------------------------------------------------------------
def add_demo_review(project: Project, mammogram_ids: Sequence[int], folder: Path,
                    import_paths, seed: int = 11, report: Progress | None = None) -> list[int]:
    """Build the review set into ``project`` (crops in ``folder``); returns its image ids."""
    from slicereview.app.review.queue import QueueSpec, compute_features

    say = report or (lambda what: None)
    say("cropping mammograms for the review set")
    origin = write_crops(project, mammogram_ids, folder, seed)
    before = {im.id for im in project.images.all()}
    result = import_paths(project, [folder / name for name in sorted(origin)])
    if result.failed:
        raise RuntimeError("the review crops could not be imported: "
                           + "; ".join(f"{p}: {why}" for p, why in result.failed))
    ids = [im.id for im in project.images.all() if im.id not in before]
    project.image_sets.create(REVIEW_SET, ids)
    project.set_meta("demo_review", json.dumps(origin, sort_keys=True))
    say("simulating annotators of the review set")
    truth = annotate_batch(project, ids, seed + 10)
    # The default queue (every annotator, formal phase) is what `slicereview queue` and the
    # Review tab open first: computing it here (in the process pool) makes that instant.
    say("computing review features")
    compute_features(project, QueueSpec())
    say("simulating the reviewer")
    review_batch(project, ids, truth, seed + 20)
    say("predicting the review set with the simulated model")
    from slicereview.demo.review_model import add_review_model

    add_review_model(project, ids, seed + 10)
    return ids
