"""``project.project_models``: the project model's trained versions (schema
:mod:`.schema_project_models`) -- what each was trained on, its settings and held-out score,
and its data-only bytes.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> v = project.project_models.add(b"model bytes", images=[3, 5], accepted=2,
...                                settings={"trees": 24}, trained_by="owner")
>>> v.version, v.name, v.images
(1, 'project@v1', (3, 5))
>>> project.project_models.set_score(1, {"dice": {"mean": 0.8}})
>>> project.project_models.latest().score, project.project_models.model_bytes(1)
({'dice': {'mean': 0.8}}, b'model bytes')
>>> project.close()
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from slicereview.model import ModelVersion
from slicereview.store._base import Part, dumps, loads, now_iso

_COLUMNS = ("id, version, trained_at, trained_by, images, accepted, settings, training, score, "
            "seconds")


def _version(row: Any) -> ModelVersion:
    return ModelVersion(
        id=int(row[0]), version=int(row[1]), trained_at=str(row[2]), trained_by=str(row[3]),
        images=tuple(int(i) for i in json.loads(row[4])), accepted=int(row[5]),
        settings=dict(loads(row[6])), training=dict(loads(row[7])),  # type: ignore[call-overload]
        score=dict(loads(row[8])), seconds=float(row[9]))  # type: ignore[call-overload]


class ProjectModels(Part):
    def add(self, model: bytes, *, images: Sequence[int], accepted: int,
            settings: dict[str, Any], trained_by: str, training: dict[str, Any] | None = None,
            score: dict[str, Any] | None = None, seconds: float = 0.0) -> ModelVersion:
        """Store a newly trained version (the next version number) and return it."""
        with self.transaction():
            version = int(self.db.execute(
                "SELECT coalesce(max(version), 0) + 1 FROM project_models").fetchone()[0])
            self.db.execute(
                "INSERT INTO project_models (version, trained_at, trained_by, images, accepted, "
                "settings, training, score, seconds, model) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (version, now_iso(), trained_by, json.dumps([int(i) for i in images]),
                 int(accepted), dumps(settings), dumps(training or {}), dumps(score or {}),
                 float(seconds), bytes(model)))
        found = self.get(version)
        assert found is not None
        return found

    def set_score(self, version: int, score: dict[str, Any]) -> None:
        """Store a version's held-out score (JSON values)."""
        with self.transaction():
            self.db.execute("UPDATE project_models SET score = ? WHERE version = ?",
                            (dumps(score), int(version)))

    def get(self, version: int) -> ModelVersion | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM project_models WHERE version = ?",
                              (int(version),)).fetchone()
        return None if row is None else _version(row)

    def latest(self) -> ModelVersion | None:
        """The newest version, ``None`` before the first training."""
        row = self.db.execute(f"SELECT {_COLUMNS} FROM project_models ORDER BY version DESC "
                              "LIMIT 1").fetchone()
        return None if row is None else _version(row)

    def all(self) -> list[ModelVersion]:
        """Every version, oldest first."""
        return [_version(r) for r in self.db.execute(
            f"SELECT {_COLUMNS} FROM project_models ORDER BY version")]

    def model_bytes(self, version: int) -> bytes | None:
        """The stored bytes of a version (``None``: no such version)."""
        row = self.db.execute("SELECT model FROM project_models WHERE version = ?",
                              (int(version),)).fetchone()
        return None if row is None else bytes(row[0])
