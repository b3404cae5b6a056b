"""The GUI's one retry policy for a project file locked by another program.

SQLite waits for another connection's lock only up to the connection's busy timeout; a
program that holds the file longer (a backup tool, ``sqlite3`` with an open transaction, a
second slicereview writing a long import on a network drive) made the write fail with
``sqlite3.OperationalError: database is locked`` -- a traceback in the GUI. Now the store raises
:class:`~slicereview.store.errors.ProjectBusyError` (the transaction rolled back, nothing
changed) and :func:`retry_while_busy` runs the whole intent again:

* the gateway's connection waits :data:`ATTEMPT_S` per attempt, so the window never freezes
  for longer than that;
* between attempts the user sees :data:`MESSAGE` (the main window's status bar) while the GUI
  repaints (user input is held back, so no second edit starts meanwhile);
* after :data:`PATIENCE_S` the user is asked Retry / Cancel; Cancel reports the write as not
  saved (an undoable command is then dropped from the undo stack, as for any failed write).

Example
-------
>>> class ProjectBusyError(Exception): ...
>>> tries = []
>>> def write():
...     tries.append(1)
...     if len(tries) < 3:
...         raise ProjectBusyError("busy")
...     return "saved"
>>> retry_while_busy(write, is_busy=lambda exc: isinstance(exc, ProjectBusyError),
...                  on_wait=lambda message: None, ask=lambda message: True, pause_s=0.0)
'saved'
>>> len(tries)
3
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: What the user sees while a write waits for another program's lock.
MESSAGE = "The project file is busy (another program is writing it); retrying…"
#: SQLite's busy timeout of the GUI's connection: the longest one attempt blocks the window.
ATTEMPT_S = 0.5
#: How long to retry before asking the user whether to go on.
PATIENCE_S = 30.0


def retry_while_busy(write: Callable[[], T], *, is_busy: Callable[[BaseException], bool],
                     on_wait: Callable[[str], None], ask: Callable[[str], bool],
                     patience_s: float = PATIENCE_S, pause_s: float = 0.1) -> T:
    """Run ``write()``; while it raises an error that ``is_busy`` accepts (the store's
    :func:`~slicereview.store.connection.is_busy`), call ``on_wait(MESSAGE)``
    and run it again, for ``patience_s`` seconds at a time as long as ``ask(message)``
    answers ``True`` (Retry). Re-raises the error on Cancel; ``on_wait("")`` clears the
    message when the waiting is over."""
    deadline: float | None = None
    try:
        while True:
            try:
                return write()
            except Exception as exc:
                if not is_busy(exc):
                    raise
                now = time.monotonic()
                if deadline is None:
                    deadline = now + patience_s
                elif now >= deadline:
                    if not ask(f"{exc} Retry, or cancel this change?"):
                        raise
                    deadline = time.monotonic() + patience_s
                on_wait(MESSAGE)
                time.sleep(pause_s)
    finally:
        if deadline is not None:
            on_wait("")
