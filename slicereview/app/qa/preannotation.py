"""Pre-annotation, held once: a batch's annotators start from a model's polygons, on every
image or on a seeded random half, and the design is stored so its effect can be measured
(:mod:`slicereview.app.report.preannotation`; docs/models.md, "Pre-annotation").

* **the setting** (:func:`set_preannotation`) — per batch, the owner names the model (a
  rater whose finished annotations are its predictions) and the share, ``"all"`` or
  ``"half"``, with a seed. The design is stored at once for every annotator assigned to the
  batch and every image of it, one row per image and annotator, *shown* or not, the control
  arm too (:func:`design`). Setting it again keeps the rows already stored (work already
  started keeps its arm) and adds the rows of annotators assigned since; an annotator
  assigned later than the last setting starts empty until the owner sets it again.
* **the random half** is balanced: the batch's images in a seeded random order, the
  annotators by id; annotator ``j`` is shown the image at place ``p`` when ``p + j`` is even.
  So each annotator sees the model on half their images (±1) and each image is shown to
  half its annotators (±1), which gives every image both arms when it has two annotators or
  more: the comparison is within images.
* **the starting point** (:func:`starting_polygons`, called by
  :func:`slicereview.app.annotating.start` in the transaction that creates the annotation)
  — an annotator's first annotation (round 1) of an image in the batch's phase, where the
  design shows them the model, is created holding a copy of the model's newest finished
  annotation of the image: each polygon with provenance ``model NAME`` (already the model's,
  or marked so), which becomes ``model-edited`` once its outline changes
  (:func:`slicereview.app.annotating.edited_polygon`). The copy is the annotation's
  *starting state*: it is not an undo step (undo goes back to it, not before it), as a
  document opened from a template in an editor. An image the model has no prediction of
  starts empty. The Annotate tab creates the annotation when such an image is opened (the
  annotator sees the model's polygons at once); the CLI and scripts when they start it.
* a model is never an annotator of the design, and the design's rows are the owner's
  (written by owners and reviewers; on a server an annotator's login reads its own rows and
  the model's annotations of the images shown to it, and nothing else of the model).

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> from slicereview.app.annotating import start
>>> from slicereview.app.qa.workflow import define_batch
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ids = [project.images.add_source(pathlib.Path(__file__), str(k) * 64, "png",
...                                  [NewImage(8, 8)])[0] for k in range(4)]
>>> from slicereview.app.models.raters import model_rater
>>> net = model_rater(project, "net", "1").id
>>> for i in ids:
...     a = project.annotations.for_image(net, i)
...     _ = project.polygons.replace(a.id, [Polygon([[1, 1], [5, 1], [5, 5]])])
...     project.annotations.set_status(a.id, "submitted")
>>> anns = [project.raters.add(n) for n in ("ann", "bob")]
>>> batch = define_batch(project, "b", "formal", ids, raters=anns)
>>> set_preannotation(project, batch, net, "half", seed=3, set_by="owner")
(8, 4)
>>> shown = {(i, r): s for _, i, r, s in design(project, batch)}
>>> [sum(shown[i, r] for i in ids) for r in anns], [shown[i, anns[0]] != shown[i, anns[1]]
...                                                 for i in ids]
([2, 2], [True, True, True, True])
>>> first = next(i for i in ids if shown[i, anns[0]])
>>> [str(p.tool) + " " + str(p.model) for p in project.polygons.of(start(project, anns[0],
...                                                                     first).id)]
['model net@1']
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from slicereview.model import AnnotationStatus, Phase, Polygon, Rater, Tool
from slicereview.store import Project

#: The shares of a batch the model may be shown on.
SHARES = ("all", "half")
FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)


def balanced_half(image_ids: Sequence[int], rater_ids: Sequence[int], seed: int
                  ) -> dict[tuple[int, int], bool]:
    """``(image, rater) → shown`` of the balanced random half (module docstring).

    >>> d = balanced_half([10, 11, 12], [1, 2], seed=0)
    >>> sorted(i for (i, r), s in d.items() if s and r == 1) != sorted(
    ...     i for (i, r), s in d.items() if s and r == 2)
    True
    """
    order = np.random.default_rng(seed).permutation(sorted(image_ids))
    place = {int(i): p for p, i in enumerate(order)}
    return {(i, r): (place[i] + j) % 2 == 0
            for j, r in enumerate(sorted(rater_ids)) for i in image_ids}


def model_label(rater: Rater) -> str:
    """How a model's polygons name it (``Polygon.model``): ``NAME@VERSION``."""
    return rater.label


def models(project: Project) -> list[Rater]:
    """The project's model raters (what pre-annotation may show), by label."""
    from slicereview.app.models.raters import models as model_raters

    return model_raters(project)


def describe(project: Project, batch_id: int) -> str:
    """The batch's pre-annotation in a sentence (what the Owner's batch settings show)."""
    setting = project.preannotation.setting(batch_id)
    if setting is None:
        return "No model is shown: annotators start empty."
    rows = project.preannotation.design(batch_id)
    shown = sum(s for *_, s in rows)
    model = model_label(project.raters.get(setting.model_id))
    what = "every image" if setting.share == "all" else f"a random half (seed {setting.seed})"
    said = (f"{model} is shown on {what}: {shown} of {len(rows)} image × annotator starts "
            f"begin as a copy of its polygons; set by {setting.set_by} on "
            f"{setting.set_at[:16].replace('T', ' ')} UTC.")
    return " ".join([said, *caveats(project, batch_id)])


