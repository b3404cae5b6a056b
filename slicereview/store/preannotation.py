"""``project.preannotation``: the pre-annotation setting of each batch and its design, which
annotator's annotation of which image starts from the model's polygons (schema
:mod:`~slicereview.store.schema_preannotation`). The rules (the seeded half, the copy) are in
:mod:`slicereview.app.qa.preannotation`; the store keeps the data consistent only.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(6, 6)])
>>> net, ann = project.raters.add("net"), project.raters.add("ann")
>>> batch = project.workflow.add_batch("b", "formal", [img])
>>> project.preannotation.set(batch, net, "all", 1, "owner", [(img, ann, True)])
>>> project.preannotation.shown_to(ann, img), project.preannotation.shown_to(net, img)
(1, None)
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.model import Preannotation as Setting
from slicereview.store._base import Part, now_iso


class Preannotation(Part):
    def set(self, batch_id: int, model_id: int, share: str, seed: int, set_by: str,
            design: Sequence[tuple[int, int, bool]]) -> None:
        """Make ``model_id``'s polygons the starting point of the batch's annotators as
        ``design`` says (``(image id, rater id, shown)``), one transaction. The rows of an
        annotator and image already in the design stay as they were: work already started
        from (or without) the model keeps its arm."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO preannotation (batch_id, model_id, share, seed, set_by, set_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (batch_id) DO UPDATE SET model_id = "
                "excluded.model_id, share = excluded.share, seed = excluded.seed, set_by = "
                "excluded.set_by, set_at = excluded.set_at",
                (batch_id, model_id, share, int(seed), set_by, now_iso()))
            self.db.executemany(
                "INSERT INTO preannotation_shown (batch_id, image_id, rater_id, shown) VALUES "
                "(?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(batch_id, i, r, int(bool(s))) for i, r, s in design])

    def clear(self, batch_id: int) -> None:
        """The batch shows no model any more (its design goes too; work started stays)."""
        with self.transaction():
            self.db.execute("DELETE FROM preannotation_shown WHERE batch_id = ?", (batch_id,))
            self.db.execute("DELETE FROM preannotation WHERE batch_id = ?", (batch_id,))

    def setting(self, batch_id: int) -> Setting | None:
        row = self.db.execute("SELECT batch_id, model_id, share, seed, set_by, set_at FROM "
                              "preannotation WHERE batch_id = ?", (batch_id,)).fetchone()
        return None if row is None else Setting(*row)

    def settings(self) -> list[Setting]:
        return [Setting(*row) for row in self.db.execute(
            "SELECT batch_id, model_id, share, seed, set_by, set_at FROM preannotation "
            "ORDER BY batch_id")]

    def design(self, batch_id: int | None = None) -> list[tuple[int, int, int, bool]]:
        """``(batch id, image id, rater id, shown)`` of one batch's design, or of every batch."""
        where, params = ("WHERE batch_id = ?", (batch_id,)) if batch_id is not None else ("", ())
        return [(b, i, r, bool(s)) for b, i, r, s in self.db.execute(
            f"SELECT batch_id, image_id, rater_id, shown FROM preannotation_shown {where} "
            "ORDER BY batch_id, image_id, rater_id", params)]

    def shown_to(self, rater_id: int, image_id: int, phase: str | None = None) -> int | None:
        """The model rater whose polygons the rater's annotation of the image (in a batch
        of ``phase``, any when ``None``) starts from (the batch made first wins), ``None``
        when no batch shows them one."""
        in_phase = "" if phase is None else " AND b.phase = ?"
        row = self.db.execute(
            "SELECT p.model_id FROM preannotation_shown s JOIN preannotation p ON p.batch_id "
            "= s.batch_id JOIN batches b ON b.id = s.batch_id WHERE s.rater_id = ? AND "
            f"s.image_id = ? AND s.shown = 1{in_phase} ORDER BY s.batch_id LIMIT 1",
            (rater_id, image_id) + (() if phase is None else (phase,))).fetchone()
        return None if row is None else int(row[0])
