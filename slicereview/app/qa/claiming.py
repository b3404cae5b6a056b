"""Handing a batch's images out by claims, the rule kept once.

By default every annotator assigned to a batch annotates every image of it. A batch defined
with ``annotators_per_image=k`` (``slicereview batch ... --per-image K``) instead needs ``k``
annotations per image from its pool of assigned annotators: each annotator asks for work
(:func:`next_image`, ``slicereview claim``) and is handed an image that

* they claimed before and have not finished yet (the first in the batch's selection order,
  so nothing is left half done; in a work package, which holds only the annotator's claims,
  that is the order the package was made in), or else
* a newly claimed one (:meth:`~slicereview.store.slots.Slots.claim`): the first in the
  batch's order that they hold no claim on and that fewer than ``k`` people claimed; a batch
  given another selection order (random, model uncertainty, disagreement:
  :mod:`.selection`) hands out the first such image in that order instead.

On a server the claim locks one free slot with ``SELECT ... FOR UPDATE SKIP LOCKED``, so any
number of annotators claim at once, never the same slot, and no image gets more than ``k``
annotators. **Claims are a lock**: an assigned annotator who opens one of the batch's images
by hand (the Annotate tab's image list) claims one of its places as their annotation starts,
in the same transaction and under the same lock (:func:`take_place`, called by
:func:`slicereview.app.annotating.start`), or is refused with one sentence when all ``k``
are taken (:class:`PlacesTaken`), so no image gets ``k + 1`` annotators that way either (an
annotator the low-agreement rule assigned to the image needs no place).

A claim is kept (it is not taken back when the annotator stops); the images an
annotator works on in such a batch are the ones they claimed (:func:`~.workflow.work_images`,
so their work packages hold those).

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np, skimage.io
>>> from slicereview.store import Project
>>> from slicereview.app.images.importing import import_paths
>>> from slicereview.app.qa.workflow import define_batch, work_images
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> for k in range(3):
...     skimage.io.imsave(folder / f"{k}.png", np.full((4, 4), k, np.uint8),
...                       check_contrast=False)
>>> with Project.create(folder / "p.srproj") as project:
...     _ = import_paths(project, sorted(folder.glob("*.png")))
...     ann, bob = project.raters.add("ann"), project.raters.add("bob")
...     batch = define_batch(project, "b", "formal", [1, 2, 3], raters=[ann, bob],
...                          annotators_per_image=1)
...     got = [next_image(project, ann, batch), next_image(project, ann, batch),
...            next_image(project, bob, batch)]
...     got, work_images(project, ann, batch), project.slots.counts(batch)
([1, 1, 2], [1], (2, 3))
"""

from __future__ import annotations

from dataclasses import dataclass

from slicereview.app.qa.workflow import (
    FINISHED,
    batch_annotators,
    check_may_start,
    why_not_start,
)
from slicereview.model import Phase
from slicereview.store import Project


def next_image(project: Project, rater_id: int, batch_id: int) -> int | None:
    """The image ``rater_id`` should annotate next in a batch handed out by claims (see the
    module docstring), or ``None`` when none is left for them.

    Raises
    ------
    ValueError
        The batch is not handed out by claims, or the rater is not assigned to it.
    OnHold
        The owner's decision after onboarding holds the rater back.
    """
    batch = project.workflow.batch(batch_id)
    if not project.slots.is_open(batch_id):
        raise ValueError(f"batch {batch.name} is not handed out by claims: every annotator "
                         "assigned to it annotates all of its images")
    if rater_id not in batch_annotators(project, batch_id):
        name = project.raters.get(rater_id).name
        raise ValueError(f"{name} is not assigned to batch {batch.name}")
    check_may_start(project, rater_id, batch.phase)
    finished = {a.image_id for a in project.annotations.all(rater_id=rater_id)
                if a.phase is batch.phase and a.status in FINISHED}
    held = project.slots.claimed(batch_id, rater_id)
    unfinished = [i for i in held if i not in finished]
    from slicereview.app.qa.selection import order_of, ordered_images

    selection = order_of(project, batch_id)
    if unfinished and selection.order != "batch":  # (a package holds only its own claims)
        waiting = set(unfinished)
        unfinished = [i for i in ordered_images(project, batch_id, selection)
                      if i in waiting] or unfinished
    if unfinished:
        return unfinished[0]
    if selection.order == "batch":
        return project.slots.claim(batch_id, rater_id)
    # The batch's selection order: the first image in it with a free place the rater holds
    # none of, claimed under the claim's lock (another claim may take it first: then the next).
    free = {i for i, _, r in project.slots.all(batch_id) if r is None} - set(held)
    for image_id in ordered_images(project, batch_id, selection):
        if image_id in free and project.slots.claim_image(batch_id, image_id, rater_id):
            return image_id
    return None


class PlacesTaken(ValueError):
    """Every place of an image in a batch handed out by claims is taken: nothing started."""


