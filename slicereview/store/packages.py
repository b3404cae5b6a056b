"""``project.packages``, the store side of work packages (the rules are in
:mod:`slicereview.app.qa.packages`): a blind copy of the project for one annotator, and the
conflicts a merge keeps.

:meth:`Packages.write_subset` copies the project into a new project file (SQLite's backup
API from a file, a copy of every row from a server) and then
deletes, in the copy only, everything the annotator must not see or does not need: other raters'
annotations, sessions and views, gold and gold scores, qualifications, image flags, the
features cache, the owner's UID map, seed, original paths and shared copies, images outside
the package and their files' records, other batches, every pin but those the annotator is
shown (the pins on their returned, i.e. rejected, annotations and the image pins for
everyone), and every rater who is neither the annotator nor the author of a
decision or pin kept. Ids and case ids
stay the same, so merging maps rows by id and verifies them by content hash.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from slicereview.store._base import Part, now_iso


class Packages(Part):
    def write_subset(self, dest: str | Path, rater_id: int, image_ids: Sequence[int],
                     batch_id: int | None, meta: dict[str, str]) -> None:
        """Write a blind copy for ``rater_id`` holding ``image_ids`` to ``dest`` (new file)."""
        dest = Path(dest)
        if dest.exists():
            raise FileExistsError(f"{dest} exists")
        self.db.copy_to_file(dest, without=("blobs", "shared_parts"))
        out = sqlite3.connect(dest)
        try:
            out.execute("PRAGMA foreign_keys = ON")
            with out:
                out.execute("CREATE TEMP TABLE keep_images (id INTEGER PRIMARY KEY)")
                out.executemany("INSERT INTO keep_images VALUES (?)", [(i,) for i in image_ids])
                for sql in _SUBSET_SQL:
                    out.execute(sql, {"rater": rater_id, "batch": batch_id})
                out.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                sorted(meta.items()))
            out.execute("VACUUM")
        finally:
            out.close()

    def rename_sources(self, names: dict[int, tuple[str, str, int]]) -> None:
        """In a package's project: each source's stored path, SHA-256 and size become those of
        the file the package carries (``source id: (path, sha256, size)``); one transaction."""
        with self.transaction():
            self.db.executemany("UPDATE sources SET path = ?, sha256 = ?, size_bytes = ? WHERE "
                                "id = ?", [(p, h, n, i) for i, (p, h, n) in names.items()])

    def add_merge_conflict(self, package_id: str, annotation_id: int, content: dict,
                           digest: str) -> bool:
        """Keep a package's conflicting version of an annotation; ``False`` when it is already
        kept (merging twice adds nothing)."""
        with self.transaction():
            cur = self.db.execute(
                "INSERT INTO merge_conflicts (package_id, annotation_id, content, digest, "
                "created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (package_id, annotation_id, json.dumps(content), digest, now_iso()))
        return cur.rowcount == 1

    def merge_conflicts(self) -> list[tuple[int, str, int, dict]]:
        """``(id, package_id, annotation_id, content)`` of every kept conflict, oldest first."""
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in self.db.execute(
            "SELECT id, package_id, annotation_id, content FROM merge_conflicts ORDER BY id")]


_SUBSET_SQL = (
    "DELETE FROM blobs",  # (the package carries the image files themselves)
    # the owner's: the UID map, the seed, original paths; the copies are the package's files
    "DELETE FROM uid_map",
    "DELETE FROM privacy_keys",
    "DELETE FROM source_origins",
    "DELETE FROM shared_parts",
    "DELETE FROM shared_copies",
    "DELETE FROM slots WHERE rater_id IS NOT :rater",  # (its own claims stay: its images)
    "DELETE FROM review_features",
    "DELETE FROM gold",
    "DELETE FROM gold_scores",
    "DELETE FROM qualifications",
    "DELETE FROM image_flags",
    "DELETE FROM merge_conflicts",
    "DELETE FROM project_models",  # (reviewers' and owners': what was accepted, and the model)
    "DELETE FROM sessions WHERE rater_id <> :rater",
    "DELETE FROM guideline_views WHERE rater_id <> :rater",
    # the pins that stay are what the annotator is shown in the project: those on their
    # returned annotations (the decision in force is a rejection) and image pins for everyone
    "DELETE FROM reviews WHERE decision IS NULL AND NOT ((annotation_id IS NULL AND "
    "for_everyone = 1) OR coalesce(annotation_id IN (SELECT a.id FROM annotations a JOIN "
    "reviews r ON "
    "r.id = (SELECT max(id) FROM reviews WHERE annotation_id = a.id AND decision IS NOT NULL) "
    "WHERE a.rater_id = :rater AND r.decision = 'reject'), 0))",
    "DELETE FROM reviews WHERE decision IS NOT NULL AND annotation_id NOT IN "
    "(SELECT id FROM annotations WHERE rater_id = :rater)",
    # pre-annotation: the annotator's own design rows, and the model's annotations of the
    # images shown to them (their starting point, copied when they open the image)
    "DELETE FROM preannotation_shown WHERE rater_id IS NOT :rater",
    "DELETE FROM annotations WHERE rater_id <> :rater AND NOT (rater_id IN (SELECT model_id "
    "FROM preannotation) AND image_id IN (SELECT image_id FROM preannotation_shown WHERE "
    "shown = 1))",
    "DELETE FROM answers WHERE left_id NOT IN (SELECT id FROM keep_images) "
    "OR right_id NOT IN (SELECT id FROM keep_images)",
    "DELETE FROM grades WHERE image_id NOT IN (SELECT id FROM keep_images)",
    "DELETE FROM images WHERE id NOT IN (SELECT id FROM keep_images)",
    "DELETE FROM sources WHERE id NOT IN (SELECT source_id FROM images)",
    "DELETE FROM batches WHERE :batch IS NOT NULL AND id <> :batch",
    "DELETE FROM batch_assignments WHERE NOT (rater_id IS :rater OR (group_name IS NOT NULL "
    "AND group_name IS (SELECT group_name FROM raters WHERE id = :rater)))",
    "DELETE FROM image_sets WHERE id NOT IN (SELECT image_set_id FROM batches) "
    "AND id NOT IN (SELECT image_set_id FROM sessions)",
    "UPDATE guideline_entries SET review_id = NULL WHERE review_id IS NOT NULL",
    "DELETE FROM preannotation WHERE batch_id NOT IN (SELECT id FROM batches)",
    "DELETE FROM raters WHERE id <> :rater AND id NOT IN (SELECT reviewer_id FROM reviews) "
    "AND id NOT IN (SELECT model_id FROM preannotation)",
)
