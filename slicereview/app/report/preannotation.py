"""The owner's report, *What pre-annotation did*: per pre-annotated batch, the images and
annotators whose work started from the model's polygons (the *shown* arm) against those that
started empty (the *not shown* arm), on the batch's randomised design
(:mod:`slicereview.app.qa.preannotation`; docs/models.md, "What pre-annotation did").
Rules held here, each named where shown:

* **which annotations** — per design row (image, annotator), the annotator's finished
  round-1 annotation of the image in the batch's phase (submitted or nothing to annotate, a
  blank mask); rows without one yet are counted as pending and left out. Masks are the
  relaxed ROI (certain and uncertain pixels).
* **active time per image** — the annotation's active time in seconds.
* **agreement with the other annotators** — the mean Dice of the annotation with each other
  person's finished round-1 annotation of the image in the phase (the model and any other
  model of a batch's pre-annotation are not people); NaN when nobody else annotated it.
* **agreement with the model** — Dice with the model's prediction of the image (its newest
  finished annotation); images the model did not predict are left out.
* **shift toward the model** — agreement with the model shown − not shown, and the *share of
  the gap closed*, ``(shown − not) / (1 − not)``, which estimates the annotators' tendency to
  keep the model's outline (:mod:`slicereview.engines.agreement.arms`).
* **intervals** — 95 % percentile intervals [EfronTibshirani1993] of a cluster bootstrap over
  the batch's images [DavisonHinkley1997] (every annotation of a drawn image comes along),
  :data:`~slicereview.engines.agreement.arms.RESAMPLES` resamples, seeded by the batch's
  pre-annotation seed.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj") as project:
...     collect(project)
[]
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from slicereview.app.qa.preannotation import FINISHED, model_annotation, model_label
from slicereview.engines.agreement.arms import ArmComparison, compare_arms
from slicereview.engines.agreement.overlap import dice
from slicereview.engines.masks import rasterize
from slicereview.store import Project


@dataclass(frozen=True)
class BatchEffect:
    """What pre-annotation did in one batch (module docstring)."""

    batch: str
    model: str
    share: str
    seed: int
    images: int
    finished: int
    pending: int
    time: ArmComparison
    others: ArmComparison
    model_dice: ArmComparison
    gap: ArmComparison


def _mask(project: Project, annotation_id: int, shape: tuple[int, int]) -> np.ndarray:
    return rasterize(project.polygons.of(annotation_id), shape) > 0


def collect(project: Project) -> list[BatchEffect]:
    """:class:`BatchEffect` of every batch with pre-annotation, in batch order."""
    settings = project.preannotation.settings()
    from slicereview.app.models.raters import model_ids

    models = {s.model_id for s in settings} | model_ids(project)
    found = []
    for setting in settings:
        batch = project.workflow.batch(setting.batch_id)
        rows = project.preannotation.design(batch.id)
        images = sorted({i for _, i, _, _ in rows})
        time, others, with_model = [], [], []
        finished = 0
        for image_id in images:
            image = project.images.get(image_id)
            shape = (image.rows, image.cols)
            people = {a.rater_id: a for a in project.annotations.all(
                image_id=image_id, phase=batch.phase, round=1, status=FINISHED)
                if a.rater_id not in models}
            masks = {r: _mask(project, a.id, shape) for r, a in people.items()}
            prediction = model_annotation(project, setting.model_id, image_id)
            model = None if prediction is None else _mask(project, prediction, shape)
            for _, _, rater, shown in (r for r in rows if r[1] == image_id):
                if rater not in people:
                    continue
                finished += 1
                mine = masks[rater]
                time.append((image_id, shown, people[rater].active_ms / 1000.0))
                pairs = [dice(mine, m) for r, m in masks.items() if r != rater]
                others.append((image_id, shown, float(np.mean(pairs)) if pairs else math.nan))
                with_model.append((image_id, shown, math.nan if model is None
                                   else dice(mine, model)))
        seed = setting.seed
        found.append(BatchEffect(
            batch.name, model_label(project.raters.get(setting.model_id)), setting.share,
            seed, len(images), finished, len(rows) - finished,
            compare_arms(time, seed=seed), compare_arms(others, seed=seed),
            compare_arms(with_model, seed=seed),
            compare_arms(with_model, statistic="gap", seed=seed)))
    return found


def _ci(c: ArmComparison, digits: int) -> str:
    if math.isnan(c.difference):
        return "–"
    f = f"{{:+.{digits}f}}"
    return f"{f.format(c.difference)} [{f.format(c.low)}, {f.format(c.high)}]"


def _mean(value: float, digits: int) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


NOTE = ("Shown: the annotation started as a copy of the model's polygons; not shown: it "
        "started empty (the batch's seeded design, stored per image and annotator). Finished "
        "round-1 annotations of the batch's phase; masks: relaxed ROI. Agreement: Dice; with "
        "the other annotators, the mean over each other person's annotation of the image. "
        "Share of the gap closed: (shown − not) / (1 − not), the annotators' estimated "
        "tendency to keep the model's outline. Brackets: 95 % percentile interval of a cluster "
        "bootstrap over images (4000 resamples; all annotations of a drawn image together).")


#: What the section says when no batch has pre-annotation.
EMPTY = ("No batch shows a model's polygons to its annotators (Owner ▸ Phases and batches…, "
         "or slicereview preannotate).")
#: The columns of :func:`rows`.
COLUMNS = ["measure", "shown", "not shown", "shown − not [95 % CI]", "images"]


def rows(b: BatchEffect) -> list[list[str]]:
    """The batch's comparison as text, one row per measure (:data:`COLUMNS`)."""
    found = [[label, _mean(c.shown, d), _mean(c.not_shown, d), _ci(c, d), str(c.images)]
             for label, c, d in (("active time per image (s)", b.time, 1),
                                 ("Dice with the other annotators", b.others, 3),
                                 ("Dice with the model", b.model_dice, 3))]
    found.append(["share of the gap to the model closed", "", "", _ci(b.gap, 3),
                  str(b.gap.images)])
    return found


