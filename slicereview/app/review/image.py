"""What the review panel shows of one queue image: every annotator's polygons, the per-pixel
votes, the boxes with their α and the decisions and pins in force.

Qt-free, so the same values feed the GUI, scripts and tests. The boxes and α come from
:func:`slicereview.engines.agreement.segmentation_agreement` of the same annotations the queue
ranked the image by (a queue row's ``annotation_ids``), so the panel never disagrees with the
queue. Annotators are listed in annotation-id order; that order fixes their colours.

Votes: ``certain_votes[r, c]`` is how many annotators marked pixel ``(r, c)`` certain and
``marked_votes`` how many marked it at all (certain or uncertain). A strict heat map shows
``certain_votes``, a relaxed one ``marked_votes``; their difference is the uncertain votes.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(8, 8)])
>>> square = Polygon(np.array([[1.0, 1.0], [5.0, 1.0], [5.0, 5.0], [1.0, 5.0]]))
>>> ids = []
>>> for name in ("a", "b"):
...     ann = project.annotations.for_image(project.raters.add(name), image)
...     _ = project.polygons.replace(ann.id, [square])
...     project.annotations.set_status(ann.id, "submitted")
...     ids.append(ann.id)
>>> view = review_image(project, image, ids)
>>> [a.name for a in view.annotators], view.relaxed.alpha, int(view.marked_votes.max())
(['a', 'b'], 1.0, 2)
>>> view.boxes("relaxed")[0].box, view.voters(2, 2)
((1, 1, 5, 5), [('a', True), ('b', True)])
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from slicereview.engines.masks import rasterize
from slicereview.model import Polygon, Review
from slicereview.store import Project

if TYPE_CHECKING:  # scipy loads with the first review image, not at start-up
    from slicereview.engines.agreement.consensus_masks import Level, StapleResult
    from slicereview.engines.agreement.segmentation import BoxAlpha, LevelAgreement


@dataclass(frozen=True)
class AnnotatorWork:
    """One annotator's annotation of the image: who, the polygons, the decision in force and
    the edit stamp it was read with (``updated_at``: a decision carries it, see
    :func:`slicereview.app.review.decisions.check_shown`)."""

    annotation_id: int
    rater_id: int
    name: str
    polygons: tuple[Polygon, ...]
    decision: Review | None = None
    updated_at: str = ""
    round: int = 1


@dataclass(frozen=True)
class ReviewImage:
    """Everything the review panel draws for one image.

    Attributes
    ----------
    image_id : int
    shape : (int, int)
        ``(H, W)`` of the image.
    annotators : tuple of AnnotatorWork
        In annotation-id order.
    labels : ndarray of uint8, shape (R, H, W)
        Each annotator's label image (0 background, 1 certain, 2 uncertain).
    certain_votes, marked_votes : ndarray of uint8, shape (H, W)
        Per pixel: annotators who marked it certain / marked it at all.
    strict, relaxed : LevelAgreement
        Image α, boxes (``(row0, col0, row1, col1)``, end exclusive) and band counts.
    pins : tuple of Review
        Comments pinned to a box or point of the image, oldest first.
    """

    image_id: int
    shape: tuple[int, int]
    annotators: tuple[AnnotatorWork, ...]
    labels: np.ndarray
    certain_votes: np.ndarray
    marked_votes: np.ndarray
    strict: LevelAgreement
    relaxed: LevelAgreement
    pins: tuple[Review, ...] = ()

    def boxes(self, level: str = "relaxed") -> list[BoxAlpha]:
        """The boxes of ``level`` sorted by α ascending (worst first; NaN last)."""
        found = (self.relaxed if level == "relaxed" else self.strict).boxes
        return sorted(found, key=lambda b: (np.isnan(b.alpha), b.alpha, b.box))

    def voters(self, row: int, col: int) -> list[tuple[str, bool]]:
        """``(name, certain)`` of each annotator who marked pixel ``(row, col)``."""
        h, w = self.shape
        if not (0 <= row < h and 0 <= col < w):
            return []
        values = self.labels[:, row, col]
        return [(a.name, bool(v == 1)) for a, v in zip(self.annotators, values, strict=True)
                if v]

    def majority(self, level: Level = "relaxed") -> np.ndarray:
        """The majority-vote mask of the annotators shown, bool of shape ``(H, W)``.

        A pixel is in it when more than half the annotators marked it (``strict``: certain
        only; ``relaxed``: certain or uncertain) — the rule ``export --consensus majority``
        writes.
        """
        from slicereview.engines.agreement import majority_vote

        return np.asarray(majority_vote(self.labels, level))

    def staple(self, level: Level = "relaxed") -> StapleResult:
        """STAPLE (Warfield et al. 2004, SimpleITK) of the annotators shown at ``level``: the
        mask, its probabilities and each annotator's sensitivity and specificity, in
        annotator order. Takes a second or more on a mammogram: run it off the GUI thread."""
        from slicereview.engines.agreement import staple

        return staple(self.labels, level)


def review_image(project: Project, image_id: int, annotation_ids: Sequence[int]) -> ReviewImage:
    """The review view of ``image_id`` from the annotations ``annotation_ids`` (a queue row's)."""
    _, rows, cols = project.images.cases()[image_id]
    shape = (int(rows), int(cols))
    decided = project.reviews.current_decisions(annotation_ids)
    names = {r.id: r.name for r in project.raters.all()}
    work = []
    for ann_id in sorted(annotation_ids):
        ann = project.annotations.get(ann_id)
        work.append(AnnotatorWork(ann_id, ann.rater_id, names.get(ann.rater_id, "?"),
                                  tuple(project.polygons.of(ann_id)), decided.get(ann_id),
                                  ann.updated_at, ann.round))
    labels = np.zeros((max(len(work), 2), *shape), dtype=np.uint8)
    for k, w in enumerate(work):
        labels[k] = rasterize(w.polygons, shape)
    used = labels[:len(work)]
    from slicereview.engines.agreement.segmentation import segmentation_agreement

    agreement = segmentation_agreement(labels)
    pins = tuple(r for r in project.reviews.all(image_id=image_id) if r.is_pin)
    return ReviewImage(
        image_id, shape, tuple(work), used,
        np.count_nonzero(used == 1, axis=0).astype(np.uint8),
        np.count_nonzero(used != 0, axis=0).astype(np.uint8),
        agreement.strict, agreement.relaxed, pins)
