"""The QA workflow's rules, held once: batches per phase, who works on what, the gold standard,
scoring onboarding work against it, the pre-filter and the owner's decision, and the
low-agreement threshold rule.

* **batches** — a batch is a named image set of one phase (``onboarding``, ``pilot``,
  ``formal``) assigned to annotators or whole groups (a rater's ``group``). Onboarding may be
  repeated for a new group (another onboarding batch); a group may skip the pilot (simply no
  pilot batch for it).
* **who may go on** — an annotator assigned to an onboarding batch may start pilot or formal
  work only once the owner's newest decision for them says so (:func:`may_start`); annotators
  never onboarded are not held back (the owner did not ask for onboarding). The rule is
  enforced where work happens — every annotating write (:mod:`slicereview.app.annotating`)
  and work packages (:mod:`slicereview.app.qa.packages`) — with :func:`why_not_start`'s one
  sentence (who decided, when, why); only an owner's new decision lifts it.
* **gold** — the standard of an onboarding image: an expert's finished annotation marked gold
  (:func:`mark_gold`) or an imported label mask (:func:`import_gold_mask`; PNG, 0 background,
  1 certain, 2 uncertain; a 0/255 mask is read as certain). Gold annotations are never scored
  and never count as an annotator's work.
* **scoring** — when an annotator finishes an onboarding image with gold, it is scored
  (:func:`score_submission`, called by :func:`slicereview.app.annotating.finish`): Dice
  (relaxed and strict ROI) and Krippendorff's α of the two masks (image level, strict and
  relaxed, and the mean box α). The scores are stored for the owner only; nothing tells the
  annotator which images have gold. Missing scores are filled in by :func:`score_pending`.
* **pre-filter** — an annotator passes when the mean relaxed Dice over their scored images of
  the batch is ≥ the batch's ``min_dice`` (:func:`prefilter`). The owner confirms or
  overrides (:func:`decide`); an override needs a reason; each decision is stored with who,
  when and why, the newest in force.
* **low agreement** (as Label Studio's agreement threshold, [LabelStudio]) —
  :func:`apply_low_agreement`: an image of the batch whose strict image α among its finished
  annotations (latest round each) is below ``alpha_threshold`` gets one more assigned
  annotator who has not seen it (fewest extra images first, then by id), up to
  ``max_annotators``; at the maximum, with nobody left, or with ``low_action = "review"`` it is
  flagged for review first. Each flag records why (the α, the threshold, the annotator count).
  An image is flagged again only after its annotations changed (a new annotation finished).

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> from slicereview.app.annotating import finish
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(10, 10)])
>>> expert, ann = project.raters.add("expert", "reviewer"), project.raters.add("ann", group="A")
>>> batch = define_batch(project, "onboarding A", "onboarding", [img], groups=["A"],
...                      min_dice=0.6)
>>> def square(rater, size):
...     a = project.annotations.for_image(rater, img, "onboarding")
...     v = np.array([[1, 1], [1 + size, 1], [1 + size, 1 + size], [1, 1 + size]], float)
...     _ = project.polygons.replace(a.id, [Polygon(v)])
...     return a.id
>>> gold_id = square(expert, 6); finish(project, gold_id, "submitted")
>>> mark_gold(project, gold_id)
>>> work = square(ann, 5); finish(project, work, "submitted")   # scored on submission
>>> round(project.workflow.gold_scores()[work]["dice"], 3)
0.82
>>> [(r.rater_id, r.passes) for r in prefilter(project, batch)]
[(2, True)]
>>> owner = project.raters.add("owner", "owner")
>>> _ = decide(project, batch, ann, owner)
>>> may_start(project, ann, "formal")
True
>>> project.close()
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# (the gold's label image is held in app/gold.py; re-exported here for the QA workflow's users)
from slicereview.app.gold import gold_labels as gold_labels
from slicereview.app.gold import labels_to_png as labels_to_png
from slicereview.app.gold import png_to_labels as png_to_labels
from slicereview.engines.masks import binary_mask, rasterize
from slicereview.model import AnnotationStatus, Batch, Phase, Role
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
OVERRIDE_NEEDS_REASON = "Overriding the pre-filter needs a reason: write why."


# -- batches ---------------------------------------------------------------------------------
def define_batch(
    project: Project, name: str, phase: Phase | str, image_ids: Sequence[int], *,
    raters: Sequence[int] = (), groups: Sequence[str] = (), min_dice: float | None = None,
    alpha_threshold: float | None = None, max_annotators: int = 3, low_action: str = "assign",
    annotators_per_image: int | None = None,
) -> int:
    """Create a batch with its rules and assignments in one transaction; returns its id.
    ``annotators_per_image``: hand its images out by claims (:mod:`.claiming`)."""
    if not image_ids:
        raise ValueError("a batch needs images")
    if annotators_per_image is not None and annotators_per_image < 1:
        raise ValueError("an image needs at least one annotator")
    _check_rules(min_dice, alpha_threshold, max_annotators, low_action)
    with project.transaction():
        batch_id = project.workflow.add_batch(name, phase, image_ids, min_dice=min_dice,
                                              alpha_threshold=alpha_threshold,
                                              max_annotators=max_annotators, low_action=low_action)
        for rater_id in raters:
            project.workflow.assign_batch(batch_id, rater_id=rater_id)
        for group in groups:
            project.workflow.assign_batch(batch_id, group=group)
        if annotators_per_image is not None:
            project.slots.open(batch_id, image_ids, annotators_per_image)
    return batch_id


def edit_batch(
    project: Project, batch_id: int, *, raters: Sequence[int] = (), groups: Sequence[str] = (),
    min_dice: float | None = None, alpha_threshold: float | None = None,
    max_annotators: int = 3, low_action: str = "assign",
) -> None:
    """Replace a batch's rules and add assignments (existing ones stay: work already given
    to an annotator is not taken back), in one transaction, with :func:`define_batch`'s checks."""
    _check_rules(min_dice, alpha_threshold, max_annotators, low_action)
    with project.transaction():
        project.workflow.set_batch_rules(batch_id, min_dice=min_dice,
                                         alpha_threshold=alpha_threshold,
                                         max_annotators=max_annotators, low_action=low_action)
        for rater_id in raters:
            project.workflow.assign_batch(batch_id, rater_id=rater_id)
        for group in groups:
            project.workflow.assign_batch(batch_id, group=group)


