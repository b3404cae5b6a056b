"""Store methods for annotations and polygons (questions: :mod:`.questions`).

An *annotation* is one rater's polygons on one image in one phase and round (unique together).
Polygon vertices are stored as a BLOB of little-endian float64 ``(N, 2)`` ``(x, y)`` values, so
what is loaded is bit-for-bit what was saved (no drift across save/load). Polygons keep their
drawing order in ``position`` (0, 1, ...): later polygons are drawn on top.

Every method that changes the file is one transaction and stamps the annotation's
``updated_at``. Methods that write polygons return the stored ids.

Example
-------
>>> import tempfile, pathlib, numpy as np
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage
>>> from slicereview.model import Polygon
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "x.png").write_bytes(b"not really a png")
>>> project = Project.create(folder / "a.srproj")
>>> [image] = project.add_source(folder / "x.png", "0" * 64, "png", [NewImage(rows=6, cols=5)])
>>> ann = project.annotation_for(project.add_rater("ann1"), image)
>>> square = np.array([[2, 3], [3, 3], [3, 4], [2, 4]], dtype=float)
>>> pid = project.add_polygon(ann.id, Polygon(square))
>>> np.array_equal(project.polygons(ann.id)[0].vertices, square)
True
>>> project.close()
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

import numpy as np

from slicereview.model import Annotation, AnnotationStatus, Certainty, Phase, Polygon, Question
from slicereview.store._base import StoreBase, dumps, filters, last_id, loads, now_iso
from slicereview.store.questions import QuestionsMixin

__all__ = ["Annotation", "AnnotationsMixin", "Question", "blob_to_vertices", "vertices_to_blob"]




def vertices_to_blob(vertices: np.ndarray) -> bytes:
    """``float64 (N, 2)`` vertices as little-endian bytes (the project file's format)."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if not np.isfinite(v).all():
        raise ValueError("polygon vertices must be finite (no NaN or infinity)")
    return np.ascontiguousarray(v, dtype="<f8").tobytes()


def blob_to_vertices(blob: bytes) -> np.ndarray:
    """Inverse of :func:`vertices_to_blob`: a new native ``float64 (N, 2)`` array."""
    return np.frombuffer(blob, dtype="<f8").reshape(-1, 2).astype(np.float64)


def _annotation(row: sqlite3.Row) -> Annotation:
    return Annotation(
        id=row["id"], rater_id=row["rater_id"], image_id=row["image_id"],
        phase=Phase(row["phase"]), round=row["round"], status=AnnotationStatus(row["status"]),
        active_ms=row["active_ms"], classifications=loads(row["classifications"]),  # type: ignore[arg-type]
        updated_at=row["updated_at"], repeat_of=row["repeat_of"],
    )


def _polygon(row: sqlite3.Row) -> Polygon:
    return Polygon(
        vertices=blob_to_vertices(row["vertices"]), certainty=Certainty(row["certainty"]),
        label=row["label"], classifications=loads(row["classifications"]),  # type: ignore[arg-type]
        id=row["id"],
    )


class PolygonCountsMixin(StoreBase):
    def polygons_for(self, annotation_ids: Sequence[int]) -> dict[int, list[Polygon]]:
        """annotation id → its polygons in drawing order, for many annotations (one SELECT
        per 500 ids instead of one per annotation)."""
        found: dict[int, list[Polygon]] = {i: [] for i in annotation_ids}
        ids = list(found)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self.conn.execute(
                f"SELECT * FROM polygons WHERE annotation_id IN ({', '.join('?' * len(chunk))})"
                " ORDER BY annotation_id, position, id", chunk).fetchall()
            for r in rows:
                found[r["annotation_id"]].append(_polygon(r))
        return found

    def certainty_counts(self) -> dict[int, tuple[int, int]]:
        """rater id → ``(certain, uncertain)`` polygons in their finished annotations (one
        SELECT; for the report's share of "uncertain")."""
        rows = self.conn.execute(
            "SELECT a.rater_id, sum(p.certainty = 'certain'), sum(p.certainty = 'uncertain') "
            "FROM polygons p JOIN annotations a ON a.id = p.annotation_id "
            "WHERE a.status IN ('submitted', 'nothing_to_annotate') GROUP BY a.rater_id"
        ).fetchall()
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}


