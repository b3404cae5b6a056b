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


class EmptyDatabaseError(NotAProjectError):
    """The server database is empty: no project yet. ``can_create``: whether this login may
    create the project's tables there (the offer "create a project here")."""

    def __init__(self, message: str, *, can_create: bool = False) -> None:
        super().__init__(message)
        self.can_create = can_create


class ServerUnreachableError(ServerError):
    """No server answered at the URL's host and port (or socket): not running, a wrong
    address, a network down. Retrying later may succeed."""


class AuthenticationError(ServerError):
    """The server refused the login: a password is needed (``needs_password``: none was
    given, in the URL, ``PGPASSWORD`` or ``~/.pgpass``), the password is wrong, the login does
    not exist, or the server's rules (``pg_hba.conf``) do not let it in from here."""

    def __init__(self, message: str, *, needs_password: bool = False, where: str = "",
                 password_refused: bool = False) -> None:
        super().__init__(message)
        self.needs_password = needs_password
        #: The server refused the password given (wrong, or the login may not use one).
        self.password_refused = password_refused
        #: The URL as shown to people (no password), for a prompt that asks for one.
        self.where = where


class NoSuchDatabaseError(ServerError):
    """The server answered but has no database of the URL's name."""


class ConnectionLostError(ServerError):
    """The connection to the server broke during a call (a server restart, a network drop, a
    backend ended by an administrator).

    ``saved`` says what became of the write: ``False`` nothing of it was committed;
    ``None`` it was being committed and whether it was is not known yet -- it is checked when
    the connection is back (:attr:`~.postgres.PostgresDatabase.on_settled`), and it must not
    be repeated meanwhile. ``may_retry``: repeating the whole intent is safe and reconnects
    first (nothing was saved, and the store did not give up reconnecting).
    """

    def __init__(self, message: str, *, saved: bool | None = False,
                 may_retry: bool = False) -> None:
        super().__init__(message)
        self.saved = saved
        self.may_retry = may_retry


class ProjectLockedError(ProjectError):
    """Another program holds a write lock on the project file."""


class ProjectBusyError(ProjectLockedError):
    """Another program held a lock on the project file for longer than the busy timeout, so
    a write (or read) did not happen; nothing was changed and the same call may be retried.

    The one retry policy of the GUI is :meth:`slicereview.gui.gateway.ProjectGateway.write`.
    """

    MESSAGE = ("The project file is busy (another program is writing it); nothing was "
               "saved yet, try again when it is done.")


class ServerTimeoutError(ProjectBusyError):
    """The server cancelled a statement that ran longer than its ``statement_timeout`` (a
    site's setting, or a server too slow to answer in time): nothing of it was changed, and
    the same call may be retried (the store already repeated a read, or a claim, a few
    times). ``waiting`` is what a front end shows while it retries a write."""

    waiting = "The server is slow to answer (its statement timeout stopped a statement); " \
              "retrying…"