def _check_rules(min_dice: float | None, alpha_threshold: float | None, max_annotators: int,
                 low_action: str) -> None:
    if low_action not in ("assign", "review"):
        raise ValueError(f"low_action must be 'assign' or 'review', got {low_action!r}")
    if max_annotators < 2:
        raise ValueError("agreement needs at least two annotators per image")
    for value, what in ((min_dice, "min_dice"), (alpha_threshold, "alpha_threshold")):
        if value is not None and not -1.0 <= value <= 1.0:
            raise ValueError(f"{what} must lie in [-1, 1], got {value}")


def batch_annotators(project: Project, batch_id: int) -> list[int]:
    """Rater ids assigned to a batch, directly or through their group (annotators only,
    never a model)."""
    pairs = project.workflow.batch_assignments(batch_id)
    ids = {r for r, _ in pairs if r is not None}
    groups = {g for _, g in pairs if g is not None}
    return sorted(r.id for r in project.raters.all()
                  if r.role is Role.ANNOTATOR and not r.is_model
                  and (r.id in ids or r.group in groups))


def batches_for(project: Project, rater_id: int) -> list[int]:
    """Batch ids a rater is assigned to (directly or by group), oldest first."""
    return [b.id for b in project.workflow.batches() if rater_id in batch_annotators(project, b.id)]


def work_images(project: Project, rater_id: int, batch_id: int) -> list[int]:
    """Images a rater works on in a batch: all of them when assigned (in a batch handed out
    by claims, :mod:`.claiming`, those they claimed), plus images the low-agreement rule
    assigned to them; gold is not revealed (no flag says which is gold)."""
    batch = project.workflow.batch(batch_id)
    images = project.image_sets.members(batch.image_set_id)
    extra = {f.image_id for f in project.workflow.image_flags()
             if f.kind == "assign" and f.rater_id == rater_id and f.batch_id == batch_id}
    if rater_id in batch_annotators(project, batch_id):
        if not project.slots.is_open(batch_id):
            return images
        extra.update(project.slots.claimed(batch_id, rater_id))
    return [i for i in images if i in extra]


