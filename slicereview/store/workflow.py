"""``project.workflow``, the data of the QA workflow: batches and assignments, gold, gold
scores, the owner's qualification decisions and image flags (schema version 3). The rules are in
:mod:`slicereview.app.qa.workflow`; the store keeps the data consistent only.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> images = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                     [NewImage(6, 6)])
>>> b = project.workflow.add_batch("onboarding A", "onboarding", images, min_dice=0.6)
>>> project.workflow.assign_batch(b, group="A")
>>> project.workflow.batch(b).min_dice, project.workflow.batch_assignments(b)
(0.6, [(None, 'A')])
>>> project.close()
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from slicereview.model import Batch, ImageFlag, Phase, Qualification
from slicereview.store._base import Part, filters, now_iso
from slicereview.store.database import Database, Row
from slicereview.store.images import ImageSets


def _batch(row: Row) -> Batch:
    return Batch(row["id"], row["name"], Phase(row["phase"]), row["image_set_id"],
                 row["min_dice"], row["alpha_threshold"], row["max_annotators"],
                 row["low_action"])


def _qualification(row: Row) -> Qualification:
    pre = row["prefilter"]
    return Qualification(row["id"], row["batch_id"], row["rater_id"], bool(row["go_on"]),
                         None if pre is None else bool(pre), row["mean_dice"],
                         row["decided_by"], row["reason"], row["created_at"])


class Workflow(Part):
    def __init__(self, db: Database, image_sets: ImageSets) -> None:
        super().__init__(db)
        self._image_sets = image_sets

    # -- batches ---------------------------------------------------------------------------
    def add_batch(
        self, name: str, phase: Phase | str, image_ids: Sequence[int], *,
        min_dice: float | None = None, alpha_threshold: float | None = None,
        max_annotators: int = 3, low_action: str = "assign",
    ) -> int:
        """A batch: a new image set ``name`` of ``image_ids`` in ``phase``; returns its id."""
        with self.transaction():
            set_id = self._image_sets.create(name, image_ids)
            new_id = self.db.insert(
                "INSERT INTO batches (name, phase, image_set_id, min_dice, alpha_threshold, "
                "max_annotators, low_action, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, str(Phase(phase)), set_id, min_dice, alpha_threshold,
                 int(max_annotators), low_action, now_iso()))
        return new_id

    def set_batch_rules(self, batch_id: int, *, min_dice: float | None = None,
                        alpha_threshold: float | None = None, max_annotators: int = 3,
                        low_action: str = "assign") -> None:
        """Replace the owner's rules of a batch."""
        with self.transaction():
            if self.db.execute(
                    "UPDATE batches SET min_dice = ?, alpha_threshold = ?, max_annotators = ?, "
                    "low_action = ? WHERE id = ?", (min_dice, alpha_threshold,
                                                    int(max_annotators), low_action,
                                                    batch_id)).rowcount == 0:
                raise KeyError(f"no batch {batch_id} in this project")

    def batch(self, batch_id: int) -> Batch:
        row = self.db.execute("SELECT * FROM batches WHERE id = ?", (batch_id,)).fetchone()
        if row is None:
            raise KeyError(f"no batch {batch_id} in this project")
        return _batch(row)

    def batches(self, phase: Phase | str | None = None) -> list[Batch]:
        sql = "SELECT * FROM batches"
        args: tuple = ()
        if phase is not None:
            sql, args = sql + " WHERE phase = ?", (str(Phase(phase)),)
        return [_batch(r) for r in self.db.execute(sql + " ORDER BY id", args).fetchall()]

    def batch_by_name(self, name: str) -> Batch | None:
        row = self.db.execute("SELECT * FROM batches WHERE name = ?", (name,)).fetchone()
        return None if row is None else _batch(row)

    def assign_batch(self, batch_id: int, *, rater_id: int | None = None,
                     group: str | None = None) -> None:
        """Assign one annotator or a whole group to a batch (again: nothing changes)."""
        if (rater_id is None) == (group is None):
            raise ValueError("assign a rater or a group, not both and not neither")
        with self.transaction():
            self.batch(batch_id)
            if self.db.execute(
                    "SELECT 1 FROM batch_assignments WHERE batch_id = ? AND rater_id IS ? AND "
                    "group_name IS ?", (batch_id, rater_id, group)).fetchone() is None:
                self.db.execute(
                    "INSERT INTO batch_assignments (batch_id, rater_id, group_name, created_at)"
                    " VALUES (?, ?, ?, ?)", (batch_id, rater_id, group, now_iso()))

    def batch_assignments(self, batch_id: int) -> list[tuple[int | None, str | None]]:
        """``(rater_id, group)`` pairs assigned to a batch, oldest first."""
        rows = self.db.execute(
            "SELECT rater_id, group_name FROM batch_assignments WHERE batch_id = ? ORDER BY id",
            (batch_id,)).fetchall()
        return [(r[0], r[1]) for r in rows]

    # -- gold ------------------------------------------------------------------------------
    def set_gold(self, image_id: int, *, annotation_id: int | None = None,
                 mask_png: bytes | None = None, origin: str = "") -> None:
        """Make an expert's annotation or an imported label mask (PNG) the gold of an image
        (replacing an earlier one)."""
        if (annotation_id is None) == (mask_png is None):
            raise ValueError("gold is an annotation or a mask, not both and not neither")
        with self.transaction():
            if annotation_id is not None:
                row = self.db.execute("SELECT image_id FROM annotations WHERE id = ?",
                                        (annotation_id,)).fetchone()
                if row is None or row[0] != image_id:
                    raise ValueError(f"annotation {annotation_id} is not on image {image_id}")
            self.db.execute(
                "INSERT INTO gold (image_id, annotation_id, mask_png, origin, created_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (image_id) DO UPDATE SET "
                "annotation_id = excluded.annotation_id, mask_png = excluded.mask_png, "
                "origin = excluded.origin, created_at = excluded.created_at",
                (image_id, annotation_id, mask_png, origin, now_iso()))

    def gold(self, image_id: int) -> tuple[int | None, bytes | None, str] | None:
        """``(annotation_id, mask_png, origin)`` of an image's gold, ``None`` without."""
        row = self.db.execute("SELECT annotation_id, mask_png, origin FROM gold "
                                "WHERE image_id = ?", (image_id,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def gold_images(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT image_id FROM gold ORDER BY image_id")]

    def gold_annotation_ids(self) -> set[int]:
        return {r[0] for r in self.db.execute(
            "SELECT annotation_id FROM gold WHERE annotation_id IS NOT NULL")}

    def store_gold_score(self, annotation_id: int, image_id: int, scores: dict) -> None:
        with self.transaction():
            self.db.execute(
                "INSERT INTO gold_scores (annotation_id, image_id, scores, scored_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (annotation_id) DO UPDATE SET "
                "image_id = excluded.image_id, scores = excluded.scores, "
                "scored_at = excluded.scored_at", (annotation_id, image_id, json.dumps(scores),
                                         now_iso()))

    def gold_scores(self) -> dict[int, dict]:
        """annotation id → its scores against gold (see ``app.qa.workflow.score_against_gold``)."""
        return {r[0]: json.loads(r[1]) for r in self.db.execute(
            "SELECT annotation_id, scores FROM gold_scores ORDER BY annotation_id")}

    # -- qualifications and flags ----------------------------------------------------------
    def add_qualification(self, batch_id: int, rater_id: int, go_on: bool, *,
                          prefilter: bool | None, mean_dice: float | None,
                          decided_by: int | None, reason: str = "") -> int:
        with self.transaction():
            new_id = self.db.insert(
                "INSERT INTO qualifications (batch_id, rater_id, go_on, prefilter, mean_dice, "
                "decided_by, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (batch_id, rater_id, int(go_on), None if prefilter is None else int(prefilter),
                 mean_dice, decided_by, reason, now_iso()))
        return new_id

    def qualifications(self, *, batch_id: int | None = None, rater_id: int | None = None
                       ) -> list[Qualification]:
        """Decisions, oldest first (the newest per batch and rater is in force)."""
        where, args = filters(batch_id=batch_id, rater_id=rater_id)
        sql = "SELECT * FROM qualifications" + where + " ORDER BY id"
        return [_qualification(r) for r in self.db.execute(sql, args)]

    def add_image_flag(self, image_id: int, kind: str, reason: str, *,
                       batch_id: int | None = None, rater_id: int | None = None) -> int:
        with self.transaction():
            new_id = self.db.insert(
                "INSERT INTO image_flags (image_id, batch_id, kind, rater_id, reason, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (image_id, batch_id, kind, rater_id, reason, now_iso()))
        return new_id

    def image_flags(self, image_id: int | None = None) -> list[ImageFlag]:
        sql = "SELECT * FROM image_flags"
        args: tuple = ()
        if image_id is not None:
            sql, args = sql + " WHERE image_id = ?", (image_id,)
        return [ImageFlag(r["id"], r["image_id"], r["batch_id"], r["kind"], r["rater_id"],
                          r["reason"], r["created_at"])
                for r in self.db.execute(sql + " ORDER BY id", args).fetchall()]
