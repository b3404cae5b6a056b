"""``project.polygons``: the polygons of an annotation.

Polygon vertices are stored as a BLOB of little-endian float64 ``(N, 2)`` ``(x, y)`` values, so
what is loaded is bit-for-bit what was saved (no drift across save/load). Polygons keep their
drawing order in ``position`` (0, 1, ...): later polygons are drawn on top.

Every method that changes polygons is one transaction and stamps the annotation's
``updated_at``. Methods that write polygons return the stored ids. A polygon's provenance
(``tool``, ``edited``, ``model``) is stored as given: the rule of what counts as an edit is the
application layer's (:func:`slicereview.app.annotating.edited_polygon`).

Example
-------
>>> import tempfile, pathlib, numpy as np
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage, Polygon
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "x.png").write_bytes(b"not really a png")
>>> project = Project.create(folder / "a.srproj")
>>> [image] = project.images.add_source(folder / "x.png", "0" * 64, "png",
...                                     [NewImage(rows=6, cols=5)])
>>> ann = project.annotations.for_image(project.raters.add("ann1"), image)
>>> square = np.array([[2, 3], [3, 3], [3, 4], [2, 4]], dtype=float)
>>> pid = project.polygons.add(ann.id, Polygon(square))
>>> np.array_equal(project.polygons.of(ann.id)[0].vertices, square)
True
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.model import Certainty, Polygon, Tool
from slicereview.store._base import Part, dumps, loads
from slicereview.store.annotations import polygon_count, require_annotation, require_dict, touch
from slicereview.store.database import Database, Row

__all__ = ["Polygons", "blob_to_vertices", "polygons_of", "vertices_to_blob"]

#: Adding a polygon to an annotation marked "nothing to annotate" reopens it.
_REOPEN = "status = CASE status WHEN 'nothing_to_annotate' THEN 'in_progress' ELSE status END"


def vertices_to_blob(vertices: np.ndarray) -> bytes:
    """``float64 (N, 2)`` vertices as little-endian bytes (the project file's format)."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if not np.isfinite(v).all():
        raise ValueError("polygon vertices must be finite (no NaN or infinity)")
    return np.ascontiguousarray(v, dtype="<f8").tobytes()


def blob_to_vertices(blob: bytes) -> np.ndarray:
    """Inverse of :func:`vertices_to_blob`: a new native ``float64 (N, 2)`` array."""
    return np.frombuffer(blob, dtype="<f8").reshape(-1, 2).astype(np.float64)


def _polygon(row: Row) -> Polygon:
    return Polygon(
        vertices=blob_to_vertices(row["vertices"]), certainty=Certainty(row["certainty"]),
        label=row["label"], classifications=loads(row["classifications"]),  # type: ignore[arg-type]
        id=row["id"], tool=Tool(row["tool"]), edited=bool(row["edited"]), model=row["model"],
    )


def _provenance(polygon: Polygon) -> tuple[str, int, str | None]:
    """The ``tool``, ``edited`` and ``model`` columns of ``polygon``."""
    return str(Tool(polygon.tool)), int(bool(polygon.edited)), polygon.model


def polygons_of(db: Database, annotation_id: int) -> list[Polygon]:
    """The polygons of one annotation in drawing order, each with its stored ``id``."""
    rows = db.execute(
        "SELECT * FROM polygons WHERE annotation_id = ? ORDER BY position, id",
        (annotation_id,),
    ).fetchall()
    return [_polygon(r) for r in rows]


class Polygons(Part):
    # -- reading ---------------------------------------------------------------------------
    def of(self, annotation_id: int) -> list[Polygon]:
        """The polygons of an annotation in drawing order, each with its stored ``id``."""
        return polygons_of(self.db, annotation_id)

    def of_many(self, annotation_ids: Sequence[int]) -> dict[int, list[Polygon]]:
        """annotation id → its polygons in drawing order, for many annotations (one SELECT
        per 500 ids instead of one per annotation)."""
        found: dict[int, list[Polygon]] = {i: [] for i in annotation_ids}
        ids = list(found)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self.db.execute(
                f"SELECT * FROM polygons WHERE annotation_id IN ({', '.join('?' * len(chunk))})"
                " ORDER BY annotation_id, position, id", chunk).fetchall()
            for r in rows:
                found[r["annotation_id"]].append(_polygon(r))
        return found

    def get(self, polygon_id: int) -> Polygon:
        row = self.db.execute("SELECT * FROM polygons WHERE id = ?", (polygon_id,)).fetchone()
        if row is None:
            raise KeyError(f"no polygon {polygon_id} in this project")
        return _polygon(row)

    def certainty_counts(self) -> dict[int, tuple[int, int]]:
        """rater id → ``(certain, uncertain)`` polygons in their finished annotations (one
        SELECT; for the report's share of "uncertain")."""
        rows = self.db.execute(
            "SELECT a.rater_id, count(CASE WHEN p.certainty = 'certain' THEN 1 END), "
            "count(CASE WHEN p.certainty = 'uncertain' THEN 1 END) "
            "FROM polygons p JOIN annotations a ON a.id = p.annotation_id "
            "WHERE a.status IN ('submitted', 'nothing_to_annotate') GROUP BY a.rater_id "
            "ORDER BY a.rater_id"
        ).fetchall()
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    def provenance_of(self, annotation_ids: Sequence[int]
                      ) -> dict[int, list[tuple[Tool, bool, str | None]]]:
        """annotation id → ``(tool, edited, model)`` of its polygons in drawing order, for
        many annotations, without their vertices (one SELECT per 500 ids)."""
        found: dict[int, list[tuple[Tool, bool, str | None]]] = {i: [] for i in annotation_ids}
        ids = list(found)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self.db.execute(
                "SELECT annotation_id, tool, edited, model FROM polygons WHERE annotation_id "
                f"IN ({', '.join('?' * len(chunk))}) ORDER BY annotation_id, position, id",
                chunk).fetchall()
            for r in rows:
                found[r[0]].append((Tool(r[1]), bool(r[2]), r[3]))
        return found

    def tool_counts(self) -> dict[tuple[Tool, str | None], tuple[int, int]]:
        """``(tool, model)`` → ``(polygons, of them edited)`` over the whole project (one
        SELECT; for ``slicereview info``), in :class:`~slicereview.model.Tool` order."""
        rows = self.db.execute(
            "SELECT tool, model, count(*), count(CASE WHEN edited = 1 THEN 1 END) "
            "FROM polygons GROUP BY tool, model ORDER BY tool, model").fetchall()
        order = list(Tool)
        found = {(Tool(r[0]), r[1]): (int(r[2]), int(r[3])) for r in rows}
        return dict(sorted(found.items(), key=lambda kv: (order.index(kv[0][0]),
                                                          kv[0][1] or "")))

    # -- writing ---------------------------------------------------------------------------
    def add(self, annotation_id: int, polygon: Polygon, position: int | None = None) -> int:
        """Store ``polygon`` at ``position`` in drawing order (default: on top); returns its id.

        When ``polygon.id`` is set and free, that id is reused, so undoing a deletion restores
        the same id. Adding a polygon to a ``nothing_to_annotate`` annotation sets it back to
        ``in_progress``.
        """
        with self.transaction():
            require_annotation(self.db, annotation_id)
            count = polygon_count(self.db, annotation_id)
            pos = count if position is None else max(0, min(int(position), count))
            self.db.execute(
                "UPDATE polygons SET position = position + 1 "
                "WHERE annotation_id = ? AND position >= ?", (annotation_id, pos),
            )
            new_id = self._insert(annotation_id, polygon, pos)
            touch(self.db, annotation_id, _REOPEN)
        return new_id

    def update(self, polygon_id: int, polygon: Polygon) -> None:
        """Replace vertices, certainty, label, classifications and provenance of a stored
        polygon (its id and position stay)."""
        with self.transaction():
            annotation_id = self._annotation_of(polygon_id)
            self.db.execute(
                "UPDATE polygons SET certainty = ?, vertices = ?, label = ?, classifications = ?, "
                "tool = ?, edited = ?, model = ? WHERE id = ?",
                (str(polygon.certainty), vertices_to_blob(polygon.vertices), polygon.label,
                 dumps(polygon.classifications), *_provenance(polygon), polygon_id),
            )
            touch(self.db, annotation_id)

    def set_classifications(self, polygon_id: int, answers: dict) -> None:
        """Replace one polygon's classification answers (JSON object keyed by question name)."""
        require_dict(answers)
        with self.transaction():
            annotation_id = self._annotation_of(polygon_id)
            self.db.execute("UPDATE polygons SET classifications = ? WHERE id = ?",
                            (dumps(answers), polygon_id))
            touch(self.db, annotation_id)

    def delete(self, polygon_id: int) -> int:
        """Delete a polygon; returns its former position (for undo: ``add(..., pos)``)."""
        with self.transaction():
            annotation_id = self._annotation_of(polygon_id)
            pos = self.db.execute("SELECT position FROM polygons WHERE id = ?",
                                  (polygon_id,)).fetchone()[0]
            self.db.execute("DELETE FROM polygons WHERE id = ?", (polygon_id,))
            self.db.execute(
                "UPDATE polygons SET position = position - 1 "
                "WHERE annotation_id = ? AND position > ?", (annotation_id, pos),
            )
            touch(self.db, annotation_id)
        return int(pos)

    def replace(self, annotation_id: int, polygons: Sequence[Polygon]) -> list[int]:
        """Make ``polygons`` (in this order) the annotation's whole content, in one transaction.

        For undo/redo writes: the GUI keeps the list before and after an edit and writes
        either. Polygons whose ``id`` is set keep it when it belongs to this annotation or is
        free; the others get new ids. Returns the ids in order.
        """
        with self.transaction():
            require_annotation(self.db, annotation_id)
            self.db.execute("DELETE FROM polygons WHERE annotation_id = ?", (annotation_id,))
            ids = [self._insert(annotation_id, p, k) for k, p in enumerate(polygons)]
            if ids:
                touch(self.db, annotation_id, _REOPEN)
            else:
                touch(self.db, annotation_id)
        return ids

    # -- helpers ---------------------------------------------------------------------------
    def _insert(self, annotation_id: int, polygon: Polygon, position: int) -> int:
        blob = vertices_to_blob(polygon.vertices)
        values = (annotation_id, position, str(Certainty(polygon.certainty)), blob,
                  polygon.label, dumps(polygon.classifications), *_provenance(polygon))
        if polygon.id is not None and self.db.execute(
                "SELECT 1 FROM polygons WHERE id = ?", (polygon.id,)).fetchone() is None:
            self.db.execute(
                "INSERT INTO polygons (id, annotation_id, position, certainty, vertices, label, "
                "classifications, tool, edited, model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (polygon.id, *values),
            )
            self.db.reset_ids(["polygons"])
            return int(polygon.id)
        new_id = self.db.insert(
            "INSERT INTO polygons (annotation_id, position, certainty, vertices, label, "
            "classifications, tool, edited, model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", values,
        )
        return new_id

    def _annotation_of(self, polygon_id: int) -> int:
        row = self.db.execute("SELECT annotation_id FROM polygons WHERE id = ?",
                              (polygon_id,)).fetchone()
        if row is None:
            raise KeyError(f"no polygon {polygon_id} in this project")
        return int(row[0])