def may_start(project: Project, rater_id: int, phase: Phase | str) -> bool:
    """Whether a rater may work in ``phase``: onboarding always; pilot and formal when the
    owner's newest decision after an onboarding batch says go on, or when the rater was never
    assigned to onboarding."""
    return why_not_start(project, rater_id, phase) is None


class OnHold(PermissionError):
    """The owner's decision after onboarding (or its absence) holds this annotator back."""


def why_not_start(project: Project, rater_id: int, phase: Phase | str,
                  batches: Sequence[Batch] | None = None) -> str | None:
    """``None`` when the rater may work in ``phase`` (see :func:`may_start`), else one plain
    sentence saying why and who decided. ``batches``: the project's batches as the caller
    read them (else the onboarding ones are read here)."""
    if Phase(phase) is Phase.ONBOARDING:
        return None
    # (the onboarding batches first: this runs before every write of an annotator)
    if batches is None:
        batches = project.workflow.batches(Phase.ONBOARDING)
    onboarding = [b.id for b in batches if b.phase is Phase.ONBOARDING
                  and rater_id in batch_annotators(project, b.id)]
    if not onboarding:
        return None
    decisions = [q for q in project.workflow.qualifications(rater_id=rater_id)
                 if q.batch_id in onboarding]
    name = project.raters.get(rater_id).name
    if not decisions:
        batch = project.workflow.batch(onboarding[-1]).name
        return (f"{name} was given the onboarding batch “{batch}” and no owner has decided yet "
                f"whether {name} goes on, so {name} cannot do {Phase(phase)} work until an "
                "owner decides.")
    last = decisions[-1]
    if last.go_on:
        return None
    who = project.raters.get(last.decided_by).name if last.decided_by else "the owner"
    why = f" (“{last.reason}”)" if last.reason else ""
    return (f"{who} decided on {last.created_at[:10]} that {name} stops after the onboarding "
            f"batch “{project.workflow.batch(last.batch_id).name}”{why}, so {name} cannot do "
            f"{Phase(phase)} work unless an owner decides otherwise.")


def check_may_start(project: Project, rater_id: int, phase: Phase | str,
                    batches: Sequence[Batch] | None = None) -> None:
    """Raise :class:`OnHold` with :func:`why_not_start`'s sentence when held back."""
    reason = why_not_start(project, rater_id, phase, batches)
    if reason is not None:
        raise OnHold(reason)


# -- gold ------------------------------------------------------------------------------------
def mark_gold(project: Project, annotation_id: int) -> None:
    """Make a finished (expert's) annotation the gold of its image."""
    ann = project.annotations.get(annotation_id)
    if ann.status not in FINISHED:
        raise ValueError("only a finished annotation can be gold: submit it first")
    rater = project.raters.get(ann.rater_id)
    project.workflow.set_gold(ann.image_id, annotation_id=annotation_id,
                              origin=f"rater:{rater.name}")


def import_gold_mask(project: Project, image_id: int, file: str | Path) -> None:
    """Import a label mask PNG as the gold of an image (its size must match the image)."""
    labels = png_to_labels(Path(file).read_bytes())
    image = project.images.get(image_id)
    if labels.shape != (image.rows, image.cols):
        raise ValueError(f"the mask is {labels.shape[1]} × {labels.shape[0]} but the image is "
                         f"{image.cols} × {image.rows} (width × height)")
    project.workflow.set_gold(image_id, mask_png=labels_to_png(labels),
                              origin=f"file:{Path(file).name}")


def score_against_gold(gold: np.ndarray, labels: np.ndarray) -> dict[str, float | None]:
    """Scores of one label image against the gold one (both ``uint8 (H, W)``, 0/1/2).

    ``dice`` (relaxed ROI) and ``dice_strict``; ``strict_alpha``/``relaxed_alpha``: binary
    nominal Krippendorff's α of the two masks over all pixels; ``strict_box_alpha`` /
    ``relaxed_box_alpha``: the mean box α (``None`` without boxes). NaN becomes ``None``.

    >>> g = np.zeros((4, 4), np.uint8); g[1:3, 1:3] = 1
    >>> score_against_gold(g, g)["dice"], score_against_gold(g, g)["strict_alpha"]
    (1.0, 1.0)
    """
    # scipy loads with the first score, not with the rules (the Annotate tab asks them)
    from slicereview.engines.agreement import dice, segmentation_agreement

    agreement = segmentation_agreement(np.stack([gold, labels]))
    values = {
        "dice": dice(binary_mask(gold, "relaxed"), binary_mask(labels, "relaxed")),
        "dice_strict": dice(binary_mask(gold, "strict"), binary_mask(labels, "strict")),
        "strict_alpha": agreement.strict.alpha, "relaxed_alpha": agreement.relaxed.alpha,
        "strict_box_alpha": agreement.strict.mean_box_alpha,
        "relaxed_box_alpha": agreement.relaxed.mean_box_alpha,
    }
    return {k: None if math.isnan(v) else float(v) for k, v in values.items()}


