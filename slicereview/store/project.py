"""The :class:`Project`: one open project file and the store methods on it.

Each method that changes the file is one user intent and runs in one transaction, committed
before it returns. Methods return frozen values from :mod:`slicereview.model`, never rows.
Domain methods live in mixins (``images.py``, ``rating.py``, ``annotations.py``,
``repeats.py``, ``reviews.py``) so that each module stays small.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Project.create(folder / "study.srproj", name="study") as project:
...     project.meta("name")
'study'
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import TracebackType

from slicereview import __version__
from slicereview.store._base import StoreBase, now_iso
from slicereview.store.annotations import AnnotationsMixin
from slicereview.store.connection import connect, create_file, set_busy_timeout
from slicereview.store.dicomweb import DicomwebMixin
from slicereview.store.guidelines import GuidelinesMixin
from slicereview.store.images import ImagesMixin
from slicereview.store.packages import PackagesMixin
from slicereview.store.raters import RatersMixin
from slicereview.store.rating import RatingMixin
from slicereview.store.repeats import RepeatsMixin
from slicereview.store.reviews import ReviewsMixin
from slicereview.store.workflow import WorkflowMixin

#: Suggested suffix of project files.
SUFFIX = ".srproj"


class Project(ImagesMixin, RatersMixin, RatingMixin, AnnotationsMixin, RepeatsMixin, ReviewsMixin,
              WorkflowMixin, GuidelinesMixin, PackagesMixin, DicomwebMixin, StoreBase):
    """An open slicereview project file.

    Use :meth:`open` or :meth:`create`; close with :meth:`close` or a ``with`` block.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

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
            return cls(connect(path, read_only=read_only), path)
        return cls(connect(path, read_only=read_only, busy_timeout_s=busy_timeout_s), path)

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
        self.conn.close()

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: changes when *another* connection (another
        instance, a worker) commits to the file; this connection's own commits leave it."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

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
        set_busy_timeout(self.conn, seconds)

    # -- meta ------------------------------------------------------------------------------
    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    @property
    def name(self) -> str:
        return self.meta("name") or self.path.stem

    @property
    def folder(self) -> Path:
        """The folder holding the project file; relative image paths start here."""
        return self.path.parent
