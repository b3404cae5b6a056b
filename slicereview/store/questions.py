"""``project.questions``: the project's classification questions (table ``questions``)."""

from __future__ import annotations

from slicereview.model import Question
from slicereview.store._base import Part, dumps, loads, now_iso
from slicereview.store.database import Row

QUESTION_SCOPES = ("image", "polygon")
QUESTION_KINDS = ("radio", "checklist", "text", "dropdown")


def _question(row: Row) -> Question:
    return Question(row["id"], row["position"], row["scope"], row["kind"], row["name"],
                    row["title"], loads(row["options"]) or [],  # type: ignore[arg-type]
                    row["retired_at"] is not None)


class Questions(Part):
    def add(self, name: str, title: str, kind: str, scope: str = "image",
                     options: list | None = None) -> int:
        """Add a classification question at the end of the list; returns its id."""
        _check_question(kind, scope, options)
        with self.transaction():
            pos = self.db.execute(
                "SELECT coalesce(max(position) + 1, 0) FROM questions").fetchone()[0]
            new_id = self.db.insert(
                "INSERT INTO questions (position, scope, kind, name, title, options) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (pos, scope, kind, name, title, dumps(options or [])),
            )
        return new_id

    def all(self, scope: str | None = None, *, retired: bool = False) -> list[Question]:
        """The questions asked, in their order, optionally only one ``scope``; ``retired``:
        the retired ones too (in their places)."""
        where = [] if retired else ["retired_at IS NULL"]
        args: tuple[str, ...] = ()
        if scope is not None:
            where.append("scope = ?")
            args = (scope,)
        sql = "SELECT * FROM questions" + (" WHERE " + " AND ".join(where) if where else "")
        return [_question(r) for r in self.db.execute(sql + " ORDER BY position, id", args)]

    def by_name(self, name: str) -> Question | None:
        """The question whose answers are stored under ``name`` (retired or not)."""
        row = self.db.execute("SELECT * FROM questions WHERE name = ?", (name,)).fetchone()
        return None if row is None else _question(row)

    def set_retired(self, question_id: int, retired: bool) -> None:
        """Retire a question (no longer asked; stored answers stay) or bring it back."""
        with self.transaction():
            self.get(question_id)
            self.db.execute("UPDATE questions SET retired_at = ? WHERE id = ?",
                            (now_iso() if retired else None, question_id))

    def answer_count(self, name: str, scope: str) -> int:
        """How many annotations (``image`` scope) or polygons (``polygon``) hold an answer
        stored under ``name``."""
        table = "annotations" if scope == "image" else "polygons"
        has_key, arg = self.db.json_has_key("classifications", name)
        return int(self.db.execute(f"SELECT count(*) FROM {table} WHERE {has_key}",
                                   (arg,)).fetchone()[0])

    def get(self, question_id: int) -> Question:
        row = self.db.execute("SELECT * FROM questions WHERE id = ?",
                                (question_id,)).fetchone()
        if row is None:
            raise KeyError(f"no question {question_id} in this project")
        return _question(row)

    def update(self, question_id: int, *, title: str | None = None,
                        kind: str | None = None, scope: str | None = None,
                        options: list | None = None, position: int | None = None) -> None:
        """Change the given fields of a question (``name`` stays: answers are keyed by it).

        ``position`` moves the question to that index in the list.
        """
        q = self.get(question_id)
        new_kind, new_scope = kind or q.kind, scope or q.scope
        new_options = q.options if options is None else options
        _check_question(new_kind, new_scope, new_options)
        with self.transaction():
            self.db.execute(
                "UPDATE questions SET title = ?, kind = ?, scope = ?, options = ? WHERE id = ?",
                (q.title if title is None else title, new_kind, new_scope, dumps(new_options),
                 question_id),
            )
            if position is not None:
                order = [r[0] for r in self.db.execute(
                    "SELECT id FROM questions WHERE id <> ? ORDER BY position, id",
                    (question_id,))]
                order.insert(max(0, min(int(position), len(order))), question_id)
                self.db.executemany("UPDATE questions SET position = ? WHERE id = ?",
                                      list(enumerate(order)))

    def delete(self, question_id: int) -> None:
        """Delete a question. Stored answers under its name are kept (they are history)."""
        with self.transaction():
            self.get(question_id)
            self.db.execute("DELETE FROM questions WHERE id = ?", (question_id,))


def _check_question(kind: str, scope: str, options: list | None) -> None:
    if kind not in QUESTION_KINDS:
        raise ValueError(f"question kind must be one of {', '.join(QUESTION_KINDS)}, got {kind!r}")
    if scope not in QUESTION_SCOPES:
        raise ValueError(f"question scope must be 'image' or 'polygon', got {scope!r}")
    if options is not None and not isinstance(options, list):
        raise ValueError("question options must be a list (nested lists/dicts for dropdowns)")
    if kind in ("radio", "checklist", "dropdown") and not options:
        raise ValueError(f"a {kind} question needs at least one option")