def score_submission(project: Project, annotation_id: int) -> dict[str, float | None] | None:
    """Score a finished onboarding annotation against its image's gold and store the scores
    (``None``: not onboarding, not finished, no gold, or it is the gold itself)."""
    ann = project.annotations.get(annotation_id)
    if ann.phase is not Phase.ONBOARDING or ann.status not in FINISHED:
        return None
    gold = project.workflow.gold(ann.image_id)
    if gold is None or gold[0] == annotation_id:
        return None
    image = project.images.get(ann.image_id)
    labels = rasterize(project.polygons.of(annotation_id), (image.rows, image.cols))
    scores = score_against_gold(gold_labels(project, ann.image_id), labels)  # type: ignore[arg-type]
    project.workflow.store_gold_score(annotation_id, ann.image_id, scores)
    return scores


def score_pending(project: Project) -> int:
    """Score every finished onboarding annotation on a gold image that has no score yet;
    returns how many were scored."""
    have, gold_ids = project.workflow.gold_scores(), project.workflow.gold_annotation_ids()
    gold_images = set(project.workflow.gold_images())
    done = 0
    for ann in project.annotations.all(phase=Phase.ONBOARDING, status=FINISHED):
        if ann.image_id in gold_images and ann.id not in have and ann.id not in gold_ids:
            done += score_submission(project, ann.id) is not None
    return done


# -- the pre-filter and the owner's decision -------------------------------------------------
@dataclass(frozen=True)
class PrefilterRow:
    """One annotator of an onboarding batch: images scored, mean relaxed Dice against gold,
    whether the pre-filter passes (``None``: no threshold set or nothing scored)."""

    rater_id: int
    scored: int
    mean_dice: float | None
    passes: bool | None


def prefilter(project: Project, batch_id: int) -> list[PrefilterRow]:
    """The pre-filter of a batch for each assigned annotator (mean relaxed Dice ≥ min_dice)."""
    batch = project.workflow.batch(batch_id)
    images = set(project.image_sets.members(batch.image_set_id))
    scores = project.workflow.gold_scores()
    rows = []
    for rater_id in batch_annotators(project, batch_id):
        dices = [scores[a.id]["dice"] for a in project.annotations.all(
                     rater_id=rater_id, phase=batch.phase, status=FINISHED)
                 if a.image_id in images and a.id in scores
                 and scores[a.id]["dice"] is not None]
        mean = float(np.mean(dices)) if dices else None
        passes = None if batch.min_dice is None or mean is None else mean >= batch.min_dice
        rows.append(PrefilterRow(rater_id, len(dices), mean, passes))
    return rows


def decide(project: Project, batch_id: int, rater_id: int, owner_id: int,
           go_on: bool | None = None, reason: str = "") -> int:
    """The owner's decision whether an annotator may go on after a batch; ``go_on=None``
    confirms the pre-filter. Going against the pre-filter needs a reason. Returns its id."""
    if project.raters.get(owner_id).role is not Role.OWNER:
        raise PermissionError("only the task owner decides who goes on")
    row = next((r for r in prefilter(project, batch_id) if r.rater_id == rater_id), None)
    if row is None:
        raise ValueError("this annotator is not assigned to the batch")
    if go_on is None:
        if row.passes is None:
            raise ValueError("the pre-filter has no verdict here: decide go_on yourself")
        go_on = row.passes
    if row.passes is not None and go_on != row.passes and not reason.strip():
        raise ValueError(OVERRIDE_NEEDS_REASON)
    return project.workflow.add_qualification(batch_id, rater_id, go_on, prefilter=row.passes,
                                              mean_dice=row.mean_dice, decided_by=owner_id,
                                              reason=reason.strip())
