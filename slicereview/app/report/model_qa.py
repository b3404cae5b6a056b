"""The owner's report, *The model in QA*: per model, per image its prediction against the
annotators' consensus (majority vote and STAPLE) and against gold, with Dice, HD95,
sensitivity and specificity; the boxes only it or only the people found; the people's α with
and without the model; the model's row of the agreement matrix, apart from the people's.
Docs: docs/models.md, "The model in QA"; the per-image rules are
:mod:`slicereview.app.review.model_view`'s.

* **which images** — per (image, phase) each person's latest finished round (gold left out,
  as the agreement part chooses, :func:`people_selections`; one person or more), where the
  model has a prediction; a model is never one of the people.
* **α with and without the model** — binary nominal Krippendorff's α, strict (certain
  pixels), image level, of the people's masks, then of the people's and the model's
  (``with``); the mean over the images with two people or more (one person has no α
  without the model). Δ = with − without: negative when the model disagrees with them more
  than they disagree with each other.
* **the model's row of the matrix** — per person, the mean over the images both annotated of
  the pairwise strict α of the model's and that person's masks (the matrix's own measure);
  :mod:`slicereview.app.report.matrix` draws it as the model's row and column of the
  annotator × annotator matrix, marked apart from the people.

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
from dataclasses import dataclass, field

import numpy as np

from slicereview.app.qa.preannotation import FINISHED, model_annotation, model_label, models
from slicereview.app.report.formatting import fmt
from slicereview.app.review.model_view import model_on_image, people_labels
from slicereview.engines.agreement.model_agreement import Overlap
from slicereview.engines.agreement.pixel_alpha import mask_alpha
from slicereview.engines.masks import rasterize
from slicereview.model import Annotation
from slicereview.store import Project


@dataclass(frozen=True)
class ModelImage:
    """One image of one model's part (module docstring)."""

    image_id: int
    case_id: str
    phase: str
    people: int
    majority: Overlap
    staple: Overlap
    gold: Overlap | None
    model_only: int
    people_only: int
    alpha_without: float
    alpha_with: float


@dataclass
class ModelPart:
    """One model's part of the report."""

    label: str
    images: list[ModelImage] = field(default_factory=list)
    #: person's rater id → (mean pairwise strict α with the model, images)
    pairwise: dict[int, tuple[float, int]] = field(default_factory=dict)
    #: person's rater id → per image both annotated: (index into ``images``, the pairwise
    #: strict α, (the person's annotation id, the model's)) -- what a model cell of the
    #: matrix lists
    pair_alpha: dict[int, list[tuple[int, float, tuple[int, int]]]] = field(
        default_factory=dict)

    def mean(self, what: Callable[[ModelImage], float]) -> float:
        values = [v for v in map(what, self.images) if not math.isnan(v)]
        return float(np.mean(values)) if values else math.nan

    @property
    def alpha(self) -> tuple[float, float, int]:
        """Mean strict α without and with the model over the images with two people or
        more, and how many."""
        rows = [r for r in self.images if r.people >= 2]
        if not rows:
            return math.nan, math.nan, 0
        return (float(np.nanmean([r.alpha_without for r in rows])),
                float(np.nanmean([r.alpha_with for r in rows])), len(rows))


def collect(project: Project) -> list[ModelPart]:
    """:class:`ModelPart` of every model rater of the project."""
    found = []
    groups = people_selections(project, {m.id for m in models(project)})
    for model in models(project):
        part = ModelPart(model_label(model))
        sums = part.pair_alpha
        for group in groups:
            image_id = group[0].image_id
            prediction = model_annotation(project, model.id, image_id)
            if prediction is None:
                continue
            ids = [a.id for a in group]
            view = model_on_image(project, image_id, ids, model.id)
            assert view is not None
            image = project.images.get(image_id)
            shape = (image.rows, image.cols)
            strict = people_labels(project, ids, shape) == 1
            mine = rasterize(list(view.polygons), shape) == 1
            both = np.concatenate([strict, mine[None]])
            for k, ann in enumerate(group):
                sums.setdefault(ann.rater_id, []).append((len(part.images), mask_alpha(
                    np.stack([strict[k], mine])), (ann.id, prediction)))
            part.images.append(ModelImage(
                image_id, image.case_id, str(group[0].phase), len(group), view.majority,
                view.staple, view.gold, len(view.model_only), len(view.people_only),
                mask_alpha(strict) if len(group) >= 2 else math.nan, mask_alpha(both)))
        part.pairwise = {r: _mean_alpha([a for _, a, _ in v]) for r, v in sums.items()}
        found.append(part)
    return found


def _mean_alpha(values: list[float]) -> tuple[float, int]:
    kept = [v for v in values if not math.isnan(v)]
    return (float(np.mean(kept)) if kept else math.nan), len(values)


def people_selections(project: Project, model_ids: set[int]) -> list[list[Annotation]]:
    """Per (image, phase): each person's latest finished annotation (gold and models left
    out), one person or more."""
    gold = project.workflow.gold_annotation_ids()
    chosen: dict[tuple[int, str], dict[int, Annotation]] = {}
    for ann in project.annotations.all(status=FINISHED):  # (by image, rater, round)
        if ann.id in gold or ann.rater_id in model_ids:
            continue
        chosen.setdefault((ann.image_id, str(ann.phase)), {})[ann.rater_id] = ann
    return [list(v.values()) for _, v in sorted(chosen.items())]


