"""``project.repeats``: an annotator's second annotation of an image, for intra-rater
agreement.

A repeat is the same annotator's second annotation of the same image in the same phase, made
later without seeing the first. It is an ordinary ``annotations`` row (polygons, status, active
time, classifications all work as usual) with ``repeat_of`` set to the first annotation's id
and ``round`` the negative of the first's round (schema version 3, see ``schema.py``: the unique
key (rater, image, phase, round) stays, revisions keep rounds ≥ 1). ``annotations.all()``
leaves repeats out unless asked, so queues, exports and agreement between annotators never
count a repeat as another annotator.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "r.srproj")
>>> [image] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                     [NewImage(4, 4)])
>>> first = project.annotations.for_image(project.raters.add("ann"), image)
>>> again = project.repeats.create(first.id)
>>> again.repeat_of == first.id, again.round, again.status.value
(True, -1, 'in_progress')
>>> [(a.id, b.id) for a, b in project.repeats.pairs()] == [(first.id, again.id)]
True
>>> len(project.annotations.all()), len(project.annotations.all(repeats=None))
(1, 2)
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Iterable

from slicereview.model import Annotation, AnnotationStatus, Phase
from slicereview.store._base import Part, now_iso
from slicereview.store.annotations import Annotations
from slicereview.store.database import Database


class Repeats(Part):
    def __init__(self, db: Database, annotations: Annotations) -> None:
        super().__init__(db)
        self._annotations = annotations

    def create(self, annotation_id: int) -> Annotation:
        """The repeat of annotation ``annotation_id`` (created ``in_progress`` with no
        polygons; the existing one is returned as it is). A repeat is not repeated again."""
        first = self._annotations.get(annotation_id)
        if first.repeat_of is not None:
            raise ValueError(f"annotation {annotation_id} is itself a repeat")
        if first.round < 1:
            raise ValueError(f"annotation {annotation_id} has round {first.round}; "
                             "only passes (rounds ≥ 1) are repeated")
        with self.transaction():
            self.db.execute(
                "INSERT INTO annotations (rater_id, image_id, phase, round, updated_at, "
                "repeat_of) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (first.rater_id, first.image_id, str(first.phase), -first.round, now_iso(),
                 first.id),
            )
        row = self.db.execute("SELECT id FROM annotations WHERE repeat_of = ?",
                                (first.id,)).fetchone()
        if row is None:  # the (rater, image, phase, -round) slot holds something else
            raise ValueError(f"round {-first.round} of this annotator and image is taken")
        return self._annotations.get(int(row[0]))

    def of(self, annotation_id: int) -> Annotation | None:
        """The repeat of an annotation, or ``None``."""
        row = self.db.execute("SELECT id FROM annotations WHERE repeat_of = ?",
                                (annotation_id,)).fetchone()
        return None if row is None else self._annotations.get(int(row[0]))

    def pairs(
        self, *, phase: Phase | str | None = None, rater_id: int | None = None,
        image_id: int | None = None,
        status: AnnotationStatus | str | Iterable[AnnotationStatus | str] | None = None,
    ) -> list[tuple[Annotation, Annotation]]:
        """``(first, repeat)`` pairs matching the filters, ordered by image, rater, round;
        ``status`` must hold for both annotations of a pair (e.g. finished ones only)."""
        repeats = self._annotations.all(image_id=image_id, rater_id=rater_id, phase=phase,
                                   status=status, repeats=True)
        pairs = []
        for again in repeats:
            assert again.repeat_of is not None
            first = self._annotations.get(again.repeat_of)
            if status is not None:
                wanted = {str(AnnotationStatus(s)) for s in
                          ([status] if isinstance(status, str) else status)}
                if str(first.status) not in wanted:
                    continue
            pairs.append((first, again))
        return pairs
