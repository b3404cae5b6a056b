"""Handing a batch's images out by claims, the rule kept once.

By default every annotator assigned to a batch annotates every image of it. A batch defined
with ``annotators_per_image=k`` (``slicereview batch ... --per-image K``) instead needs ``k``
annotations per image from its pool of assigned annotators: each annotator asks for work
(:func:`next_image`, ``slicereview claim``) and is handed an image that

* they claimed before and have not finished yet (the earliest, so nothing is left half done),
  or else
* a newly claimed one (:meth:`~slicereview.store.slots.Slots.claim`): the first in the
  batch's order that they hold no claim on and that fewer than ``k`` people claimed.

On a server the claim locks one free slot with ``SELECT ... FOR UPDATE SKIP LOCKED``, so any
number of annotators claim at once, never the same slot, and no image gets more than ``k``
annotators. A claim is kept (it is not taken back when the annotator stops); the images an
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

from slicereview.app.qa.workflow import FINISHED, batch_annotators, check_may_start
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
    for image_id in project.slots.claimed(batch_id, rater_id):
        if image_id not in finished:
            return image_id
    return project.slots.claim(batch_id, rater_id)
