"""The low-agreement threshold rule (as Label Studio's agreement threshold, [LabelStudio]), held
once; the rule is described in :mod:`slicereview.app.qa.workflow`, whose functions this module uses.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> from slicereview.app.qa.workflow import define_batch
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(10, 10)])
>>> a, b, c = (project.raters.add(n, group=g) for n, g in (("a", "A"), ("b", "A"), ("c", "B")))
>>> batch = define_batch(project, "formal A", "formal", [img], groups=["A"],
...                      alpha_threshold=0.667, max_annotators=3)
>>> for rater, x in ((a, 1), (b, 5)):
...     ann = project.annotations.for_image(rater, img)
...     v = np.array([[x, 1], [x + 4, 1], [x + 4, 5], [x, 5]], float)
...     _ = project.polygons.replace(ann.id, [Polygon(v)])
...     project.annotations.set_status(ann.id, "submitted")
>>> [(f.kind, f.rater_id) for f in apply_low_agreement(project, batch)]
[('assign', 3)]
>>> apply_low_agreement(project, batch)       # nothing new: c has not finished yet
[]
>>> project.close()
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from slicereview.app.models.raters import model_ids, people
from slicereview.app.qa.workflow import FINISHED, batch_annotators, may_start
from slicereview.engines.agreement import mask_alpha
from slicereview.engines.masks import binary_mask, rasterize
from slicereview.model import Annotation, Batch, ImageFlag, Phase, Role
from slicereview.store import Project


def latest_finished(project: Project, image_id: int, phase: str) -> list[Annotation]:
    """One finished annotation per annotator (their latest round), gold and models'
    predictions excluded."""
    gold, models = project.workflow.gold_annotation_ids(), model_ids(project)
    chosen: dict[int, Annotation] = {}
    for ann in project.annotations.all(image_id=image_id, phase=phase, status=FINISHED):
        if ann.id not in gold and ann.rater_id not in models:
            chosen[ann.rater_id] = ann      # ordered by round: the latest wins
    return list(chosen.values())


def strict_alpha(project: Project, annotations: list[Annotation]) -> float:
    """Image-level strict α (binary nominal Krippendorff's α over all pixels) of the
    annotations of one image; NaN with fewer than two."""
    if len(annotations) < 2:
        return math.nan
    image = project.images.get(annotations[0].image_id)
    masks = [binary_mask(rasterize(project.polygons.of(a.id), (image.rows, image.cols)),
                         "strict") for a in annotations]
    return mask_alpha(np.stack(masks))


def _key(annotations: list[Annotation]) -> str:
    return "[annotations " + ",".join(str(i) for i in sorted(a.id for a in annotations)) + "]"


def apply_low_agreement(project: Project, batch_id: int,
                        image_ids: Iterable[int] | None = None) -> list[ImageFlag]:
    """Apply the rule to the images of a batch (default: all; ``image_ids``: only these);
    returns the new flags (see the workflow module). Does nothing when the batch has no
    threshold."""
    batch = project.workflow.batch(batch_id)
    if batch.alpha_threshold is None:
        return []
    phase = str(batch.phase)
    assigned = set(batch_annotators(project, batch_id))
    flags = project.workflow.image_flags()
    extra_count: dict[int, int] = {}
    for f in flags:
        if f.kind == "assign" and f.rater_id is not None:
            extra_count[f.rater_id] = extra_count.get(f.rater_id, 0) + 1
    new: list[int] = []
    images = project.image_sets.members(batch.image_set_id)
    if image_ids is not None:
        wanted = set(image_ids)
        images = [i for i in images if i in wanted]
    for image_id in images:
        mine = [f for f in flags if f.image_id == image_id and f.batch_id == batch_id]
        anns = latest_finished(project, image_id, phase)
        done = {a.rater_id for a in anns}
        pending = [f.rater_id for f in mine if f.kind == "assign" and f.rater_id not in done]
        key = _key(anns)
        if pending or any(f.reason.endswith(key) for f in mine):
            continue
        alpha = strict_alpha(project, anns)
        if math.isnan(alpha) or alpha >= batch.alpha_threshold:
            continue
        # (round, then + 0.0: an α of -0.0004 reads 0.000, never -0.000)
        why = (f"strict α (nominal, image level) {round(alpha, 3) + 0.0:.3f} < threshold "
               f"{round(batch.alpha_threshold, 3) + 0.0:.3f} among {len(anns)} annotators")
        started = {a.rater_id for a in project.annotations.all(image_id=image_id, phase=phase)}
        candidates = sorted(
            (r.id for r in people(project.raters.all()) if r.role is Role.ANNOTATOR
             and r.id not in assigned and r.id not in started
             and may_start(project, r.id, phase)),
            key=lambda r: (extra_count.get(r, 0), r))
        if batch.low_action == "assign" and candidates and len(anns) < batch.max_annotators:
            who = candidates[0]
            extra_count[who] = extra_count.get(who, 0) + 1
            new.append(project.workflow.add_image_flag(
                image_id, "assign", f"{why}: one more annotator {key}", batch_id=batch_id,
                rater_id=who))
        else:
            because = ("the batch sends low agreement to review" if batch.low_action == "review"
                       else f"the maximum of {batch.max_annotators} annotators is reached"
                       if len(anns) >= batch.max_annotators else "no annotator is left")
            new.append(project.workflow.add_image_flag(
                image_id, "review", f"{why}; {because}: review first {key}",
                batch_id=batch_id))
    return [f for f in project.workflow.image_flags() if f.id in new]


def after_finish(project: Project, annotation_id: int, ann: Annotation | None = None,
                 batches: Sequence[Batch] | None = None) -> None:
    """What finishing an annotation sets going: the gold score of onboarding work and the
    low-agreement rule of the batches holding the image (that image only, so finishing stays
    cheap in a large batch). ``ann``: the annotation as the caller read it (its phase and
    image are what is used), ``batches``: the project's batches as the caller read them; else
    read here."""
    from slicereview.app.qa.workflow import score_submission

    ann = ann or project.annotations.get(annotation_id)
    if ann.phase is Phase.ONBOARDING:
        score_submission(project, annotation_id)
    if batches is None:
        batches = project.workflow.batches(ann.phase)
    for batch in batches:
        if batch.phase is ann.phase and batch.alpha_threshold is not None \
                and ann.image_id in project.image_sets.members(batch.image_set_id):
            apply_low_agreement(project, batch.id, [ann.image_id])


def _phase_batches(project: Project, phase: str | None) -> dict[int, str]:
    return {b.id: b.name for b in project.workflow.batches(phase)}


def readable(reason: str) -> str:
    """A flag's reason without the bookkeeping suffix (``[annotations 1,2]``)."""
    return reason.split(" [annotations ")[0].rstrip(":; ")


def review_first(project: Project, phase: str | None = None) -> dict[int, str]:
    """Images flagged *review first* (in ``phase``'s batches; ``None``: any): image id → why,
    the newest flag's reason."""
    batches = _phase_batches(project, phase)
    return {f.image_id: f"Flagged in batch “{batches.get(f.batch_id or 0, '?')}”: "
                        f"{readable(f.reason)}"
            for f in project.workflow.image_flags()
            if f.kind == "review" and (f.batch_id in batches or (phase is None and f.batch_id
                                                                  is None))}


def extra_assignments(project: Project, rater_id: int, phase: str | None = None
                      ) -> dict[int, str]:
    """Images the rule gave ``rater_id`` as one more annotator (in ``phase``'s batches):
    image id → why."""
    batches = _phase_batches(project, phase)
    return {f.image_id: f"Given to you as one more annotator in batch "
                        f"“{batches.get(f.batch_id or 0, '?')}”: {readable(f.reason)}"
            for f in project.workflow.image_flags()
            if f.kind == "assign" and f.rater_id == rater_id
            and (f.batch_id in batches or (phase is None and f.batch_id is None))}
