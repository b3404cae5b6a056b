"""Repeats for intra-rater agreement: the owner asks for a share of an annotator's batch to
come back later, and the queue compares each first pass with its repeat.

Rules held here, once:

* **which images** — :func:`schedule_repeats` draws ``round(share · n)`` images (at least one
  when ``share > 0`` and the batch is not empty) from the batch without replacement, seeded by
  ``(seed, rater id)``, so a schedule is reproducible and two annotators get different images.
* **later, without seeing the first** — a repeat is created ``in_progress`` and empty (never a
  copy of the first pass); :func:`pending_repeats` lists the repeats an annotator should be
  given now: those whose first pass is finished and that are not finished themselves. Showing
  them after the rest of the batch, without the first pass, is up to the front end.
* **what counts** — a repeat is used for intra-rater α when it and its first pass are both
  finished (``submitted`` or ``nothing_to_annotate``), see
  :func:`slicereview.app.review.queue.compute_features`.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> images = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                             [NewImage(8, 8, frame=k) for k in range(40)])
>>> ann = project.raters.add("ann")
>>> chosen = schedule_repeats(project, ann, images, share=0.05, seed=3)
>>> len(chosen), chosen == schedule_repeats(project, ann, images, share=0.05, seed=3)
(2, True)
>>> len(project.annotations.all(repeats=True))
2
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.model import Annotation, AnnotationStatus, Phase
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)


def repeat_count(n: int, share: float) -> int:
    """How many of ``n`` images come back: ``round(share · n)``, at least 1 when ``share > 0``
    and ``n > 0``, at most ``n``.

    >>> repeat_count(40, 0.05), repeat_count(10, 0.05), repeat_count(10, 0.0), repeat_count(3, 2)
    (2, 1, 0, 3)
    """
    if share < 0:
        raise ValueError(f"share must be ≥ 0, got {share}")
    if n <= 0 or share == 0:
        return 0
    return int(min(n, max(1, round(share * n))))


def schedule_repeats(project: Project, rater_id: int, image_ids: Sequence[int],
                     share: float = 0.05, seed: int = 0, phase: Phase | str = Phase.FORMAL,
                     round: int = 1) -> list[int]:
    """Ask annotator ``rater_id`` to annotate a seeded share of ``image_ids`` a second time.

    For each chosen image the first pass (``phase``, ``round``; created ``in_progress`` when
    missing) gets a repeat (:meth:`~slicereview.store.repeats.Repeats.create`; an existing one
    is kept). Returns the chosen image ids in batch order. Deterministic from ``seed`` and the
    rater id.
    """
    ids = list(dict.fromkeys(int(i) for i in image_ids))
    k = repeat_count(len(ids), share)
    rng = np.random.default_rng([int(seed), int(rater_id)])
    picked = set(rng.choice(len(ids), size=k, replace=False).tolist()) if k else set()
    chosen = [i for n, i in enumerate(ids) if n in picked]
    with project.transaction():
        for image_id in chosen:
            first = project.annotations.for_image(rater_id, image_id, phase, round)
            assert first is not None
            project.repeats.create(first.id)
    return chosen


def pending_repeats(project: Project, rater_id: int) -> list[Annotation]:
    """The annotator's repeats to do now: first pass finished, repeat not finished."""
    return [again for first, again in project.repeats.pairs(rater_id=rater_id)
            if first.status in FINISHED and again.status not in FINISHED]


def repeat_pairs_for_queue(project: Project, phase: Phase | str,
                           raters: set[int] | None) -> dict[int, list[tuple[Annotation,
                                                                              Annotation]]]:
    """image id → finished ``(first, repeat)`` pairs of ``phase`` by the included raters
    (``None``: everyone)."""
    out: dict[int, list[tuple[Annotation, Annotation]]] = {}
    for first, again in project.repeats.pairs(phase=phase, status=FINISHED):
        if raters is None or first.rater_id in raters:
            out.setdefault(first.image_id, []).append((first, again))
    return out


def repeats_due(project: Project, rater_id: int, batch: Sequence[int],
                phase: Phase | str = Phase.FORMAL, round: int = 1) -> list[Annotation]:
    """The repeats to offer an annotator now in ``phase``: :func:`pending_repeats` of that
    phase and round, once every first pass of ``batch`` (the images they work through) is
    finished — repeats come *after* the batch, never mixed in, so the first mask is as far
    back in the annotator's memory as the batch allows. Ordered by image.

    >>> import tempfile, pathlib
    >>> from slicereview.model import NewImage
    >>> from slicereview.app.annotating import finish
    >>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
    >>> images = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
    ...                             [NewImage(8, 8, frame=k) for k in range(3)])
    >>> ann = project.raters.add("ann")
    >>> [chosen] = schedule_repeats(project, ann, images, share=0.1)
    >>> for done, image in enumerate(images, 1):
    ...     finish(project, project.annotations.for_image(ann, image, create=True).id,
    ...            "nothing_to_annotate")
    ...     print(done, len(repeats_due(project, ann, images)))
    1 0
    2 0
    3 1
    >>> project.close()
    """
    first_round = abs(int(round))
    done = {a.image_id for a in project.annotations.all(rater_id=rater_id, phase=phase,
                                                        round=first_round, status=FINISHED)}
    if not set(batch) <= done:
        return []
    return [a for a in pending_repeats(project, rater_id)
            if str(a.phase) == str(Phase(phase)) and a.round == -first_round]


def repeat_progress(project: Project, rater_ids: Sequence[int], image_ids: Sequence[int],
                    phase: Phase | str) -> dict[int, tuple[int, int]]:
    """rater id → ``(to do, done)`` counts of their repeats on ``image_ids`` in ``phase``
    (done: the repeat is finished)."""
    wanted = set(int(i) for i in image_ids)
    out = {int(r): (0, 0) for r in rater_ids}
    for _first, again in project.repeats.pairs(phase=phase):
        if again.rater_id in out and again.image_id in wanted:
            todo, done = out[again.rater_id]
            finished = again.status in FINISHED
            out[again.rater_id] = (todo + (not finished), done + finished)
    return out


def schedule_batch_repeats(project: Project, batch_id: int, share: float, seed: int = 0
                           ) -> dict[int, int]:
    """:func:`schedule_repeats` of a batch for every annotator assigned to it (directly or by
    group), in the batch's phase, in one transaction; returns rater id → repeated images.
    Existing repeats are kept, so scheduling again with the same seed adds nothing."""
    from slicereview.app.qa.workflow import batch_annotators

    batch = project.workflow.batch(batch_id)
    images = project.image_sets.members(batch.image_set_id)
    ids = batch_annotators(project, batch_id)
    if not ids:
        raise ValueError(f"Assign annotators to batch {batch.name!r} before scheduling "
                         "repeats.")
    with project.transaction():
        return {r: len(schedule_repeats(project, r, images, share, seed, batch.phase))
                for r in ids}


def batch_repeat_progress(project: Project, batch_id: int) -> dict[int, tuple[int, int]]:
    """rater id → ``(to do, done)`` repeats of each annotator of a batch."""
    from slicereview.app.qa.workflow import batch_annotators

    batch = project.workflow.batch(batch_id)
    return repeat_progress(project, batch_annotators(project, batch_id),
                           project.image_sets.members(batch.image_set_id), batch.phase)
