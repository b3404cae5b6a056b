"""The :class:`Project`: one open project (a file or a server database) and its parts.

A project owns one database (:class:`~slicereview.store.database.Database`) and one *part* per
area, each a small object over that database: ``project.images``, ``project.image_sets``,
``project.raters``, ``project.ratings`` (sessions, answers, grades), ``project.questions``,
``project.annotations``, ``project.polygons``, ``project.repeats``, ``project.reviews``,
``project.guidelines``, ``project.workflow`` (batches, gold, qualifications, flags),
``project.packages``, ``project.dicomweb`` (sources on a PACS), ``project.blobs`` (the
bytes of files held in the project), ``project.slots`` (a batch's images handed out by
claims) and ``project.privacy`` (shared copies, the UID map, the privacy setting). Each
method that changes the project is one user intent and runs in one transaction, committed
before it returns; :meth:`Project.transaction` groups several.
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

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType

from slicereview import __version__
from slicereview.store._base import now_iso
from slicereview.store.annotations import Annotations
from slicereview.store.blobs import Blobs
from slicereview.store.checking import damage_seen
from slicereview.store.connection import connect, create_file
from slicereview.store.database import Database, SqliteDatabase
from slicereview.store.dicomweb import Dicomweb
from slicereview.store.guidelines import Guidelines
from slicereview.store.images import Images, ImageSets
from slicereview.store.location import Location, describe, is_server
from slicereview.store.packages import Packages
from slicereview.store.polygons import Polygons
from slicereview.store.preannotation import Preannotation
from slicereview.store.privacy import Privacy
from slicereview.store.project_models import ProjectModels
from slicereview.store.questions import Questions
from slicereview.store.raters import Raters
from slicereview.store.rating import Ratings
from slicereview.store.repeats import Repeats
from slicereview.store.reviews import Reviews
from slicereview.store.slots import Slots
from slicereview.store.workflow import Workflow

#: Suggested suffix of project files.
SUFFIX = ".srproj"

#: The tables ``counts()`` reports, in this order.
_COUNTED = ("sources", "images", "raters", "sessions", "answers", "grades", "annotations",
            "polygons", "reviews", "guidelines")


class Project:
    """An open slicereview project, on a file or on a server.

    Use :meth:`open` or :meth:`create` with a *location* (a ``.srproj`` path or a
    ``postgresql://`` URL, :mod:`.location`); close with :meth:`close` or a ``with`` block.
    """

    def __init__(self, db: Database, location: Location) -> None:
        self.db = db
        #: What opens this project again (a worker's own connection): the path or the URL.
        self.location: Location = location
        #: The project file; ``None`` on a server.
        self.path: Path | None = None if is_server(location) else Path(location)
        self.images = Images(db, self.folder)
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
        self.dicomweb = Dicomweb(db, self.images)
        self.blobs = Blobs(db)
        self.slots = Slots(db)
        self.privacy = Privacy(db)
        self.preannotation = Preannotation(db)
        self.project_models = ProjectModels(db)

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def open(cls, location: Location, *, read_only: bool = False,
             busy_timeout_s: float | None = None) -> Project:
        """Open an existing project: a file (checked, :mod:`.checking`; an older one
        migrated, :mod:`.connection`) or a server database (:mod:`.postgres`).

        ``busy_timeout_s``: how long opening (and later calls) wait for another program's lock
        before :class:`~slicereview.store.errors.ProjectBusyError` (default: the store's 5 s).
        ``read_only``: every write fails (workers that only read use it).
        """
        timeout = {} if busy_timeout_s is None else {"busy_timeout_s": busy_timeout_s}
        if is_server(location):
            from slicereview.store.postgres_opening import connect_server

            url = str(location).strip()
            return cls(connect_server(url, read_only=read_only, **timeout), url)
        path = Path(location).absolute()
        return cls(SqliteDatabase(connect(path, read_only=read_only, **timeout)), path)

    @classmethod
    def create(cls, location: Location, *, name: str | None = None) -> Project:
        """Create a new project (a file that must not exist, or an empty database) and open
        it. Its name defaults to the file's stem or the database's name."""
        location = _absolute(location)

        def describe_project(db: Database) -> None:
            for key, value in (("name", name or default_name(location)),
                               ("created_at", now_iso()),
                               ("created_by", f"slicereview {__version__}")):
                db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))

        cls.create_empty(location, describe_project)
        return cls.open(location)

    @staticmethod
    def create_empty(location: Location, fill: Callable[[Database], None] | None = None
                     ) -> None:
        """Create the schema at a new ``location`` and run ``fill`` in the same
        transaction (what :meth:`create` and :func:`~.copying.copy_project` build on)."""
        if is_server(location):
            from slicereview.store.postgres_opening import create_server

            create_server(str(location).strip(), fill)
        else:
            create_file(Path(location), fill)

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
        if exc is not None and self.path is not None:
            damaged = damage_seen(self.path, exc)  # met by a read after the opening's checks
            if damaged is not None:
                raise damaged from exc

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
        return self.meta("name") or default_name(self.location)

    @property
    def folder(self) -> Path | None:
        """The folder holding the project file; relative image paths start here (``None`` on
        a server, where image paths are absolute)."""
        return None if self.path is None else self.path.parent

    @property
    def is_server(self) -> bool:
        """Whether the project lives on a PostgreSQL server (not in a file)."""
        return self.db.kind == "postgres"

    def describe(self) -> str:
        """The location as shown to people (a URL without its password)."""
        return describe(self.location)


def _absolute(location: Location) -> Location:
    return str(location).strip() if is_server(location) else Path(location).absolute()


def default_name(location: Location) -> str:
    """A project's name when none was given: the file's stem, or the database's name."""
    if is_server(location):
        from urllib.parse import urlsplit

        return urlsplit(str(location).strip()).path.lstrip("/") or "project"
    return Path(location).stem

