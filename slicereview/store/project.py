"""The :class:`Project`: one open project and its parts.

A project owns one database (:class:`~slicereview.store.database.Database`) and one *part* per
area, each a small object over that database: ``project.images``, ``project.image_sets``,
``project.raters``, ``project.ratings`` (sessions, answers, grades), ``project.questions``,
``project.annotations``, ``project.polygons``, ``project.repeats``, ``project.reviews``,
``project.guidelines``, ``project.workflow`` (batches, gold, qualifications, flags) and
``project.packages``. Each method that changes the project is one user intent and runs in
one transaction, committed before it returns; :meth:`Project.transaction` groups several.
Methods return frozen values from :mod:`slicereview.model`, never rows.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Project.create(folder / "study.srproj", name="study") as project:
...     rater = project.raters.add("ann")
...     project.meta("name"), project.raters.get(rater).name
('study', 'ann')
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType

from slicereview import __version__
from slicereview.store._base import now_iso
from slicereview.store.annotations import Annotations
from slicereview.store.connection import connect, create_file
from slicereview.store.database import Database
from slicereview.store.guidelines import Guidelines
from slicereview.store.images import Images, ImageSets
from slicereview.store.packages import Packages
from slicereview.store.polygons import Polygons
from slicereview.store.questions import Questions
from slicereview.store.raters import Raters
from slicereview.store.rating import Ratings
from slicereview.store.repeats import Repeats
from slicereview.store.reviews import Reviews
from slicereview.store.workflow import Workflow

#: Suggested suffix of project files.
SUFFIX = ".srproj"

#: The tables ``counts()`` reports, in this order.
_COUNTED = ("sources", "images", "raters", "sessions", "answers", "grades", "annotations",
            "polygons", "reviews", "guidelines")


class Project:
    """An open slicereview project.

    Use :meth:`open` or :meth:`create`; close with :meth:`close` or a ``with`` block.
    """

    def __init__(self, db: Database, path: Path) -> None:
        self.db = db
        self.path = path
        self.images = Images(db, path.parent)
        self.image_sets = ImageSets(db)
        self.raters = Raters(db)
        self.guidelines = Guidelines(db)
        self.ratings = Ratings(db, self.image_sets)
        self.questions = Questions(db)
        self.annotations = Annotations(db)
        self.polygons = Polygons(db)
        self.repeats = Repeats(db, self.annotations)
        self.reviews = Reviews(db)
        self.workflow = Workflow(db, self.image_sets)
        self.packages = Packages(db)

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False,
             busy_timeout_s: float | None = None) -> Project:
        """Open an existing project (checks it, migrates an older one; see ``connection``).

        ``busy_timeout_s``: how long opening (and later calls) wait for another program's lock
        before :class:`~slicereview.store.errors.ProjectBusyError` (default: the store's 5 s).
        """
        path = Path(path).absolute()
        if busy_timeout_s is None:
            return cls(Database(connect(path, read_only=read_only)), path)
        return cls(Database(connect(path, read_only=read_only,
                                    busy_timeout_s=busy_timeout_s)), path)

    @classmethod
    def create(cls, path: str | Path, *, name: str | None = None) -> Project:
        """Create a new project file at ``path`` (which must not exist) and open it."""
        path = Path(path).absolute()
        create_file(path)
        project = cls.open(path)
        with project.transaction():
            project.set_meta("name", name or path.stem)
            project.set_meta("created_at", now_iso())
            project.set_meta("created_by", f"slicereview {__version__}")
        return project

    def close(self) -> None:
        """Close the connection (everything is already committed)."""
        self.db.close()

    def transaction(self) -> AbstractContextManager[object]:
        """Group several store calls into one user intent (one transaction)."""
        return self.db.transaction()

    def data_version(self) -> int:
        """Changes when *another* connection (another instance, a worker) commits to the
        project; this connection's own commits leave it."""
        return self.db.data_version()

    def __enter__(self) -> Project:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def set_busy_timeout(self, seconds: float) -> None:
        """Wait at most ``seconds`` for another program's lock before a call raises
        :class:`~slicereview.store.errors.ProjectBusyError` (the GUI waits briefly and
        retries, so that its window stays responsive)."""
        self.db.set_busy_timeout(seconds)

    # -- meta ------------------------------------------------------------------------------
    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def counts(self) -> dict[str, int]:
        """Row counts of the main tables (for ``slicereview info``)."""
        return {t: self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in _COUNTED}

    @property
    def name(self) -> str:
        return self.meta("name") or self.path.stem

    @property
    def folder(self) -> Path:
        """The folder holding the project file; relative image paths start here."""
        return self.path.parent

