"""The annotating job: the rules of editing and finishing an annotation, held once.

The GUI's gateway, the CLI and scripts all call these functions, so the rules hold everywhere:

* **an edit reopens a submitted annotation** — any polygon change to a *submitted* annotation
  sets it back to *in progress*, in the same transaction as the change (a crash between the two
  can never leave an edited annotation marked submitted);
* **submitting needs polygons** — an empty annotation is finished with
  :func:`finish` ``(..., NOTHING_TO_ANNOTATE)`` instead, which is refused while polygons exist
  (the store checks that one, it is a consistency rule of the data);
* **the owner's decision holds** — an annotator held back after onboarding (the owner said
  *stop*, or has not decided yet) cannot start or change pilot or formal work: every write
  here refuses with :class:`~slicereview.app.qa.workflow.OnHold` and its one sentence (who
  decided, when, why; :func:`slicereview.app.qa.workflow.why_not_start`);
* **claims are a lock** — an annotator assigned to a batch handed out by claims who starts
  one of its images by hand takes one of its places, or is refused when all are taken
  (:func:`slicereview.app.qa.claiming.take_place`);
* annotators are raters with the ``annotator`` role, never a model, people listed before
  simulated ones;
* an annotator's **batch** (:func:`batch_images`) is the set of images they work through in a
  phase — never the rating image sets;
* **provenance** (:func:`edited_polygon`) — a polygon keeps the tool that made it
  (:class:`~slicereview.model.Tool`, and the model that predicted it) through every edit, and
  is marked *edited* once its outline changes: a vertex dragged, added or deleted, the polygon
  moved, a brush or eraser stroke on it. Changing its certainty, label or classification
  answers is not an edit of the outline. A new outline made from it by a tool (``refine``)
  takes that tool and is not edited. Undo restores the provenance stored before.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image_id] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                        [NewImage(6, 6)])
>>> ann = project.annotations.for_image(add_annotator(project, "ann"), image_id)
>>> finish(project, ann.id, "submitted")
Traceback (most recent call last):
...
ValueError: No polygons yet: draw some, or use 'Nothing to annotate'.
>>> square = Polygon(np.array([[1.0, 1.0], [4.0, 1.0], [4.0, 4.0], [1.0, 4.0]]))
>>> _ = add_polygon(project, ann.id, square)
>>> finish(project, ann.id, "submitted")
>>> _ = add_polygon(project, ann.id, square)      # an edit reopens it
>>> str(project.annotations.get(ann.id).status)
'in_progress'
>>> int(label_image(project, ann.id).sum())
9
>>> moved = edited_polygon(square, Polygon(square.vertices + 1.0))
>>> provenance_text(moved), provenance_text(Polygon(square.vertices, tool="wand"))
('manual, edited', 'wand')
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from slicereview.engines.masks import rasterize
from slicereview.model import (
    Annotation,
    AnnotationStatus,
    Batch,
    Phase,
    Polygon,
    Rater,
    Role,
    Tool,
)
from slicereview.store import Project

NO_POLYGONS = "No polygons yet: draw some, or use 'Nothing to annotate'."
#: The tools that draw by hand (every other one computes the outline from a person's prompts,
#: or is a model's prediction).
HAND_TOOLS = frozenset({Tool.MANUAL, Tool.FREEHAND, Tool.BRUSH})


def annotators(project: Project) -> list[Rater]:
    """Persons with the annotator role, people first, simulated ones last (then by name); a
    model is never one (:mod:`slicereview.app.models.raters`)."""
    found = [r for r in project.raters.all() if r.role is Role.ANNOTATOR and not r.is_model]
    return sorted(found, key=lambda r: (r.simulated, r.name.lower()))


def add_annotator(project: Project, name: str) -> int:
    """Create an annotator (or return the existing rater of that name)."""
    name = name.strip()
    if not name:
        raise ValueError("an annotator needs a name")
    return project.raters.ensure(name, Role.ANNOTATOR)


def check_may_work(project: Project, rater_id: int, phase: Phase | str,
                   batches: Sequence[Batch] | None = None) -> None:
    """Raise :class:`~slicereview.app.qa.workflow.OnHold` when the owner's decision after
    onboarding holds the rater back from ``phase`` (``batches``: the project's batches as the
    caller read them, else read here)."""
    if Phase(phase) is Phase.ONBOARDING:
        return  # (no query: onboarding is always open)
    from slicereview.app.qa.workflow import check_may_start  # (not needed at start-up)

    check_may_start(project, rater_id, phase, batches)


def _check(project: Project, annotation_id: int) -> None:
    ann = project.annotations.get(annotation_id)
    check_may_work(project, ann.rater_id, ann.phase)


def start(project: Project, rater_id: int, image_id: int, phase: Phase | str = Phase.FORMAL,
          round: int = 1) -> Annotation:
    """The rater's annotation of the image in ``phase`` and ``round``, created (empty, or
    holding the model's polygons where pre-annotation shows them,
    :mod:`slicereview.app.qa.preannotation`; *in progress*) when missing — refused while
    the owner's decision holds the rater back, and
    (:class:`~slicereview.app.qa.claiming.PlacesTaken`) when the image is in a batch handed
    out by claims whose places for it are all taken by others."""
    with project.transaction():  # (a busy file is one clear error, and the check and the
        # write see the same state)
        found = project.annotations.for_image(rater_id, image_id, phase, round, create=False)
        if found is not None:
            return found
        check_may_work(project, rater_id, phase)
        from slicereview.app.qa.claiming import take_place  # (not needed at start-up)

        take_place(project, rater_id, image_id, phase)  # (a batch handed out by claims)
        made = project.annotations.for_image(rater_id, image_id, phase, round, create=True)
        assert made is not None
        from slicereview.app.qa.preannotation import starting_polygons

        polygons = starting_polygons(project, rater_id, image_id, phase, round)
        if polygons:  # (pre-annotation: the model's polygons are its starting state)
            project.polygons.replace(made.id, polygons)
            made = project.annotations.get(made.id)
    return made


def set_classifications(project: Project, annotation_id: int, answers: dict) -> None:
    """Store the image-level answers of an annotation (``{question key: answer}``)."""
    with project.transaction():
        _check(project, annotation_id)
        project.annotations.set_image_classifications(annotation_id, answers)


def _reopen(project: Project, annotation_id: int) -> None:
    if project.annotations.get(annotation_id).status is AnnotationStatus.SUBMITTED:
        project.annotations.set_status(annotation_id, AnnotationStatus.IN_PROGRESS)


def edited_polygon(before: Polygon, after: Polygon, tool: Tool | str | None = None) -> Polygon:
    """``after`` as an edit of the stored polygon ``before`` is stored: the provenance rule.

    Without ``tool``: ``before``'s id, tool and model (an edit never changes how a polygon was
    made), and ``edited`` when ``before`` was, or when the outline changed (the vertices
    differ: a vertex dragged, added or deleted, a move, a brush or eraser stroke). A change of
    certainty, label or classifications alone leaves ``edited`` as it was. With ``tool`` (e.g.
    ``refine`` of a selected polygon): a new outline made by that tool, not edited.

    >>> v = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0]])
    >>> wand = Polygon(v, tool="wand", id=7)
    >>> edited_polygon(wand, replace(wand, certainty="uncertain")).edited
    False
    >>> moved = edited_polygon(wand, Polygon(v + 2.0))    # (a bare Polygon: manual)
    >>> moved.id, str(moved.tool), moved.edited
    (7, 'wand', True)
    >>> str(edited_polygon(moved, moved, tool="refine").tool), moved.edited
    ('refine', True)
    """
    if tool is not None:
        if Tool(tool) is Tool.MODEL:
            raise ValueError("a model's polygon is added as it was predicted, not by an edit")
        return replace(after, id=before.id, tool=Tool(tool), edited=False, model=None)
    changed = not np.array_equal(before.vertices, after.vertices)
    return replace(after, id=before.id, tool=before.tool, model=before.model,
                   edited=before.edited or changed)


def tool_name(tool: Tool | str, model: str | None = None) -> str:
    """A polygon's tool as tables name it: ``"wand"``; ``"model NAME"`` for a model's
    prediction (one row per model)."""
    return f"model {model}" if Tool(tool) is Tool.MODEL else str(Tool(tool))


def in_tool_order(polygons: Sequence[Polygon]) -> list[Polygon]:
    """``polygons`` sorted by tool (:class:`~slicereview.model.Tool` order), then model."""
    order = list(Tool)
    return sorted(polygons, key=lambda p: (order.index(p.tool), p.model or ""))


def provenance_text(polygon: Polygon) -> str:
    """How ``polygon`` was made, in a few words: ``"freehand"``, ``"wand, edited"``,
    ``"model NAME"`` and, once edited, ``"model-edited (NAME)"``.

    >>> provenance_text(Polygon([[0, 0], [1, 0], [1, 1]], tool="model", model="net@2"))
    'model net@2'
    """
    if polygon.tool is Tool.MODEL:
        return f"model-edited ({polygon.model})" if polygon.edited else f"model {polygon.model}"
    return f"{polygon.tool}, edited" if polygon.edited else str(polygon.tool)


def tool_summary(polygons: Sequence[Polygon]) -> str:
    """How many polygons, by tool (in :class:`~slicereview.model.Tool` order), and how many
    were edited: what the CLI shows where it lists annotations.

    >>> v = [[0, 0], [4, 0], [4, 4]]
    >>> tool_summary([Polygon(v), Polygon(v, tool="wand", edited=True), Polygon(v)])
    '3 (manual 2, wand 1; 1 edited)'
    >>> tool_summary([])
    '0'
    """
    if not polygons:
        return "0"
    counts: dict[str, int] = {}
    for p in in_tool_order(polygons):
        key = tool_name(p.tool, p.model)
        counts[key] = counts.get(key, 0) + 1
    edited = sum(p.edited for p in polygons)
    return (f"{len(polygons)} (" + ", ".join(f"{k} {n}" for k, n in counts.items())
            + (f"; {edited} edited" if edited else "") + ")")


def add_polygon(project: Project, annotation_id: int, polygon: Polygon,
                position: int | None = None) -> int:
    """Add ``polygon`` (at drawing ``position``, default on top) with its provenance as given
    (``Polygon(vertices, certainty, tool=Tool.WAND)``; undo of a deletion adds the polygon
    back with the provenance it had); returns its id."""
    with project.transaction():
        _check(project, annotation_id)
        new_id = project.polygons.add(annotation_id, polygon, position)
        _reopen(project, annotation_id)
    return new_id


def update_polygon(project: Project, annotation_id: int, polygon: Polygon) -> None:
    """Replace the stored polygon ``polygon.id`` (vertices, certainty, classifications,
    provenance) by ``polygon`` as given. An edit passes :func:`edited_polygon` of the stored
    one (:class:`~slicereview.app.commands.EditPolygon` does); its undo passes the stored one."""
    if polygon.id is None:
        raise ValueError("only a stored polygon (with an id) can be updated")
    with project.transaction():
        _check(project, annotation_id)
        project.polygons.update(polygon.id, polygon)
        _reopen(project, annotation_id)


def delete_polygon(project: Project, annotation_id: int, polygon_id: int) -> int:
    """Delete a polygon; returns the drawing position it had (for undo)."""
    with project.transaction():
        _check(project, annotation_id)
        position = project.polygons.delete(polygon_id)
        _reopen(project, annotation_id)
    return position


def replace_polygons(project: Project, annotation_id: int, polygons: Sequence[Polygon]
                     ) -> list[int]:
    """Make ``polygons`` the annotation's whole content (one transaction); returns ids."""
    with project.transaction():
        _check(project, annotation_id)
        ids = project.polygons.replace(annotation_id, polygons)
        _reopen(project, annotation_id)
    return ids


