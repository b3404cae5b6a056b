"""The project file: one SQLite database per project (see :mod:`.schema`, :mod:`.connection`)."""

from slicereview.store.connection import check_file
from slicereview.store.errors import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    ProjectBusyError,
    ProjectError,
    ProjectLockedError,
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
    "check_file",
]
