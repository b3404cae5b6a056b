"""Shared plumbing of the :class:`~slicereview.store.project.Project` mixins."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path


def now_iso() -> str:
    """The current UTC time as an ISO 8601 string with milliseconds (``...Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | None) -> object:
    return json.loads(text) if text else {}


class StoreBase:
    """Attributes every mixin relies on: the open connection and the project path."""

    conn: sqlite3.Connection
    path: Path
