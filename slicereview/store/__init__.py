"""The project file: one SQLite database per project (see :mod:`.schema`, :mod:`.connection`)."""

from slicereview.store.connection import check_file
from slicereview.store.errors import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
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
    "ProjectLockedError",
    "check_file",
]
