"""Shared plumbing of the project's parts (the collaborators of
:class:`~slicereview.store.project.Project`): the database they share, and small helpers."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from datetime import datetime, timezone

from slicereview.store.database import Database


def now_iso() -> str:
    """The current UTC time as an ISO 8601 string with milliseconds (``...Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | None) -> object:
    """The value of a JSON column; ``{}`` for none (or an empty object: no parse)."""
    return json.loads(text) if text and text != "{}" else {}


def filters(*conditions: str, **equal: object) -> tuple[str, list[object]]:
    """A ``WHERE`` clause (``""`` for none) and its arguments: each given ``column=value``
    (``None`` = no filter) as ``column = ?``, plus literal ``conditions``.

    >>> filters(image_id=3, rater_id=None)
    (' WHERE image_id = ?', [3])
    """
    where = list(conditions)
    args: list[object] = []
    for column, value in equal.items():
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    return (" WHERE " + " AND ".join(where) if where else ""), args


class Part:
    """One area of an open project (``project.images``, ``project.raters``, ...): the
    project's database, shared by every part, and the store methods of that area."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractContextManager[object]:
        """Group several store calls into one user intent (one transaction)."""
        return self.db.transaction()