def heading(b: BatchEffect) -> str:
    """The batch's heading and counts, as plain text (two sentences)."""
    return (f"{b.batch}: {b.model} shown on {b.share} of the images (seed {b.seed}). "
            f"{b.images} images; {b.finished} finished annotations ({b.time.n_shown} shown, "
            f"{b.time.n_not_shown} not shown), {b.pending} not finished yet.")


def caveat(b: BatchEffect) -> str:
    """Why the batch has no comparison, or ``""``."""
    if b.share == "all":
        return ("The model is shown on every image: this batch has no control arm, so there "
                "is no comparison.")
    if b.time.n_shown == 0 or b.time.n_not_shown == 0:
        return "No comparison yet: each arm needs a finished annotation (shown and not shown)."
    return ""


def render(effects: list[BatchEffect],
           table: Callable[[list[str], list[list[str]]], str]) -> str:
    """The section as HTML (``table(head, rows)`` draws a table)."""
    e = html.escape
    parts = ["<h2>What pre-annotation did</h2>"]
    if not effects:
        parts.append(f"<p>{e(EMPTY)}</p>")
        return "\n".join(parts)
    for b in effects:
        parts.append(f"<h3>{e(b.batch)}: {e(b.model)} shown on {e(b.share)} of the images "
                     f"(seed {b.seed})</h3>")
        parts.append(f"<p>{b.images} images; {b.finished} finished annotations "
                     f"({b.time.n_shown} shown, {b.time.n_not_shown} not shown), "
                     f"{b.pending} not finished yet.</p>")
        parts.append(table(COLUMNS, rows(b)))
        if caveat(b):
            parts.append(f"<p class=note>{e(caveat(b))}</p>")
    parts.append(f"<p class=note>{e(NOTE)}</p>")
    return "\n".join(parts)
