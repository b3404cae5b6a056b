"""``project.ratings``: rating sessions, pairwise answers and grades.

A session's pairwise answers are stored *as shown* (``left_id``, ``right_id``, which side has
more of the property), each with its active time; sort state is never stored (the sort is
replayed, see :mod:`slicereview.engines.ranking`). Each method that writes is one transaction.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> rater = project.raters.add("ann")
>>> set_id = project.image_sets.create("empty", [])
>>> sid = project.ratings.create_session("sort", rater, set_id, "first pass",
...                                      "Which is worse?", 1, "formal", "merge-insertion", 1, {})
>>> project.ratings.session(sid).algorithm
'merge-insertion'
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.model import Answer, AnswerChoice, Grade, Phase, Session, SessionKind
from slicereview.store._base import Part, dumps, filters, loads, now_iso
from slicereview.store.database import Database, Row
from slicereview.store.images import ImageSets

_ANSWER_COLUMNS = ("session_id", "left_id", "right_id", "answer", "active_ms", "answered_at")
_RATING_KINDS = (SessionKind.SORT, SessionKind.EXHAUSTIVE, SessionKind.CLASSIFY,
                 SessionKind.CONFIDENCE)
#: The kinds whose sessions may answer a pair again (format 7, store/schema_v7.py).
_REPEATING_KINDS = (str(SessionKind.CONFIDENCE),)


def _session(row: Row) -> Session:
    return Session(
        id=row["id"], kind=SessionKind(row["kind"]), rater_id=row["rater_id"],
        image_set_id=row["image_set_id"], name=row["name"], prompt=row["question"],
        seed=row["seed"], phase=Phase(row["phase"]), algorithm=row["algorithm"],
        algorithm_version=row["algorithm_version"],
        settings=loads(row["settings"]),  # type: ignore[arg-type]
    )


#: The columns of :func:`_answer`'s rows, in its order.
_ANSWER_SELECT = ("SELECT id, session_id, left_id, right_id, answer, active_ms, answered_at, "
                  "rater_id FROM answers")
_CHOICES = {str(c): c for c in AnswerChoice}


def _answer(row: Row | tuple) -> Answer:
    """An answer from a row of :data:`_ANSWER_SELECT` (by position, the choice looked up: a
    session of 60,000 answers is read in a fraction of the time by name and enum call)."""
    return Answer(row[0], row[1], row[2], row[3], _CHOICES[row[4]], row[5], row[6], row[7])


def _grade(row: Row) -> Grade:
    return Grade(row["id"], row["session_id"], row["image_id"], row["grade"], row["active_ms"],
                 row["graded_at"])


class Ratings(Part):
    """Sessions of the rating jobs (sort, exhaustive, classify) with their answers and
    grades."""

    def __init__(self, db: Database, image_sets: ImageSets) -> None:
        super().__init__(db)
        self._image_sets = image_sets

    # -- sessions --------------------------------------------------------------------------
    def create_session(
        self, kind: SessionKind | str, rater_id: int, image_set_id: int, name: str,
        prompt: str, seed: int, phase: Phase | str, algorithm: str | None,
        algorithm_version: int | None, settings: dict,
    ) -> int:
        """Store a new session as given and return its id.

        The rules (default algorithm, labels, seed; which kinds have an algorithm) live in
        :func:`slicereview.app.rating.sessions.create_session`; the store adds only
        ``initial_count`` (the image set's size now, so images added later are presented after the
        first ones).
        """
        kind = SessionKind(kind)
        settings = dict(settings)
        version = algorithm_version
        with self.transaction():
            if self.db.execute("SELECT 1 FROM image_sets WHERE id = ?",
                                 (image_set_id,)).fetchone() is None:
                raise KeyError(f"no image set {image_set_id} in this project")
            settings.setdefault("initial_count", self.db.execute(
                "SELECT count(*) FROM image_set_members WHERE image_set_id = ?", (image_set_id,)
            ).fetchone()[0])
            new_id = self.db.insert(
                "INSERT INTO sessions (kind, rater_id, image_set_id, name, question, settings, "
                "seed, phase, algorithm, algorithm_version, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (str(kind), rater_id, image_set_id, name, prompt, dumps(settings), int(seed),
                 str(Phase(phase)), algorithm, version, now_iso()),
            )
        return new_id

    def session(self, session_id: int) -> Session:
        row = self.db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise KeyError(f"no session {session_id} in this project")
        return _session(row)

    def sessions(
        self, kind: SessionKind | str | None = None, rater_id: int | None = None,
        image_set_id: int | None = None,
    ) -> list[Session]:
        """Sessions in creation order, optionally only one kind / rater / image set."""
        where, args = filters(kind=None if kind is None else str(SessionKind(kind)),
                              rater_id=rater_id, image_set_id=image_set_id)
        sql = "SELECT * FROM sessions" + where + " ORDER BY id"
        return [_session(r) for r in self.db.execute(sql, args)]

    def find_session(self, ref: int | str) -> Session:
        """A session by id or by (unique) name; ``KeyError`` when none or several match."""
        text = str(ref).strip()
        if text.isdigit():
            row = self.db.execute("SELECT * FROM sessions WHERE id = ?", (int(text),)).fetchone()
            if row is not None:
                return _session(row)
        rows = self.db.execute("SELECT * FROM sessions WHERE name = ?", (text,)).fetchall()
        if len(rows) == 1:
            return _session(rows[0])
        if not rows:
            raise KeyError(f"no session with id or name {text!r}")
        ids = ", ".join(str(r["id"]) for r in rows)
        raise KeyError(f"{len(rows)} sessions are named {text!r} (ids {ids}); give the id")

    def session_finished_at(self, session_id: int) -> str | None:
        row = self.db.execute("SELECT finished_at FROM sessions WHERE id = ?",
                                (session_id,)).fetchone()
        if row is None:
            raise KeyError(f"no session {session_id} in this project")
        return row[0]

    def set_session_finished(self, session_id: int, finished: bool = True) -> None:
        """Mark a session finished now (or not finished, e.g. after an undo)."""
        with self.transaction():
            self.db.execute("UPDATE sessions SET finished_at = ? WHERE id = ?",
                              (now_iso() if finished else None, session_id))

    def delete_session(self, session_id: int) -> None:
        """Delete a session with its answers and grades."""
        with self.transaction():
            self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def session_images(self, session_id: int) -> list[int]:
        """The image ids of the session's image set, in set order (not presentation order)."""
        return self._image_sets.members(self.session(session_id).image_set_id)

    # -- pairwise answers ------------------------------------------------------------------
    def record_answer(
        self, session_id: int, left: int, right: int, answer: AnswerChoice | str,
        active_ms: int = 0, rater_id: int | None = None,
    ) -> int:
        """Store one answer as shown (``left``/``right`` image ids); returns its id.

        ``rater_id``: who answered (``None``: the session's rater). ``ValueError`` when an
        image is not in the session's image set, or when the pair was answered before in a
        session that asks each pair once (sort, exhaustive; either way round). A confidence
        session may answer a pair again: the answer gets the pair's next ``pair_repeat``.
        """
        answer = AnswerChoice(answer)
        with self.transaction():
            row = self.db.execute(  # (one statement: on a server, one round trip)
                "SELECT s.kind, (SELECT count(*) FROM image_set_members m WHERE "
                "m.image_set_id = s.image_set_id AND m.image_id IN (?, ?)) FROM sessions s "
                "WHERE s.id = ?", (left, right, session_id)).fetchone()
            if row is None or row[1] != 2 or left == right:
                raise ValueError(f"images {left} and {right} are not a pair of session "
                                 f"{session_id}'s image set")
            if rater_id is not None and self.db.execute(
                    "SELECT 1 FROM raters WHERE id = ?", (rater_id,)).fetchone() is None:
                raise ValueError(f"no rater {rater_id} in this project")
            repeat = 0
            if row[0] in _REPEATING_KINDS:
                repeat = self.db.execute(
                    "SELECT coalesce(max(pair_repeat) + 1, 0) FROM answers "
                    "WHERE session_id = ? AND pair_lo = ? AND pair_hi = ?",
                    (session_id, min(left, right), max(left, right)),
                ).fetchone()[0]
            try:
                new_id = self.db.insert(
                    "INSERT INTO answers (session_id, left_id, right_id, answer, active_ms, "
                    "answered_at, rater_id, pair_repeat) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, left, right, str(answer), max(0, int(active_ms)), now_iso(),
                     rater_id, repeat),
                )
            except self.db.IntegrityError as exc:
                raise ValueError(f"images {left} and {right} were already compared in "
                                 f"session {session_id}") from exc
        return new_id

    def record_answers(
        self, session_id: int, answers: Sequence[tuple[int, int, AnswerChoice | str, int]],
    ) -> int:
        """Store many answers ``(left, right, answer, active_ms)`` at once, in this order (one
        transaction, the store's bulk load); returns how many. The checks of
        :meth:`record_answer` hold for the whole call (``ValueError``, nothing stored); the
        answers are the session rater's, and only a session that asks each pair once (not a
        confidence session) takes them."""
        rows = []
        with self.transaction():
            session = self.session(session_id)
            if str(session.kind) in _REPEATING_KINDS:
                raise ValueError(f"session {session_id} may answer a pair again: store its "
                                 "answers one at a time")
            members = set(self._image_sets.members(session.image_set_id))
            now = now_iso()
            for left, right, answer, active_ms in answers:
                if left == right or left not in members or right not in members:
                    raise ValueError(f"images {left} and {right} are not a pair of session "
                                     f"{session_id}'s image set")
                rows.append((session_id, left, right, str(AnswerChoice(answer)),
                             max(0, int(active_ms)), now))
            try:
                self.db.load_rows("answers", _ANSWER_COLUMNS, rows)
            except self.db.IntegrityError as exc:
                raise ValueError(f"a pair was answered twice in session {session_id}") from exc
        return len(rows)

    def answers(self, session_id: int) -> list[Answer]:
        """The session's answers in the order they were given."""
        return [_answer(r) for r in self._in_order(_ANSWER_SELECT, session_id)]

    def given(self, session_id: int) -> list[tuple]:
        """``(left_id, right_id, answer, active_ms)`` of the session's answers in the order
        they were given: what a run replays and counts (no :class:`Answer` built: a third of
        the time for 60,000 answers)."""
        return self._in_order("SELECT left_id, right_id, answer, active_ms FROM answers",
                              session_id)

    def answer_map(self, session_id: int) -> dict[tuple[int, int], str]:
        """``{(left_id, right_id): "left" | "right" | "same"}`` for replay."""
        rows = self._in_order("SELECT left_id, right_id, answer FROM answers", session_id)
        return {(r[0], r[1]): r[2] for r in rows}

    def _in_order(self, select: str, session_id: int) -> list[tuple]:
        """The rows of ``select`` (``... FROM answers``) of one session, by id, as tuples.

        A session's answers are found by the unique index that starts with ``session_id``,
        whose order is not the answers' order: SQLite looked up each row by id and sorted them
        (~0.2 s for 37,000 answers). Their ids are mostly one run, as one rater gives them, so
        when they fill at least half of their id range the range is read in order instead
        (the table in id order, the other sessions' rows in it skipped: ~4× faster); the
        range's ends come from the index alone.
        """
        lo, hi, n = self.db.execute("SELECT min(id), max(id), count(*) FROM answers "
                                    "WHERE session_id = ?", (session_id,)).fetchone()
        if not n:
            return []
        if hi - lo + 1 <= 2 * n:
            return self.db.tuples(f"{select} WHERE id BETWEEN ? AND ? AND +session_id = ? "
                                  "ORDER BY id", (lo, hi, session_id))
        return self.db.tuples(f"{select} WHERE session_id = ? ORDER BY id", (session_id,))

    def last_answer(self, session_id: int) -> Answer | None:
        row = self.db.execute(  # (the largest id from the index alone: no sort of them all)
            f"{_ANSWER_SELECT} WHERE id = (SELECT max(id) FROM answers WHERE session_id = ?)",
            (session_id,)).fetchone()
        return None if row is None else _answer(row)

    def delete_last_answer(self, session_id: int) -> Answer | None:
        """Undo: delete the most recent answer and return it (``None`` when there is none)."""
        with self.transaction():
            last = self.last_answer(session_id)
            if last is not None:
                self.db.execute("DELETE FROM answers WHERE id = ?", (last.id,))
        return last

    # -- grades ----------------------------------------------------------------------------
    def set_grade(self, session_id: int, image_id: int, grade: int, active_ms: int = 0) -> int:
        """Store (or replace) the grade of one image; returns the grade's id."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO grades (session_id, image_id, grade, active_ms, graded_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, image_id) DO UPDATE SET "
                "grade = excluded.grade, active_ms = excluded.active_ms, "
                "graded_at = excluded.graded_at",
                (session_id, image_id, int(grade), max(0, int(active_ms)), now_iso()),
            )
            row = self.db.execute("SELECT id FROM grades WHERE session_id = ? AND image_id = ?",
                                    (session_id, image_id)).fetchone()
        return int(row[0])

    def grade(self, session_id: int, image_id: int) -> Grade | None:
        row = self.db.execute("SELECT * FROM grades WHERE session_id = ? AND image_id = ?",
                                (session_id, image_id)).fetchone()
        return None if row is None else _grade(row)

    def grades(self, session_id: int) -> list[Grade]:
        """The session's grades, most recently changed last."""
        rows = self.db.execute(
            "SELECT * FROM grades WHERE session_id = ? ORDER BY graded_at, id", (session_id,)
        )
        return [_grade(r) for r in rows]

    def delete_grade(self, session_id: int, image_id: int) -> Grade | None:
        """Delete one image's grade; returns what was deleted (``None`` when ungraded)."""
        with self.transaction():
            old = self.grade(session_id, image_id)
            if old is not None:
                self.db.execute("DELETE FROM grades WHERE id = ?", (old.id,))
        return old
