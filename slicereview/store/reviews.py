"""``project.reviews``: decisions, pins and the review-features cache.

A *decision* is a reviews row on one annotation (``accept``, ``reject``, ``expert_review``);
the newest row of an annotation is the one in force, older rows are its history (undo deletes
the newest). A *pin* is a row without a decision, attached to a box ``(row0, col0, row1, col1)``
or a point ``(x, y)`` of the image, and either to one annotation (``annotation_id``: it goes
with that annotation's decision) or to none (an *image pin*, for reviewers and owners, or
``for_everyone``). Rules about *when* a decision is allowed (a rejection needs a
reason, ...) live in :mod:`slicereview.app.review.decisions`; the store checks only that the
data is consistent (the annotation belongs to the image, a pin has its coordinates).

The features cache holds JSON objects keyed by ``(phase, round, annotators_key, level,
image_id)`` with a ``source_key`` that the application compares before using an entry.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> from slicereview.model import NewImage
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [image] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                                     [NewImage(6, 6)])
>>> ann = project.annotations.for_image(project.raters.add("ann"), image)
>>> boss = project.raters.add("boss", "reviewer")
>>> rid = project.reviews.add(image, boss, annotation_id=ann.id, decision="reject",
...                           tags=["missed finding"])
>>> str(project.reviews.current_decisions([ann.id])[ann.id].decision)
'reject'
>>> project.reviews.store_features("formal", 0, "all", "relaxed", [(image, "k1", {"a": 1})])
>>> project.reviews.features("formal", 0, "all", "relaxed")
{1: ('k1', {'a': 1})}
>>> project.close()
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from slicereview.model import Decision, Review
from slicereview.store._base import Part, dumps, filters, loads, now_iso
from slicereview.store.database import Row

_PIN_SIZES = {"box": 4, "point": 2}


def _review(row: Row) -> Review:
    pin_at = json.loads(row["pin_at"]) if row["pin_at"] else []
    return Review(
        id=row["id"], image_id=row["image_id"], reviewer_id=row["reviewer_id"],
        annotation_id=row["annotation_id"],
        decision=None if row["decision"] is None else Decision(row["decision"]),
        comment=row["comment"], tags=tuple(json.loads(row["tags"] or "[]")),
        created_at=row["created_at"], active_ms=row["active_ms"],
        alphas=loads(row["alphas"]),  # type: ignore[arg-type]
        pin_kind=row["pin_kind"], pin_at=tuple(float(v) for v in pin_at),
        for_everyone=bool(row["for_everyone"]),
    )


class Reviews(Part):
    # -- decisions and pins ----------------------------------------------------------------
    def add(
        self, image_id: int, reviewer_id: int, *, annotation_id: int | None = None,
        decision: Decision | str | None = None, comment: str = "", tags: Sequence[str] = (),
        active_ms: int = 0, alphas: dict | None = None, pin_kind: str | None = None,
        pin_at: Sequence[float] = (), review_id: int | None = None, for_everyone: bool = False,
    ) -> int:
        """Store one decision or pin (one transaction); returns its id.

        ``review_id`` reuses a free id (so redo after undo restores the same row id);
        ``for_everyone``: an image pin every annotator reads (only an image pin is).
        """
        if decision is not None and annotation_id is None:
            raise ValueError("a decision is taken on an annotation: give annotation_id")
        if pin_kind is not None:
            if pin_kind not in _PIN_SIZES or len(pin_at) != _PIN_SIZES[pin_kind]:
                raise ValueError("a pin is a box (row0, col0, row1, col1) or a point (x, y)")
        elif pin_at:
            raise ValueError("pin coordinates need pin_kind 'box' or 'point'")
        if for_everyone and (pin_kind is None or annotation_id is not None):
            raise ValueError("only an image pin (on no annotation) is for everyone")
        if active_ms < 0:
            raise ValueError(f"active time cannot be negative, got {active_ms} ms")
        values = (
            image_id, reviewer_id, annotation_id,
            None if decision is None else str(Decision(decision)), comment,
            json.dumps(list(tags)), now_iso(), int(active_ms), dumps(alphas or {}), pin_kind,
            json.dumps([float(v) for v in pin_at]) if pin_kind else None, int(for_everyone),
        )
        with self.transaction():
            if annotation_id is not None:
                row = self.db.execute("SELECT image_id FROM annotations WHERE id = ?",
                                      (annotation_id,)).fetchone()
                if row is None:
                    raise KeyError(f"no annotation {annotation_id} in this project")
                if row[0] != image_id:
                    raise ValueError(f"annotation {annotation_id} is not on image {image_id}")
            if review_id is not None and self.db.execute(
                    "SELECT 1 FROM reviews WHERE id = ?", (review_id,)).fetchone() is None:
                values = (review_id, *values)  # type: ignore[assignment]
                columns = "id, "
            else:
                columns = ""
            new_id = self.db.insert(
                f"INSERT INTO reviews ({columns}image_id, reviewer_id, annotation_id, decision, "
                "comment, tags, created_at, active_ms, alphas, pin_kind, pin_at, for_everyone, "
                f"guideline_version) VALUES ({', '.join('?' * len(values))}, "
                "(SELECT max(version) FROM guidelines))", values,
            )
            if columns:
                self.db.reset_ids(["reviews"])
        return new_id

    def set_for_everyone(self, review_id: int, on: bool) -> None:
        """Mark an image pin for everyone (``on``) or for reviewers and owners only; a pin for
        everyone keeps no α (every login reads it). ``KeyError`` for no such pin,
        ``ValueError`` for a decision or a pin on an annotation."""
        with self.transaction():
            row = self.db.execute("SELECT pin_kind, annotation_id FROM reviews WHERE id = ?",
                                  (review_id,)).fetchone()
            if row is None or row[0] is None:
                raise KeyError(f"no pin {review_id} in this project")
            if row[1] is not None:
                raise ValueError("only an image pin (on no annotation) is for everyone")
            self.db.execute(
                "UPDATE reviews SET for_everyone = ?, alphas = CASE WHEN ? = 1 THEN '{}' "
                "ELSE alphas END WHERE id = ?", (int(on), int(on), review_id))

    def delete(self, review_id: int) -> None:
        """Delete one decision or pin (undo)."""
        with self.transaction():
            if self.db.execute("DELETE FROM reviews WHERE id = ?", (review_id,)).rowcount == 0:
                raise KeyError(f"no review {review_id} in this project")

    def get(self, review_id: int) -> Review:
        row = self.db.execute("SELECT * FROM reviews WHERE id = ?", (review_id,)).fetchone()
        if row is None:
            raise KeyError(f"no review {review_id} in this project")
        return _review(row)

    def all(self, *, image_id: int | None = None, annotation_id: int | None = None
                ) -> list[Review]:
        """Decisions and pins (optionally of one image or annotation), oldest first."""
        where, args = filters(image_id=image_id, annotation_id=annotation_id)
        sql = "SELECT * FROM reviews" + where + " ORDER BY id"
        return [_review(r) for r in self.db.execute(sql, args).fetchall()]

    def current_decisions(self, annotation_ids: Iterable[int] | None = None
                          ) -> dict[int, Review]:
        """annotation id → its decision in force (the newest), for annotations that have one."""
        rows = self.db.execute(
            "SELECT * FROM reviews WHERE id IN (SELECT max(id) FROM reviews "
            "WHERE decision IS NOT NULL GROUP BY annotation_id) ORDER BY id"
        ).fetchall()
        found = {r["annotation_id"]: _review(r) for r in rows}
        if annotation_ids is None:
            return found
        return {a: found[a] for a in annotation_ids if a in found}

    # -- features cache --------------------------------------------------------------------
    def features(self, phase: str, round: int, annotators_key: str, level: str
                        ) -> dict[int, tuple[str, dict]]:
        """Cached features of one selection: image id → ``(source_key, features)`` (one
        SELECT)."""
        rows = self.db.execute(
            "SELECT image_id, source_key, features FROM review_features WHERE phase = ? "
            "AND round = ? AND annotators_key = ? AND level = ? ORDER BY image_id",
            (phase, int(round), annotators_key, level),
        ).fetchall()
        return {r[0]: (r[1], json.loads(r[2])) for r in rows}

    def store_features(
        self, phase: str, round: int, annotators_key: str, level: str,
        entries: Iterable[tuple[int, str, dict]],
    ) -> None:
        """Store ``(image_id, source_key, features)`` entries, replacing older ones (one
        transaction)."""
        now = now_iso()
        with self.transaction():
            self.db.executemany(
                "INSERT INTO review_features (image_id, phase, round, annotators_key, level, "
                "source_key, features, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (phase, round, annotators_key, level, image_id) DO UPDATE SET "
                "source_key = excluded.source_key, features = excluded.features, "
                "computed_at = excluded.computed_at",
                [(i, phase, int(round), annotators_key, level, key, dumps(f), now)
                 for i, key, f in entries],
            )

    def latest_features(self, image_id: int) -> dict | None:
        """The most recently computed cached features of an image, whatever the selection
        (the owner report's per-image rows, annotators keys ``report:…``, are not features)."""
        row = self.db.execute(
            "SELECT features FROM review_features WHERE image_id = ? "
            "AND annotators_key NOT LIKE 'report:%' "
            "ORDER BY computed_at DESC, phase, round, annotators_key, level LIMIT 1",
            (image_id,)).fetchone()
        return None if row is None else json.loads(row[0])
