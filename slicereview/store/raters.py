"""Store methods for raters and versioned guidelines."""

from __future__ import annotations

from slicereview.model import Rater, Role
from slicereview.store._base import StoreBase, last_id, now_iso


class RatersMixin(StoreBase):
    def add_rater(
        self, name: str, role: Role | str = Role.ANNOTATOR, group: str | None = None,
        *, simulated: bool = False,
    ) -> int:
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO raters (name, role, group_name, simulated) VALUES (?, ?, ?, ?)",
                (name, str(Role(role)), group, int(simulated)),
            )
        return last_id(cur)

    def rater(self, rater_id: int) -> Rater:
        row = self.conn.execute("SELECT * FROM raters WHERE id = ?", (rater_id,)).fetchone()
        if row is None:
            raise KeyError(f"no rater {rater_id} in this project")
        return Rater(row["id"], row["name"], Role(row["role"]), row["group_name"],
                     bool(row["simulated"]))

    def raters(self) -> list[Rater]:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM raters ORDER BY id")]
        return [self.rater(i) for i in ids]

    def set_rater_group(self, rater_id: int, group: str | None) -> None:
        """Put a rater in ``group`` (``None``: in no group)."""
        with self.transaction():
            if self.conn.execute("UPDATE raters SET group_name = ? WHERE id = ?",
                                 (group, rater_id)).rowcount == 0:
                raise KeyError(f"no rater {rater_id} in this project")

    def rater_by_name(self, name: str) -> Rater | None:
        row = self.conn.execute("SELECT id FROM raters WHERE name = ?", (name,)).fetchone()
        return None if row is None else self.rater(row[0])

    def ensure_rater(self, name: str, role: Role | str = Role.ANNOTATOR,
                     group: str | None = None, *, simulated: bool = False) -> int:
        existing = self.rater_by_name(name)
        return existing.id if existing else self.add_rater(name, role, group, simulated=simulated)

    # -- guidelines ------------------------------------------------------------------------
    def add_guideline(self, text: str) -> int:
        """Store a new version of the task guidelines; returns its version number."""
        with self.transaction():
            version = self.conn.execute(
                "SELECT coalesce(max(version), 0) + 1 FROM guidelines"
            ).fetchone()[0]
            self.conn.execute(
                "INSERT INTO guidelines (version, text, created_at) VALUES (?, ?, ?)",
                (version, text, now_iso()),
            )
        return int(version)

    def guideline(self, version: int | None = None) -> tuple[int, str] | None:
        """``(version, text)`` of the given or the newest guideline, ``None`` if there is none."""
        if version is None:
            row = self.conn.execute(
                "SELECT version, text FROM guidelines ORDER BY version DESC LIMIT 1"
            ).fetchone()
        else:
            row = self.conn.execute(
                "SELECT version, text FROM guidelines WHERE version = ?", (version,)
            ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))
