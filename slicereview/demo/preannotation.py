"""Simulated annotators who follow a model's pre-annotation with a known tendency: material for
*What pre-annotation did* (the report; the demo's pre-annotated batch,
:mod:`slicereview.demo.preannotated_batch`) and the test that it recovers the tendency.

Clearly simulated: the raters are stored with ``simulated = 1``. Per image, some *true*
regions (:func:`~slicereview.demo.annotators.random_regions`); the simulated **model**
predicts them with its own bias (outlines 12 % too large, a wobble, one region missed in
five, an extra region now and then) — the annotators' reference point when shown. Each
annotator of the batch's stored design (:mod:`slicereview.app.qa.preannotation`) then
annotates each of their images through the app layer
(:func:`slicereview.app.annotating.start`, which copies the model's polygons where the design
shows them):

* **shown** — with probability ``follow`` (the tendency, known) they keep the model's
  polygons as they are and submit (``follow_s`` seconds, lognormal); otherwise they replace
  them by their own drawing (``own_s`` seconds);
* **not shown** — they draw their own (``own_s`` seconds).

Their own drawing is :func:`~slicereview.demo.annotators.simulate_annotators` of their profile
(given, or :data:`~slicereview.demo.annotators.DEFAULT_PROFILES` in the order of the
annotators' ids),
independent of the arm. So the expected Dice with the model is ``follow + (1 − follow) · d``
when shown and ``d`` when not: the share of the gap closed estimates ``follow``, and the time
saved is ``follow · (own_s − follow_s)``.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.app.qa.workflow import define_batch
>>> from slicereview.app.qa.preannotation import set_preannotation
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> project = Project.create(folder / "p.srproj")
>>> images, regions = add_images(project, folder, 4, seed=1)
>>> model = add_model(project, regions, seed=1)
>>> people = [project.raters.ensure(f"Simulated follower {k}", simulated=True) for k in "AB"]
>>> batch = define_batch(project, "pre", "formal", images, raters=people)
>>> _ = set_preannotation(project, batch, model, "half", seed=5)
>>> simulate_preannotated_work(project, batch, regions, follow=1.0, seed=2)
8
>>> from slicereview.app.report.preannotation import collect
>>> round(collect(project)[0].gap.difference, 3)     # everyone shown kept the model's outline
1.0
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from slicereview.app import annotating
from slicereview.demo.annotators import DEFAULT_PROFILES, Profile, random_regions
from slicereview.demo.annotators import simulate_annotators as _simulate
from slicereview.model import AnnotationStatus, NewImage, Polygon, Tool
from slicereview.store import Project

#: The simulated model's name and version (clearly simulated).
MODEL_NAME = "Simulated model@1"
#: How the simulated model predicts (its bias: a little large, misses one region in five).
MODEL_PROFILE = Profile("model", miss=0.2, extra=0.3, uncertain=0.0, margin=0.0, scale=1.12,
                        scale_sd=0.04, wobble=0.06, tremor=0.2)
SHAPE = (160, 160)


def add_images(project: Project, folder: Path, n: int, seed: int = 0
               ) -> tuple[list[int], dict[int, list[np.ndarray]]]:
    """``n`` grey PNG images of :data:`SHAPE` written to ``folder`` and added, each with
    three to six true regions; returns the image ids and ``{image id: regions}``."""
    import cv2

    rng = np.random.default_rng(seed)
    ids, regions = [], {}
    for k in range(n):
        pixels = rng.integers(0, 60, SHAPE, dtype=np.uint8)
        path = folder / f"simulated-{seed}-{k}.png"
        cv2.imwrite(str(path), pixels)
        import hashlib

        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        [image_id] = project.images.add_source(path, digest, "png", [NewImage(*SHAPE)])
        ids.append(image_id)
        regions[image_id] = random_regions(SHAPE, int(rng.integers(3, 7)), seed=seed * 1000 + k)
    return ids, regions


def add_model(project: Project, regions: Mapping[int, Sequence[np.ndarray]], seed: int = 0,
              name: str = MODEL_NAME) -> int:
    """The simulated model's predictions of every image of ``regions``, each a finished
    annotation of the model's rater with polygons of provenance ``model NAME``; its id."""
    from slicereview.app.models.raters import model_rater, parse_label

    model = model_rater(project, *parse_label(name), simulated=True).id
    with project.transaction():
        for image_id, true in regions.items():
            drawn = _simulate(SHAPE, true, seed=seed * 7919 + image_id,
                              profiles=[MODEL_PROFILE])["model"]
            polygons = [Polygon(p.vertices, tool=Tool.MODEL, model=name) for p in drawn]
            ann = project.annotations.for_image(model, image_id)
            assert ann is not None
            project.polygons.replace(ann.id, polygons)
            project.annotations.set_status(ann.id, AnnotationStatus.SUBMITTED if polygons
                                           else AnnotationStatus.NOTHING_TO_ANNOTATE)
    return model


def simulate_preannotated_work(
    project: Project, batch_id: int, regions: Mapping[int, Sequence[np.ndarray]],
    follow: float | Mapping[int, float], seed: int = 0, own_s: float = 60.0,
    follow_s: float = 12.0, profiles: Mapping[int, Profile] | None = None,
) -> int:
    """Every annotator of the batch's design annotates every one of their images (module
    docstring); ``follow`` per annotator id or for all; ``profiles`` how each annotator id
    draws their own (default: :data:`~slicereview.demo.annotators.DEFAULT_PROFILES` in id
    order). Returns the annotations finished."""
    rows = project.preannotation.design(batch_id)
    raters = sorted({r for _, _, r, _ in rows})
    if profiles is None:
        profiles = {r: DEFAULT_PROFILES[k % len(DEFAULT_PROFILES)]
                    for k, r in enumerate(raters)}
    phase = project.workflow.batch(batch_id).phase
    done = 0
    for _, image_id, rater, shown in rows:
        rng = np.random.default_rng([seed, image_id, rater])
        tendency = follow if isinstance(follow, float | int) else follow[rater]
        image = project.images.get(image_id)
        own = _simulate((image.rows, image.cols), regions[image_id],
                        seed=seed * 104729 + image_id,
                        profiles=[profiles[rater]])[profiles[rater].name]
        ann = annotating.start(project, rater, image_id, phase)
        keeps = shown and bool(project.polygons.of(ann.id)) and rng.random() < tendency
        if not keeps:
            annotating.replace_polygons(project, ann.id, own)
        seconds = (follow_s if keeps else own_s) * float(rng.lognormal(0.0, 0.3))
        project.annotations.add_active_time(ann.id, int(seconds * 1000))
        has = bool(project.polygons.of(ann.id))
        annotating.finish(project, ann.id, AnnotationStatus.SUBMITTED if has
                          else AnnotationStatus.NOTHING_TO_ANNOTATE)
        done += 1
    return done