def _getter(against: str, measure: str) -> Callable[[ModelImage], float]:
    def get(row: ModelImage) -> float:
        o = getattr(row, against)
        return math.nan if o is None else float(getattr(o, measure))
    return get


def _o(o: Overlap | None) -> list[str]:
    if o is None:
        return ["–"] * 4
    return [fmt(o.dice), fmt(o.hd95, 1), fmt(o.sensitivity), fmt(o.specificity)]


#: What the section says when the project has no model.
EMPTY = "No model in this project (slicereview predictions import, or Owner ▸ Models…)."
MEASURES = (("dice", "Dice"), ("hd95", "HD95"), ("sensitivity", "sens."),
            ("specificity", "spec."))
#: The columns of the per-model summary (:func:`summary_cells`): means over the model's images
#: (against gold: over its images with gold).
SUMMARY = (["model", "images"] + [f"{w} {m}" for w in ("majority", "STAPLE", "gold")
                                  for _, m in MEASURES]
           + ["gold images", "α people", "α with model", "Δ α", "images (≥ 2 people)"])


def summary_cells(part: ModelPart) -> list[str]:
    """One model's row of the summary (:data:`SUMMARY`), as text.

    >>> summary_cells(ModelPart("net@1"))[:3], len(SUMMARY) == len(summary_cells(ModelPart("x")))
    (['net@1', '0', '–'], True)
    """
    without, with_, n = part.alpha
    means = [fmt(part.mean(_getter(a, m)), 1 if m == "hd95" else 3)
             for a in ("majority", "staple", "gold") for m, _ in MEASURES]
    return [part.label, str(len(part.images)), *means,
            str(sum(r.gold is not None for r in part.images)), fmt(without), fmt(with_),
            fmt(with_ - without) if n else "–", str(n)]


def image_cells(row: ModelImage, gold: bool = True) -> list[str]:
    """One image's row of the model's table (the columns of :func:`image_head`)."""
    return [row.case_id, row.phase, str(row.people), *_o(row.majority), *_o(row.staple),
            *(_o(row.gold) if gold else []), str(row.model_only), str(row.people_only),
            fmt(row.alpha_without), fmt(row.alpha_with)]


def image_head(gold: bool = True) -> list[str]:
    """The columns of :func:`image_cells` (``gold``: with the columns against gold)."""
    against = ("majority", "STAPLE", "gold") if gold else ("majority", "STAPLE")
    return (["case", "phase", "people"] + [f"{w} {m}" for w in against for _, m in MEASURES]
            + ["model only", "people only", "α people", "α with model"])


NOTE = ("Relaxed masks (certain or uncertain pixels). Majority: pixels more than half the "
        "people marked; STAPLE (Warfield et al. 2004), probability > 0.5. HD95: 95th percentile "
        "Hausdorff distance in pixels (SimpleITK's Maurer distance map; the larger of the two "
        "directions), NaN when one mask is empty. Sensitivity TP/(TP+FN), specificity "
        "TN/(TN+FP). Model only / people only: boxes (components of the union) that only the "
        "model, or only the people, marked. α: Krippendorff's α, nominal, strict, image level, "
        "of the people without and with the model.")


def render(parts: list[ModelPart], raters: dict[int, tuple[str, str]],
           table: Callable[[list[str], list[list[str]]], str]) -> str:
    """The section as HTML (``raters``: id → (name, group), unused since the model's row
    moved into the matrix; ``table(head, rows)``)."""
    e = html.escape
    out = ["<h2>The model in QA</h2>"]
    if not parts:
        out.append(f"<p>{e(EMPTY)}</p>")
        return "\n".join(out)
    out.append(table(SUMMARY, [[f"<i>{e(c[0])}</i> (model)", *c[1:]]
                               for c in map(summary_cells, parts)]))
    out.append("<p class=note>Means over each model's images (against gold: over its images "
               "with gold). Each model's agreement with each person is its row of the "
               "annotator × annotator agreement matrix above (marked apart from the "
               "people).</p>")
    for part in parts:
        without, with_, n = part.alpha
        out.append(f"<h3>{e(part.label)} (a model: never counted as a person)</h3>")
        out.append(f"<p>{len(part.images)} images with its prediction and people's work. "
                   f"People's strict α without the model {fmt(without)}, with it "
                   f"{fmt(with_)} (Δ {fmt(with_ - without) if n else '–'}; {n} images with "
                   f"two people or more).</p>")
        gold = any(r.gold for r in part.images)  # (no gold column without an image with gold)
        if not gold:
            out.append("<p>No image with the model's prediction has gold yet (Owner ▸ Gold "
                       "and onboarding…): no columns against gold.</p>")
        out.append(table(image_head(gold), [[e(c) for c in image_cells(r, gold)]
                                            for r in part.images]))
    out.append(f"<p class=note>{e(NOTE)}</p>")
    return "\n".join(out)
