"""Typed errors of the project store. Each message says what happened and what to do."""

from __future__ import annotations


class ProjectError(Exception):
    """Base class: the project (file or server database) cannot be used as asked."""


class NotAProjectError(ProjectError):
    """The file is not a slicereview project (another SQLite database, or not SQLite at all)."""


class DamagedProjectError(ProjectError):
    """SQLite's ``quick_check`` found damage, or the file cannot be read."""


class NewerProjectError(ProjectError):
    """The file was written by a newer slicereview whose schema this version does not know."""


class ServerError(ProjectError):
    """A server project cannot be reached (no server, a wrong login, no such database) or
    the server refused what was asked (no permission)."""


class ProjectLockedError(ProjectError):
    """Another program holds a write lock on the project file."""


class ProjectBusyError(ProjectLockedError):
    """Another program held a lock on the project file for longer than the busy timeout, so
    a write (or read) did not happen; nothing was changed and the same call may be retried.

    The one retry policy of the GUI is :meth:`slicereview.gui.gateway.ProjectGateway.write`.
    """

    MESSAGE = ("The project file is busy (another program is writing it); nothing was "
               "saved yet, try again when it is done.")