def take_place(project: Project, rater_id: int, image_id: int, phase: Phase | str) -> None:
    """Before ``rater_id`` starts ``image_id`` in ``phase`` (in the caller's transaction):
    in each batch of the phase handed out by claims that holds the image and that the rater
    is assigned to, claim one of the image's free places for them unless they hold one or the
    low-agreement rule assigned them the image (:func:`~.workflow.work_images`); raise
    :class:`PlacesTaken` when none is free."""
    slots = project.slots.of_image(image_id)
    if not slots:
        return  # (the common case: one query)
    phase = Phase(phase)
    for batch_id in sorted({b for b, _ in slots}):
        batch = project.workflow.batch(batch_id)
        if batch.phase is not phase or rater_id in {r for b, r in slots if b == batch_id} \
                or rater_id not in batch_annotators(project, batch_id) or any(
                    f.kind == "assign" and f.rater_id == rater_id and f.batch_id == batch_id
                    for f in project.workflow.image_flags(image_id)):
            continue
        if not project.slots.claim_image(batch_id, image_id, rater_id):
            places = sum(b == batch_id for b, _ in slots)
            case = project.images.get(image_id).case_id
            name = project.raters.get(rater_id).name
            raise PlacesTaken(
                f"{case} already has all the annotators batch {batch.name} needs ({places} of "
                f"{places} places taken), so {name} cannot start it: take the next image "
                "instead (Next image to annotate, key N, or `slicereview claim`).")


@dataclass(frozen=True)
class Claim:
    """What asking for the next image of a phase gave (:func:`next_in_phase`): the image, or
    ``None`` with one sentence saying why there is none."""

    image_id: int | None
    message: str = ""


def claim_batches(project: Project, phase: Phase | str, rater_id: int | None = None
                  ) -> list[int]:
    """The batches of ``phase`` handed out by claims, oldest first; with ``rater_id``, only
    those the rater is assigned to (directly or through their group)."""
    return [b.id for b in project.workflow.batches(phase) if project.slots.is_open(b.id)
            and (rater_id is None or rater_id in batch_annotators(project, b.id))]


def claimed_images(project: Project, rater_id: int, phase: Phase | str) -> dict[int, bool]:
    """The images ``rater_id`` claimed in the batches of ``phase`` handed out by claims, in
    the batches' order: image id → whether they finished it (any round)."""
    finished = {a.image_id for a in project.annotations.all(rater_id=rater_id, phase=phase)
                if a.status in FINISHED}
    found: dict[int, bool] = {}
    for batch_id in claim_batches(project, phase):
        for image_id in project.slots.claimed(batch_id, rater_id):
            found[image_id] = image_id in finished
    return found


def next_in_phase(project: Project, rater_id: int, phase: Phase | str) -> Claim:
    """:func:`next_image` of the rater's batches of ``phase`` handed out by claims, oldest
    batch first: the image to annotate next, or none with one sentence saying why (held back
    by the owner's decision after onboarding, assigned to no such batch, nothing left).

    Example
    -------
    >>> import tempfile, pathlib
    >>> from slicereview.app.qa.workflow import define_batch
    >>> from slicereview.model import NewImage
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.png").write_bytes(b"a")
    >>> with Project.create(folder / "p.srproj") as project:
    ...     [img] = project.images.add_source(folder / "a.png", "0" * 64, "png",
    ...                                       [NewImage(1, 1)])
    ...     ann, bob, eve = (project.raters.add(n) for n in ("ann", "bob", "eve"))
    ...     _ = define_batch(project, "b", "formal", [img], raters=[ann, bob],
    ...                      annotators_per_image=1)
    ...     for rater in (ann, bob, eve):
    ...         print(next_in_phase(project, rater, "formal"))
    Claim(image_id=1, message='')
    Claim(image_id=None, message='Nothing left for bob in batch b: every image bob has not \
claimed has the annotators it needs (1 of 1 places taken).')
    Claim(image_id=None, message='eve is not assigned to a formal batch handed out by \
claims: the owner assigns batches (slicereview batch).')
    """
    name = project.raters.get(rater_id).name
    hold = why_not_start(project, rater_id, phase)
    if hold is not None:
        return Claim(None, hold)
    batches = claim_batches(project, phase, rater_id)
    if not batches:
        return Claim(None, f"{name} is not assigned to a {Phase(phase)} batch handed out by "
                           "claims: the owner assigns batches (slicereview batch).")
    for batch_id in batches:
        image_id = next_image(project, rater_id, batch_id)
        if image_id is not None:
            return Claim(image_id)
    names = ", ".join(project.workflow.batch(b).name for b in batches)
    taken = [project.slots.counts(b) for b in batches]
    return Claim(None, f"Nothing left for {name} in batch {names}: every image {name} has "
                       f"not claimed has the annotators it needs ({sum(c for c, _ in taken)} of "
                       f"{sum(t for _, t in taken)} places taken).")