def finish(project: Project, annotation_id: int, status: AnnotationStatus | str) -> None:
    """Set the annotation's status, enforcing "submitting needs polygons".

    ``submitted`` with no polygons raises :class:`ValueError` (:data:`NO_POLYGONS`);
    ``nothing_to_annotate`` with polygons is refused by the store. A finished annotation is
    then scored against gold and the low-agreement rule applied
    (:func:`slicereview.app.qa.low_agreement.after_finish`).
    """
    status = AnnotationStatus(status)
    with project.transaction():  # (one intent: a check that fails undoes the write)
        # (on a server each statement is a round trip: a submit is written first, which
        # returns the annotation; the batches are read once, for the check and after_finish)
        submitted = (project.annotations.submit_if_drawn(annotation_id)
                     if status is AnnotationStatus.SUBMITTED else None)
        ann = submitted or project.annotations.get(annotation_id)
        batches = project.workflow.batches()
        check_may_work(project, ann.rater_id, ann.phase, batches)
        if status is not AnnotationStatus.SUBMITTED:
            project.annotations.set_status(annotation_id, status)
        elif submitted is None:
            raise ValueError(NO_POLYGONS)
    if status is not AnnotationStatus.IN_PROGRESS:
        # the QA workflow: onboarding work is scored against gold, low agreement acted on
        from slicereview.app.qa.low_agreement import after_finish

        after_finish(project, annotation_id, ann, batches)


