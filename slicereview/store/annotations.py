"""``project.annotations``: one rater's work on one image (polygons: :mod:`.polygons`).

An *annotation* is one rater's polygons on one image in one phase and round (unique together),
with a status, active time and image-level classification answers. Every method that changes
an annotation is one transaction and stamps its ``updated_at`` (active time excepted).

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "x.png").write_bytes(b"not really a png")
>>> project = Project.create(folder / "a.srproj")
>>> [image] = project.images.add_source(folder / "x.png", "0" * 64, "png",
...                                     [NewImage(rows=6, cols=5)])
>>> ann = project.annotations.for_image(project.raters.add("ann1"), image)
>>> ann.status.value, ann.round
('in_progress', 1)
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Iterable

from slicereview.model import Annotation, AnnotationStatus, Phase, Polygon
from slicereview.store._base import Part, dumps, filters, loads, now_iso
from slicereview.store.database import Database, Row

__all__ = ["Annotations", "polygon_count", "require_annotation", "require_dict", "touch"]


def _annotation(row: Row) -> Annotation:
    return Annotation(
        id=row["id"], rater_id=row["rater_id"], image_id=row["image_id"],
        phase=Phase(row["phase"]), round=row["round"], status=AnnotationStatus(row["status"]),
        active_ms=row["active_ms"],
        classifications=loads(row["classifications"]),  # type: ignore[arg-type]
        updated_at=row["updated_at"], repeat_of=row["repeat_of"],
    )


def require_annotation(db: Database, annotation_id: int) -> None:
    """``KeyError`` unless the project has annotation ``annotation_id``."""
    if db.execute("SELECT 1 FROM annotations WHERE id = ?",
                  (annotation_id,)).fetchone() is None:
        raise KeyError(f"no annotation {annotation_id} in this project")


def touch(db: Database, annotation_id: int, assignment: str = "", args: tuple = ()) -> bool:
    """Stamp an annotation's ``updated_at`` (now), with an optional ``SET`` ``assignment``;
    whether there was such an annotation."""
    sets = f"{assignment}, updated_at = ?" if assignment else "updated_at = ?"
    return db.execute(f"UPDATE annotations SET {sets} WHERE id = ?",
                      (*args, now_iso(), annotation_id)).rowcount > 0


def polygon_count(db: Database, annotation_id: int) -> int:
    return int(db.execute(
        "SELECT count(*) FROM polygons WHERE annotation_id = ?", (annotation_id,)
    ).fetchone()[0])


class Annotations(Part):
    def for_image(
        self, rater_id: int, image_id: int, phase: Phase | str = Phase.FORMAL, round: int = 1,
        *, create: bool = True,
    ) -> Annotation | None:
        """The annotation of (rater, image, phase, round); created (``in_progress``, no
        polygons) when missing and ``create`` is true, else ``None`` when missing."""
        key = (rater_id, image_id, str(Phase(phase)), int(round))
        row = self._row(*key)
        if row is None and create:
            with self.transaction():
                self.db.execute(
                    "INSERT INTO annotations (rater_id, image_id, phase, round, updated_at, "
                    "guideline_version) VALUES (?, ?, ?, ?, ?, "
                    "(SELECT max(version) FROM guidelines)) ON CONFLICT DO NOTHING",
                    (*key, now_iso()),
                )
            row = self._row(*key)
        return None if row is None else _annotation(row)

    def _row(self, rater_id: int, image_id: int, phase: str, rnd: int):
        return self.db.execute(
            "SELECT * FROM annotations WHERE rater_id = ? AND image_id = ? AND phase = ? "
            "AND round = ?", (rater_id, image_id, phase, rnd),
        ).fetchone()

    def get(self, annotation_id: int) -> Annotation:
        row = self.db.execute(
            "SELECT * FROM annotations WHERE id = ?", (annotation_id,)
        ).fetchone()
        if row is None:
            raise KeyError(f"no annotation {annotation_id} in this project")
        return _annotation(row)

    def all(
        self, *, image_id: int | None = None, rater_id: int | None = None,
        phase: Phase | str | None = None, round: int | None = None,
        status: AnnotationStatus | str | Iterable[AnnotationStatus | str] | None = None,
        repeats: bool | None = False,
    ) -> list[Annotation]:
        """Annotations matching every given filter, ordered by image then rater then round.

        For review: ``all(image_id=i, status=["submitted", "nothing_to_annotate"])``.
        Repeats (intra-rater second passes, ``repeat_of`` set) are left out by default, so
        every inter-rater use sees one annotation per rater, image, phase and round;
        ``repeats=True`` lists only repeats, ``None`` both.
        """
        conditions = []
        if repeats is not None:
            conditions.append("repeat_of IS NOT NULL" if repeats else "repeat_of IS NULL")
        wanted: list[str] = []
        if status is not None:
            wanted = [str(AnnotationStatus(s))
                      for s in ([status] if isinstance(status, str) else status)]
            conditions.append(f"status IN ({', '.join('?' * len(wanted))})")
        where, args = filters(*conditions, image_id=image_id, rater_id=rater_id, round=round,
                              phase=None if phase is None else str(Phase(phase)))
        args = [*wanted, *args]  # the status placeholders come first in the clause
        sql = "SELECT * FROM annotations" + where
        rows = self.db.execute(sql + " ORDER BY image_id, rater_id, phase, round, id", args)
        return [_annotation(r) for r in rows.fetchall()]

    def with_polygons(
        self, image_id: int, phase: Phase | str | None = None, round: int | None = None,
        status: AnnotationStatus | str | Iterable[AnnotationStatus | str] | None = (
            AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE),
    ) -> list[tuple[Annotation, list[Polygon]]]:
        """For review: every matching annotation of one image with its polygons, by rater.

        By default only finished work (``submitted`` or ``nothing_to_annotate``); pass
        ``status=None`` for all.
        """
        from slicereview.store.polygons import polygons_of

        found = self.all(image_id=image_id, phase=phase, round=round, status=status)
        return [(a, polygons_of(self.db, a.id)) for a in found]

    def set_status(self, annotation_id: int, status: AnnotationStatus | str) -> None:
        """Mark ``in_progress``, ``submitted`` or ``nothing_to_annotate``.

        ``nothing_to_annotate`` with polygons present is refused (``ValueError``): the two
        claims contradict each other; delete the polygons first.
        """
        status = AnnotationStatus(status)
        with self.transaction():
            if status is AnnotationStatus.NOTHING_TO_ANNOTATE and polygon_count(
                    self.db, annotation_id):
                raise ValueError(
                    "this annotation has polygons; delete them before marking the image "
                    "as 'nothing to annotate'"
                )
            if not touch(self.db, annotation_id, "status = ?", (str(status),)):
                require_annotation(self.db, annotation_id)  # (raises)

    def submit_if_drawn(self, annotation_id: int) -> Annotation | None:
        """Mark ``submitted`` when the annotation has polygons and return it as marked; else
        change nothing and return ``None``. One statement (on a server, one round trip).
        ``KeyError`` when there is no such annotation."""
        with self.transaction():
            row = self.db.execute(
                "UPDATE annotations SET status = ?, updated_at = ? WHERE id = ? AND EXISTS "
                "(SELECT 1 FROM polygons WHERE annotation_id = ?) RETURNING *",
                (str(AnnotationStatus.SUBMITTED), now_iso(), annotation_id, annotation_id),
            ).fetchone()
            if row is None:
                require_annotation(self.db, annotation_id)
        return None if row is None else _annotation(row)

    def add_active_time(self, annotation_id: int, ms: int) -> int:
        """Add ``ms`` (>= 0) milliseconds of active annotation time; returns the new total.

        Time is not an edit: ``updated_at`` stays (merging packages and the review queue's
        cache take a changed ``updated_at`` for changed work)."""
        if ms < 0:
            raise ValueError(f"active time cannot be negative, got {ms} ms")
        with self.transaction():
            require_annotation(self.db, annotation_id)
            self.db.execute("UPDATE annotations SET active_ms = active_ms + ? WHERE id = ?",
                            (int(ms), annotation_id))
            return int(self.db.execute(
                "SELECT active_ms FROM annotations WHERE id = ?", (annotation_id,)
            ).fetchone()[0])

    def set_image_classifications(self, annotation_id: int, answers: dict) -> None:
        """Replace the image-level classification answers (a JSON object keyed by question
        name, e.g. ``{"density": "B", "findings": ["calcification"]}``)."""
        require_dict(answers)
        with self.transaction():
            require_annotation(self.db, annotation_id)
            touch(self.db, annotation_id, "classifications = ?", (dumps(answers),))


def require_dict(answers: object) -> None:
    if not isinstance(answers, dict):
        raise ValueError(f"classification answers must be a dict, got {type(answers).__name__}")
