"""Store methods of the living guidelines (schema version 3): which version a rater last
looked at, entries promoted from reviews (text plus an image crop as PNG bytes), and the
guideline version an annotation or review was made under. The versions themselves are in
:mod:`.raters` (``add_guideline``, ``guideline``).

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> ann = project.add_rater("ann")
>>> project.add_guideline("# Masks\\nOutline every lesion.")
1
>>> project.last_seen_guideline(ann) is None
True
>>> project.mark_guideline_seen(ann, 1)
>>> project.last_seen_guideline(ann)
1
>>> project.close()
"""

from __future__ import annotations

from slicereview.store._base import StoreBase, last_id, now_iso


class GuidelinesMixin(StoreBase):
    def guideline_versions(self) -> list[tuple[int, str]]:
        """``(version, created_at)`` of every version, oldest first."""
        return [(int(r[0]), str(r[1])) for r in self.conn.execute(
            "SELECT version, created_at FROM guidelines ORDER BY version")]

    def mark_guideline_seen(self, rater_id: int, version: int) -> None:
        """Record that a rater looked at ``version`` (now)."""
        with self.transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO guideline_views (rater_id, version, seen_at) "
                "VALUES (?, ?, ?)", (rater_id, int(version), now_iso()))

    def last_seen_guideline(self, rater_id: int) -> int | None:
        """The newest version a rater has looked at, ``None`` if never."""
        row = self.conn.execute("SELECT max(version) FROM guideline_views WHERE rater_id = ?",
                                (rater_id,)).fetchone()
        return None if row[0] is None else int(row[0])

    def add_guideline_entry(self, version: int, text: str, *, review_id: int | None = None,
                            crop_png: bytes | None = None) -> int:
        """Attach an entry (promoted from a review, with an optional crop) to a version."""
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO guideline_entries (version, review_id, text, crop_png, created_at)"
                " VALUES (?, ?, ?, ?, ?)", (int(version), review_id, text, crop_png, now_iso()))
        return last_id(cur)

    def guideline_entries(self, version: int | None = None
                          ) -> list[tuple[int, int, int | None, str, bytes | None]]:
        """``(id, version, review_id, text, crop_png)`` of the entries up to ``version``
        (default: all), oldest first."""
        sql = "SELECT id, version, review_id, text, crop_png FROM guideline_entries"
        args: tuple = ()
        if version is not None:
            sql, args = sql + " WHERE version <= ?", (int(version),)
        return [tuple(r) for r in self.conn.execute(sql + " ORDER BY id", args)]

    def guideline_version_of(self, *, annotation_id: int | None = None,
                             review_id: int | None = None) -> int | None:
        """The guideline version in force when an annotation or review was made (``None``:
        no guideline existed)."""
        if (annotation_id is None) == (review_id is None):
            raise ValueError("give annotation_id or review_id")
        table, key = ("annotations", annotation_id) if annotation_id is not None else (
            "reviews", review_id)
        row = self.conn.execute(f"SELECT guideline_version FROM {table} WHERE id = ?",
                                (key,)).fetchone()
        if row is None:
            raise KeyError(f"no {table[:-1]} {key} in this project")
        return None if row[0] is None else int(row[0])
