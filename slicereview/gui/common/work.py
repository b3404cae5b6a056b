"""What a background work function is given and how it is run: Qt-free.

A work function is ``work(control, *args)``; :mod:`slicereview.gui.common.background` runs
it in a thread or a child process and shows what it reports in the GUI. Here is everything the work
side needs, and nothing of Qt, so work functions (:mod:`slicereview.gui.common.workers`) and
the child process stay free of it:

* :class:`Control` — report progress (:meth:`Control.progress`), ask whether Cancel was pressed
  (:meth:`Control.cancelled`, :meth:`Control.check`);
* :func:`run` — call the work; a *generator* work yields ``(done, total, what)`` steps and
  returns its result, is checked for Cancel between steps and closed (its ``finally`` and
  ``with`` blocks run) when Cancel was pressed;
* :func:`outcome` — run and say how it went: ``("finished", result)``, ``("cancelled",
  None)`` or ``("failed", message)``; :func:`child` does so in a child process.

>>> def count(control, n):
...     for i in range(n):
...         yield i, n, "counting"
...     return n
>>> steps = []
>>> outcome(count, Control(lambda kind, step: steps.append(step), lambda: False), (3,))
('finished', 3)
>>> steps
[(0, 3, 'counting'), (1, 3, 'counting'), (2, 3, 'counting')]
>>> outcome(count, Control(lambda kind, step: None, lambda: True), (3,))
('cancelled', None)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator
from multiprocessing.connection import Connection
from typing import Any, cast

#: ``(done, total, what)``: one step of progress (``total`` 0: unknown).
Step = tuple[int, int, str]


class Cancelled(Exception):
    """Raised by :meth:`Control.check` after Cancel; ends the worker with ``cancelled``."""


class Control:
    """What a work function is given: Qt-free, used in the worker's thread or process."""

    def __init__(self, send: Callable[[str, object], None], cancelled: Callable[[], bool]
                 ) -> None:
        self._send = send
        self._cancelled = cancelled

    def progress(self, done: int, total: int, what: str = "") -> None:
        """Report a step (the GUI shows it; ``total`` 0: unknown)."""
        self._send("progress", (int(done), int(total), str(what)))

    def cancelled(self) -> bool:
        """Whether Cancel was pressed."""
        return self._cancelled()

    def check(self) -> None:
        """Raise :class:`Cancelled` when Cancel was pressed."""
        if self._cancelled():
            raise Cancelled


def run(work: Callable[..., Any], control: Control, args: tuple[Any, ...]) -> Any:
    """Run ``work(control, *args)``; a generator's steps are reported and Cancel is checked
    between them. Raises :class:`Cancelled` when a generator is stopped."""
    out = work(control, *args)
    if not inspect.isgenerator(out):
        return out
    steps = cast("Generator[Step, None, Any]", out)
    try:
        while True:
            if control.cancelled():
                steps.close()
                raise Cancelled
            done, total, what = next(steps)
            control.progress(done, total, what)
    except StopIteration as stop:
        return stop.value


def message(exc: BaseException) -> str:
    """The text a failure is reported with."""
    return str(exc) or type(exc).__name__


def outcome(work: Callable[..., Any], control: Control, args: tuple[Any, ...]
            ) -> tuple[str, object]:
    try:
        return "finished", run(work, control, args)
    except Cancelled:
        return "cancelled", None
    except Exception as exc:  # reported to the GUI, which says why in its own words
        return "failed", message(exc)


def child(conn: Connection, cancel: Any, work: Callable[..., Any],
           args: tuple[Any, ...]) -> None:
    """The child process: run the work, send its steps and its end over ``conn``."""
    control = Control(lambda kind, payload: conn.send((kind, payload)), cancel.is_set)
    kind, payload = outcome(work, control, args)
    try:
        conn.send((kind, payload))
    except Exception as exc:  # e.g. a result that does not pickle
        conn.send(("failed", f"the result could not be sent back: {message(exc)}"))
    conn.close()