class AnnotationsMixin(QuestionsMixin, PolygonCountsMixin, StoreBase):
    # -- annotations -----------------------------------------------------------------------
    def annotation_for(
        self, rater_id: int, image_id: int, phase: Phase | str = Phase.FORMAL, round: int = 1,
        *, create: bool = True,
    ) -> Annotation | None:
        """The annotation of (rater, image, phase, round); created (``in_progress``, no
        polygons) when missing and ``create`` is true, else ``None`` when missing."""
        key = (rater_id, image_id, str(Phase(phase)), int(round))
        row = self._annotation_row(*key)
        if row is None and create:
            with self.transaction():
                self.conn.execute(
                    "INSERT OR IGNORE INTO annotations (rater_id, image_id, phase, round, "
                    "updated_at, guideline_version) VALUES (?, ?, ?, ?, ?, "
                    "(SELECT max(version) FROM guidelines))", (*key, now_iso()),
                )
            row = self._annotation_row(*key)
        return None if row is None else _annotation(row)

    def _annotation_row(self, rater_id: int, image_id: int, phase: str, rnd: int):
        return self.conn.execute(
            "SELECT * FROM annotations WHERE rater_id = ? AND image_id = ? AND phase = ? "
            "AND round = ?", (rater_id, image_id, phase, rnd),
        ).fetchone()

    def annotation(self, annotation_id: int) -> Annotation:
        row = self.conn.execute(
            "SELECT * FROM annotations WHERE id = ?", (annotation_id,)
        ).fetchone()
        if row is None:
            raise KeyError(f"no annotation {annotation_id} in this project")
        return _annotation(row)

    def annotations(
        self, *, image_id: int | None = None, rater_id: int | None = None,
        phase: Phase | str | None = None, round: int | None = None,
        status: AnnotationStatus | str | Iterable[AnnotationStatus | str] | None = None,
        repeats: bool | None = False,
    ) -> list[Annotation]:
        """Annotations matching every given filter, ordered by image then rater then round.

        For review: ``annotations(image_id=i, status=["submitted", "nothing_to_annotate"])``.
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
        rows = self.conn.execute(sql + " ORDER BY image_id, rater_id, phase, round, id", args)
        return [_annotation(r) for r in rows.fetchall()]

    def set_annotation_status(self, annotation_id: int, status: AnnotationStatus | str) -> None:
        """Mark ``in_progress``, ``submitted`` or ``nothing_to_annotate``.

        ``nothing_to_annotate`` with polygons present is refused (``ValueError``): the two
        claims contradict each other; delete the polygons first.
        """
        status = AnnotationStatus(status)
        with self.transaction():
            self._require_annotation(annotation_id)
            if status is AnnotationStatus.NOTHING_TO_ANNOTATE and self._polygon_count(
                    annotation_id):
                raise ValueError(
                    "this annotation has polygons; delete them before marking the image "
                    "as 'nothing to annotate'"
                )
            self._touch(annotation_id, "status = ?", (str(status),))

    def add_active_time(self, annotation_id: int, ms: int) -> int:
        """Add ``ms`` (>= 0) milliseconds of active annotation time; returns the new total.

        Time is not an edit: ``updated_at`` stays (merging packages and the review queue's
        cache take a changed ``updated_at`` for changed work)."""
        if ms < 0:
            raise ValueError(f"active time cannot be negative, got {ms} ms")
        with self.transaction():
            self._require_annotation(annotation_id)
            self.conn.execute("UPDATE annotations SET active_ms = active_ms + ? WHERE id = ?",
                              (int(ms), annotation_id))
            return int(self.conn.execute(
                "SELECT active_ms FROM annotations WHERE id = ?", (annotation_id,)
            ).fetchone()[0])

    def set_image_classifications(self, annotation_id: int, answers: dict) -> None:
        """Replace the image-level classification answers (a JSON object keyed by question
        name, e.g. ``{"density": "B", "findings": ["calcification"]}``)."""
        _require_dict(answers)
        with self.transaction():
            self._require_annotation(annotation_id)
            self._touch(annotation_id, "classifications = ?", (dumps(answers),))

    # -- polygons --------------------------------------------------------------------------
    def polygons(self, annotation_id: int) -> list[Polygon]:
        """The polygons in drawing order, each with its stored ``id``."""
        rows = self.conn.execute(
            "SELECT * FROM polygons WHERE annotation_id = ? ORDER BY position, id",
            (annotation_id,),
        ).fetchall()
        return [_polygon(r) for r in rows]

    def polygon(self, polygon_id: int) -> Polygon:
        row = self.conn.execute("SELECT * FROM polygons WHERE id = ?", (polygon_id,)).fetchone()
        if row is None:
            raise KeyError(f"no polygon {polygon_id} in this project")
        return _polygon(row)

    def add_polygon(self, annotation_id: int, polygon: Polygon, position: int | None = None
                    ) -> int:
        """Store ``polygon`` at ``position`` in drawing order (default: on top); returns its id.

        When ``polygon.id`` is set and free, that id is reused, so undoing a deletion restores
        the same id. Adding a polygon to a ``nothing_to_annotate`` annotation sets it back to
        ``in_progress``.
        """
        with self.transaction():
            self._require_annotation(annotation_id)
            count = self._polygon_count(annotation_id)
            pos = count if position is None else max(0, min(int(position), count))
            self.conn.execute(
                "UPDATE polygons SET position = position + 1 "
                "WHERE annotation_id = ? AND position >= ?", (annotation_id, pos),
            )
            new_id = self._insert_polygon(annotation_id, polygon, pos)
            self._touch(annotation_id, "status = CASE status WHEN 'nothing_to_annotate' "
                        "THEN 'in_progress' ELSE status END", ())
        return new_id

    def update_polygon(self, polygon_id: int, polygon: Polygon) -> None:
        """Replace vertices, certainty, label and classifications of a stored polygon (its
        id and position stay)."""
        with self.transaction():
            annotation_id = self._polygon_annotation(polygon_id)
            self.conn.execute(
                "UPDATE polygons SET certainty = ?, vertices = ?, label = ?, classifications = ? "
                "WHERE id = ?",
                (str(polygon.certainty), vertices_to_blob(polygon.vertices), polygon.label,
                 dumps(polygon.classifications), polygon_id),
            )
            self._touch(annotation_id)

    def set_polygon_classifications(self, polygon_id: int, answers: dict) -> None:
        """Replace one polygon's classification answers (JSON object keyed by question name)."""
        _require_dict(answers)
        with self.transaction():
            annotation_id = self._polygon_annotation(polygon_id)
            self.conn.execute("UPDATE polygons SET classifications = ? WHERE id = ?",
                              (dumps(answers), polygon_id))
            self._touch(annotation_id)

    def delete_polygon(self, polygon_id: int) -> int:
        """Delete a polygon; returns its former position (for undo: ``add_polygon(..., pos)``)."""
        with self.transaction():
            annotation_id = self._polygon_annotation(polygon_id)
            pos = self.conn.execute("SELECT position FROM polygons WHERE id = ?",
                                    (polygon_id,)).fetchone()[0]
            self.conn.execute("DELETE FROM polygons WHERE id = ?", (polygon_id,))
            self.conn.execute(
                "UPDATE polygons SET position = position - 1 "
                "WHERE annotation_id = ? AND position > ?", (annotation_id, pos),
            )
            self._touch(annotation_id)
        return int(pos)

    def replace_polygons(self, annotation_id: int, polygons: Sequence[Polygon]) -> list[int]:
        """Make ``polygons`` (in this order) the annotation's whole content, in one transaction.

        For undo/redo writes: the GUI keeps the list before and after an edit and writes
        either. Polygons whose ``id`` is set keep it when it belongs to this annotation or is
        free; the others get new ids. Returns the ids in order.
        """
        with self.transaction():
            self._require_annotation(annotation_id)
            self.conn.execute("DELETE FROM polygons WHERE annotation_id = ?", (annotation_id,))
            ids = [self._insert_polygon(annotation_id, p, k) for k, p in enumerate(polygons)]
            if ids:
                self._touch(annotation_id, "status = CASE status WHEN 'nothing_to_annotate' "
                            "THEN 'in_progress' ELSE status END", ())
            else:
                self._touch(annotation_id)
        return ids


    def image_annotations(
        self, image_id: int, phase: Phase | str | None = None, round: int | None = None,
        status: AnnotationStatus | str | Iterable[AnnotationStatus | str] | None = (
            AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE),
    ) -> list[tuple[Annotation, list[Polygon]]]:
        """For review: every matching annotation of one image with its polygons, by rater.

        By default only finished work (``submitted`` or ``nothing_to_annotate``); pass
        ``status=None`` for all.
        """
        found = self.annotations(image_id=image_id, phase=phase, round=round, status=status)
        return [(a, self.polygons(a.id)) for a in found]

    # -- helpers ---------------------------------------------------------------------------
    def _insert_polygon(self, annotation_id: int, polygon: Polygon, position: int) -> int:
        blob = vertices_to_blob(polygon.vertices)
        values = (annotation_id, position, str(Certainty(polygon.certainty)), blob,
                  polygon.label, dumps(polygon.classifications))
        if polygon.id is not None and self.conn.execute(
                "SELECT 1 FROM polygons WHERE id = ?", (polygon.id,)).fetchone() is None:
            self.conn.execute(
                "INSERT INTO polygons (id, annotation_id, position, certainty, vertices, label, "
                "classifications) VALUES (?, ?, ?, ?, ?, ?, ?)", (polygon.id, *values),
            )
            return int(polygon.id)
        cur = self.conn.execute(
            "INSERT INTO polygons (annotation_id, position, certainty, vertices, label, "
            "classifications) VALUES (?, ?, ?, ?, ?, ?)", values,
        )
        return last_id(cur)

    def _polygon_count(self, annotation_id: int) -> int:
        return int(self.conn.execute(
            "SELECT count(*) FROM polygons WHERE annotation_id = ?", (annotation_id,)
        ).fetchone()[0])

    def _polygon_annotation(self, polygon_id: int) -> int:
        row = self.conn.execute("SELECT annotation_id FROM polygons WHERE id = ?",
                                (polygon_id,)).fetchone()
        if row is None:
            raise KeyError(f"no polygon {polygon_id} in this project")
        return int(row[0])

    def _require_annotation(self, annotation_id: int) -> None:
        if self.conn.execute("SELECT 1 FROM annotations WHERE id = ?",
                             (annotation_id,)).fetchone() is None:
            raise KeyError(f"no annotation {annotation_id} in this project")

    def _touch(self, annotation_id: int, assignment: str = "", args: tuple = ()) -> None:
        sets = f"{assignment}, updated_at = ?" if assignment else "updated_at = ?"
        self.conn.execute(f"UPDATE annotations SET {sets} WHERE id = ?",
                          (*args, now_iso(), annotation_id))


def _require_dict(answers: object) -> None:
    if not isinstance(answers, dict):
        raise ValueError(f"classification answers must be a dict, got {type(answers).__name__}")

