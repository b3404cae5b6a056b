"""``project.guidelines``: the living guidelines (schema version 3) -- versioned texts, which
version a rater last looked at, entries promoted from reviews (text plus an image crop as PNG
bytes), and the guideline version an annotation or review was made under.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ann = project.raters.add("ann")
>>> project.guidelines.add("# Masks\\nOutline every lesion.")
1
>>> project.guidelines.last_seen(ann) is None
True
>>> project.guidelines.mark_seen(ann, 1)
>>> project.guidelines.last_seen(ann)
1
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.store._base import Part, now_iso


class Guidelines(Part):
    # -- versions --------------------------------------------------------------------------
    def add(self, text: str) -> int:
        """Store a new version of the task guidelines; returns its version number."""
        with self.transaction():
            version = self.db.execute(
                "SELECT coalesce(max(version), 0) + 1 FROM guidelines"
            ).fetchone()[0]
            self.db.execute(
                "INSERT INTO guidelines (version, text, created_at) VALUES (?, ?, ?)",
                (version, text, now_iso()),
            )
        return int(version)

    def get(self, version: int | None = None) -> tuple[int, str] | None:
        """``(version, text)`` of the given or the newest guideline, ``None`` if there is none."""
        if version is None:
            row = self.db.execute(
                "SELECT version, text FROM guidelines ORDER BY version DESC LIMIT 1"
            ).fetchone()
        else:
            row = self.db.execute(
                "SELECT version, text FROM guidelines WHERE version = ?", (version,)
            ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def versions(self) -> list[tuple[int, str]]:
        """``(version, created_at)`` of every version, oldest first."""
        return [(int(r[0]), str(r[1])) for r in self.db.execute(
            "SELECT version, created_at FROM guidelines ORDER BY version")]

    def version_of(self, *, annotation_id: int | None = None,
                   review_id: int | None = None) -> int | None:
        """The guideline version in force when an annotation or review was made (``None``:
        no guideline existed)."""
        if (annotation_id is None) == (review_id is None):
            raise ValueError("give annotation_id or review_id")
        table, key = ("annotations", annotation_id) if annotation_id is not None else (
            "reviews", review_id)
        row = self.db.execute(f"SELECT guideline_version FROM {table} WHERE id = ?",
                              (key,)).fetchone()
        if row is None:
            raise KeyError(f"no {table[:-1]} {key} in this project")
        return None if row[0] is None else int(row[0])

    # -- who looked at which version -------------------------------------------------------
    def mark_seen(self, rater_id: int, version: int) -> None:
        """Record that a rater looked at ``version`` (now)."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO guideline_views (rater_id, version, seen_at) VALUES (?, ?, ?) "
                "ON CONFLICT (rater_id, version) DO UPDATE SET seen_at = excluded.seen_at",
                (rater_id, int(version), now_iso()))

    def last_seen(self, rater_id: int) -> int | None:
        """The newest version a rater has looked at, ``None`` if never."""
        row = self.db.execute("SELECT max(version) FROM guideline_views WHERE rater_id = ?",
                              (rater_id,)).fetchone()
        return None if row[0] is None else int(row[0])

    def views(self, rater_id: int) -> list[tuple[int, str]]:
        """``(version, seen_at)`` of every version a rater looked at, oldest version first."""
        return [(int(r[0]), str(r[1])) for r in self.db.execute(
            "SELECT version, seen_at FROM guideline_views WHERE rater_id = ? ORDER BY version",
            (rater_id,))]

    def merge_views(self, rater_id: int, views: Sequence[tuple[int, str]]) -> None:
        """Add ``(version, seen_at)`` views of a rater that are not stored yet (packages)."""
        with self.transaction():
            self.db.executemany(
                "INSERT INTO guideline_views (rater_id, version, seen_at) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING", [(rater_id, v, t) for v, t in views])

    # -- entries promoted from reviews -----------------------------------------------------
    def add_entry(self, version: int, text: str, *, review_id: int | None = None,
                  crop_png: bytes | None = None) -> int:
        """Attach an entry (promoted from a review, with an optional crop) to a version."""
        with self.transaction():
            new_id = self.db.insert(
                "INSERT INTO guideline_entries (version, review_id, text, crop_png, created_at)"
                " VALUES (?, ?, ?, ?, ?)", (int(version), review_id, text, crop_png, now_iso()))
        return new_id

    def entries(self, version: int | None = None
                ) -> list[tuple[int, int, int | None, str, bytes | None]]:
        """``(id, version, review_id, text, crop_png)`` of the entries up to ``version``
        (default: all), oldest first."""
        sql = "SELECT id, version, review_id, text, crop_png FROM guideline_entries"
        args: tuple = ()
        if version is not None:
            sql, args = sql + " WHERE version <= ?", (int(version),)
        return [tuple(r) for r in self.db.execute(sql + " ORDER BY id", args)]
