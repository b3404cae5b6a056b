"""The project file: one SQLite database per project (see :mod:`.schema`, :mod:`.connection`)."""

from slicereview.core.store.connection import check_file
from slicereview.core.store.errors import (
    DamagedProjectError,
    NewerProjectError,
    NotAProjectError,
    ProjectError,
    ProjectLockedError,
)
from slicereview.core.store.project import SUFFIX, Project

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