def caveats(project: Project, batch_id: int) -> list[str]:
    """What limits a batch's pre-annotation, one sentence each: images the model has no
    prediction of (they start empty) and work begun before the design (it has no arm)."""
    from slicereview.app.qa.workflow import batch_annotators

    setting = project.preannotation.setting(batch_id)
    if setting is None:
        return []
    batch = project.workflow.batch(batch_id)
    images = set(project.image_sets.members(batch.image_set_id))
    predicted = {a.image_id for a in project.annotations.all(rater_id=setting.model_id,
                                                              status=FINISHED)} & images
    said = []
    if not predicted:
        said.append("The model has no prediction of this batch's images, so every annotator "
                    "starts empty: import or run its predictions of them first.")
    elif len(predicted) < len(images):
        said.append(f"The model predicted {len(predicted)} of {len(images)} images; the "
                    f"others start empty.")
    people = set(batch_annotators(project, batch_id)) - {setting.model_id}
    stored = {(i, r) for _, i, r, _ in project.preannotation.design(batch_id)}
    begun = {(a.image_id, a.rater_id) for a in project.annotations.all(phase=batch.phase,
                                                                       round=1)
             if a.image_id in images and a.rater_id in people} - stored
    if begun:
        said.append(f"{len(begun)} image × annotator starts were begun before the design "
                    f"and have no arm (they cannot have started from the model).")
    return said


def find_model(project: Project, text: str) -> Rater:
    """The model ``NAME@VERSION`` (or ``NAME`` of one version) names; :class:`ValueError`
    in a sentence when there is none."""
    from slicereview.app.models.raters import find_model as find

    try:
        return find(project, text)
    except LookupError as exc:
        raise ValueError(f"{exc} Import its predictions first (slicereview predictions "
                         f"import PROJECT --model NAME@VERSION ...).") from None


def set_preannotation(project: Project, batch_id: int, model_id: int, share: str,
                      seed: int = 0, set_by: str = "") -> tuple[int, int]:
    """Show ``model_id``'s polygons to the batch's annotators on ``share`` of its images
    (one transaction); returns ``(design rows stored now or before, images of the batch the
    model has a prediction of)``."""
    from slicereview.app.qa.workflow import batch_annotators

    if share not in SHARES:
        raise ValueError(f"pre-annotation shows the model on 'all' or 'half' the images, "
                         f"not {share!r}")
    if not project.raters.get(model_id).is_model:
        raise ValueError(f"{project.raters.get(model_id).name} is a person: pre-annotation "
                         f"shows a model's predictions only")
    batch = project.workflow.batch(batch_id)
    images = project.image_sets.members(batch.image_set_id)
    raters = [r for r in batch_annotators(project, batch_id) if r != model_id]
    if not raters:
        raise ValueError(f"batch {batch.name!r} has no annotators yet: assign them first")
    shown = (balanced_half(images, raters, seed) if share == "half"
             else {(i, r): True for i in images for r in raters})
    # work begun before the design cannot have started from the model: it gets no arm (an
    # arm stored before is kept by the store), so the report never counts it as shown
    members, people = set(images), set(raters)
    begun = {(a.image_id, a.rater_id) for a in project.annotations.all(phase=batch.phase,
                                                                       round=1)
             if a.image_id in members and a.rater_id in people}
    with project.transaction():
        project.preannotation.set(batch_id, model_id, share, seed, set_by,
                                  [(i, r, shown[i, r]) for i in images for r in raters
                                   if (i, r) not in begun])
        predicted = {a.image_id for a in project.annotations.all(rater_id=model_id,
                                                                  status=FINISHED)}
    return len(project.preannotation.design(batch_id)), len(predicted & set(images))


def clear_preannotation(project: Project, batch_id: int) -> None:
    """The batch shows no model from now on (annotations already started keep their polygons;
    the report no longer compares the batch's arms)."""
    project.preannotation.clear(batch_id)


def design(project: Project, batch_id: int | None = None) -> list[tuple[int, int, int, bool]]:
    """``(batch, image, rater, shown)`` of one batch's design, or of every batch."""
    return project.preannotation.design(batch_id)


def model_annotation(project: Project, model_id: int, image_id: int) -> int | None:
    """The id of the model's newest finished annotation of the image (its prediction)."""
    found = project.annotations.all(image_id=image_id, rater_id=model_id, status=FINISHED)
    return max((a.id for a in found), default=None)


def starting_polygons(project: Project, rater_id: int, image_id: int,
                      phase: Phase | str = Phase.FORMAL, round: int = 1) -> list[Polygon]:
    """What the rater's new annotation of the image starts with: a copy of the model's
    polygons when the design shows them the model (module docstring), else nothing."""
    if round != 1:
        return []  # (a repeat measures the annotator alone)
    model_id = project.preannotation.shown_to(rater_id, image_id, str(Phase(phase)))
    if model_id is None:
        return []
    annotation = model_annotation(project, model_id, image_id)
    if annotation is None:
        return []
    label = model_label(project.raters.get(model_id))
    return [replace(p, id=None, edited=False, tool=Tool.MODEL,
                    model=p.model if p.tool is Tool.MODEL else label)
            for p in project.polygons.of(annotation)]