def batch_images(project: Project, rater_id: int, phase: Phase | str) -> list[int]:
    """The images ``rater_id`` is given to annotate in ``phase`` (what "Done: n of N" counts),
    in project order: the same for an annotator whatever else the project holds.

    * the phase has batches: the union of their work there
      (:func:`~slicereview.app.qa.workflow.work_images`: every image of a batch they are
      assigned to, directly or by group; in a batch handed out by claims the images they
      claimed, none before the first claim; images the low-agreement rule gave them) plus
      the images they have annotated in the phase -- none at all when no batch assigns them;
    * the phase has no batch (the owner hands out no work): every image of the project, as a
      plain Label Studio project counts all of its tasks.

    Rating sessions and image sets play no part: creating a rating session on an image set
    does not change any annotator's N.

    >>> import tempfile, pathlib
    >>> from slicereview.model import NewImage
    >>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
    >>> ids = [project.images.add_source(pathlib.Path(__file__), str(k) * 64, "png",
    ...                           [NewImage(6, 6)])[0] for k in range(4)]
    >>> ann, eve = add_annotator(project, "ann"), add_annotator(project, "eve")
    >>> batch_images(project, ann, "formal") == ids      # no batch: every image
    True
    >>> from slicereview.app.qa.workflow import define_batch
    >>> _ = define_batch(project, "b", "formal", ids[:2], raters=[ann])
    >>> batch_images(project, ann, "formal") == ids[:2]  # the batch ann is assigned to
    True
    >>> batch_images(project, eve, "formal")             # no batch gives eve work
    []
    >>> project.close()
    """
    from slicereview.app.qa.workflow import work_images  # (not needed at start-up)

    given: set[int] = set()
    batches = [b for b in project.workflow.batches() if Phase(b.phase) is Phase(phase)]
    for batch in batches:
        given.update(work_images(project, rater_id, batch.id))
    own = {a.image_id for a in project.annotations.all(rater_id=rater_id, phase=phase)}
    return [im.id for im in project.images.all()
            if not batches or im.id in given or im.id in own]


def label_image(project: Project, annotation_id: int) -> np.ndarray:
    """The annotation rasterised: ``uint8 (rows, cols)`` of its image, 0 background,
    1 certain, 2 uncertain (:func:`slicereview.engines.masks.rasterize`)."""
    ann = project.annotations.get(annotation_id)
    image = project.images.get(ann.image_id)
    return rasterize(project.polygons.of(annotation_id), (image.rows, image.cols))
