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
  the pairwise strict α of the model's and that person's masks (the matrix's own measure).

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
        sums: dict[int, list[float]] = {}
        for group in groups:
            image_id = group[0].image_id
            if model_annotation(project, model.id, image_id) is None:
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
                sums.setdefault(ann.rater_id, []).append(
                    mask_alpha(np.stack([strict[k], mine])))
            part.images.append(ModelImage(
                image_id, image.case_id, str(group[0].phase), len(group), view.majority,
                view.staple, view.gold, len(view.model_only), len(view.people_only),
                mask_alpha(strict) if len(group) >= 2 else math.nan, mask_alpha(both)))
        part.pairwise = {r: (float(np.nanmean(v)) if not all(map(math.isnan, v))
                             else math.nan, len(v)) for r, v in sums.items()}
        found.append(part)
    return found


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
    return lambda row: float(getattr(getattr(row, against), measure))


def _o(o: Overlap | None) -> list[str]:
    if o is None:
        return ["–"] * 4
    return [fmt(o.dice), fmt(o.hd95, 1), fmt(o.sensitivity), fmt(o.specificity)]


NOTE = ("Relaxed masks (certain or uncertain pixels). Majority: pixels more than half the "
        "people marked; STAPLE (Warfield et al. 2004), probability > 0.5. HD95: 95th percentile "
        "Hausdorff distance in pixels (SimpleITK's Maurer distance map; the larger of the two "
        "directions), NaN when one mask is empty. Sensitivity TP/(TP+FN), specificity "
        "TN/(TN+FP). Model only / people only: boxes (components of the union) that only the "
        "model, or only the people, marked. α: Krippendorff's α, nominal, strict, image level, "
        "of the people without and with the model.")


def render(parts: list[ModelPart], raters: dict[int, tuple[str, str]],
           table: Callable[[list[str], list[list[str]]], str]) -> str:
    """The section as HTML (``raters``: id → (name, group); ``table(head, rows)``)."""
    e = html.escape
    out = ["<h2>The model in QA</h2>"]
    if not parts:
        out.append("<p>No model in this project (slicereview predictions import, or "
                   "Owner ▸ Models…).</p>")
        return "\n".join(out)
    for part in parts:
        without, with_, n = part.alpha
        out.append(f"<h3>{e(part.label)} (a model: never counted as a person)</h3>")
        out.append(f"<p>{len(part.images)} images with its prediction and people's work. "
                   f"People's strict α without the model {fmt(without)}, with it "
                   f"{fmt(with_)} (Δ {fmt(with_ - without) if n else '–'}; {n} images with "
                   f"two people or more).</p>")
        means = [fmt(part.mean(_getter(a, m)), 3 if m == "dice" else 1)
                 for a in ("majority", "staple") for m in ("dice", "hd95")]
        out.append(f"<p>Mean Dice / HD95 against the majority {means[0]} / {means[1]}, "
                   f"against STAPLE {means[2]} / {means[3]}.</p>")
        against = ("majority", "STAPLE", "gold") if any(r.gold for r in part.images) else (
            "majority", "STAPLE")  # (no gold column without an image with gold)
        head = ["case", "phase", "people"] + [f"{w} {m}" for w in against
                                              for m in ("Dice", "HD95", "sens.", "spec.")]
        rows = [[e(r.case_id), e(r.phase), str(r.people), *_o(r.majority), *_o(r.staple),
                 *(_o(r.gold) if "gold" in against else []), str(r.model_only),
                 str(r.people_only), fmt(r.alpha_without), fmt(r.alpha_with)]
                for r in part.images]
        if "gold" not in against:
            out.append("<p>No image with the model's prediction has gold yet (Owner ▸ Gold "
                       "and onboarding…): no columns against gold.</p>")
        out.append(table(head + ["model only", "people only", "α people", "α with model"],
                         rows))
        cells = [[f"<i>{e(part.label)}</i> (model)", e(raters[r][0]), fmt(a), str(n_)]
                 for r, (a, n_) in sorted(part.pairwise.items())]
        out.append("<p>The model in the agreement matrix (apart from the people): its mean "
                   "pairwise strict α with each person over the images both annotated.</p>")
        out.append(table(["model", "person", "mean pairwise strict α", "images"], cells))
    out.append(f"<p class=note>{e(NOTE)}</p>")
    return "\n".join(out)
