"""The project: a SQLite file or a PostgreSQL database behind one interface (:mod:`.project`;
the file: :mod:`.connection` and :mod:`.checking`, the server: :mod:`.postgres_opening`, the
schema: :mod:`.schema`)."""

from slicereview.store.checking import check_file
from slicereview.store.errors import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    ProjectBusyError,
    ProjectError,
    ProjectLockedError,
    ServerError,
    ServerTimeoutError,
)
from slicereview.store.project import SUFFIX, Project

__all__ = [
    "SUFFIX",
    "DamagedProjectError",
    "NewerProjectError",
    "NotAProjectError",
    "Project",
    "ProjectError",
    "ProjectBusyError",
    "ProjectLockedError",
    "ServerError",
    "ServerTimeoutError",
    "check_file",
]
