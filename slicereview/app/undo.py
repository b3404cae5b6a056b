"""The one undo path: a Qt-free history of commands that write through to the project.

Every undoable intent is a command of :mod:`slicereview.app.commands` (or
:mod:`slicereview.app.review.commands`) with ``apply()`` and ``revert()``, each one transaction.
A :class:`CommandStack` runs them and keeps the history; the GUI only displays it (its Undo and
Redo actions, their text and enabled state) and the CLI and tests use the same class.

* **Failure** — a write that fails (a refused rule, a full disk, a read-only or locked file)
  leaves nothing on the stack: a failed :meth:`~CommandStack.push` keeps no command, a failed
  :meth:`~CommandStack.undo` or :meth:`~CommandStack.redo` drops the command (the next Ctrl+Z
  never reverts a change that was not made). :attr:`~CommandStack.error` and the notice say why.
* **Change notice** — after every attempt, failed or not, the stack calls its ``notice`` with a
  :class:`Notice`: what changed (``command.changed``) so front ends re-read it, and the failure.
* **Busy** — another program holding the file's lock makes the store raise
  :class:`~slicereview.store.errors.ProjectBusyError` (nothing changed);
  :func:`retry_while_busy` runs the whole intent again, briefly, then asks. The stack writes
  through its ``write`` policy, by default one attempt.

Example
-------
>>> class Note:                      # a command: text, changed, apply, revert
...     text, changed = "Note", ("session", 1)
...     def __init__(self, log): self.log = log
...     def apply(self): self.log.append("on")
...     def revert(self): self.log.remove("on")
>>> log, seen = [], []
>>> stack = CommandStack(notice=seen.append)
>>> stack.push(Note(log)), log, stack.undo_text
(True, ['on'], 'Note')
>>> stack.undo(), log, stack.can_redo
(True, [], True)
>>> class Refused(Note):
...     def apply(self): raise ValueError("no reason given")
>>> stack.push(Refused(log)), stack.can_undo, seen[-1].message
(False, False, 'Note was not saved: no reason given')
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

if TYPE_CHECKING:  # (the commands import the rating engine; a front end starts without it)
    from slicereview.app.commands import Command

T = TypeVar("T")

#: What the user sees while a write waits for another program's lock.
BUSY_MESSAGE = "The project file is busy (another program is writing it); retrying…"
#: SQLite's busy timeout of an interactive connection: the longest one attempt blocks.
ATTEMPT_S = 0.5
#: How long to retry before asking the user whether to go on.
PATIENCE_S = 30.0


def retry_while_busy(write: Callable[[], T], *, is_busy: Callable[[BaseException], bool],
                     on_wait: Callable[[str], None], ask: Callable[[str], bool],
                     patience_s: float = PATIENCE_S, pause_s: float = 0.1) -> T:
    """Run ``write()``; while it raises an error that ``is_busy`` accepts (the store's
    :func:`~slicereview.store.connection.is_busy`), call ``on_wait(BUSY_MESSAGE)`` (or the
    error's own ``waiting`` text: a server's statement timeout) and run it
    again, for ``patience_s`` seconds at a time as long as ``ask(message)`` answers ``True``
    (Retry). Re-raises the error on Cancel; ``on_wait("")`` clears the message when the
    waiting is over.

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
                on_wait(getattr(exc, "waiting", BUSY_MESSAGE))  # (a slow server says so)
                time.sleep(pause_s)
    finally:
        if deadline is not None:
            on_wait("")


@dataclass(frozen=True)
class Notice:
    """One attempt of a stack: the command, whether it was applied or reverted, and why it
    failed (``None``: it did not)."""

    command: Command
    step: Literal["apply", "revert"]
    error: Exception | None = None

    @property
    def message(self) -> str | None:
        """The sentence a front end shows for a failure (``None`` when there was none)."""
        return None if self.error is None else f"{self.command.text} was not saved: {self.error}"


def _once(write: Callable[[], T]) -> T:
    return write()


class CommandStack:
    """Undo and redo of commands (see the module docstring).

    ``write(fn)`` runs each apply or revert (default: once; the GUI passes its busy retry);
    ``notice(Notice)`` hears every attempt. :attr:`listeners` are called without arguments
    whenever what the stack offers changed (an Undo button's text and enabled state).
    """

    def __init__(self, write: Callable[[Callable[[], object]], object] = _once,
                 notice: Callable[[Notice], None] | None = None) -> None:
        self._write = write
        self._notice = notice
        self.done: list[Command] = []
        self.undone: list[Command] = []
        #: Why the last push, undo or redo failed (``None``: it did not).
        self.error: Exception | None = None
        self.listeners: list[Callable[[], None]] = []

    def _run(self, command: Command, step: Literal["apply", "revert"]) -> bool:
        self.error = None
        try:
            self._write(command.apply if step == "apply" else command.revert)
        except Exception as exc:  # the file or a rule refused it: keep nothing, say why
            self.error = exc
        if self._notice is not None:
            self._notice(Notice(command, step, self.error))
        return self.error is None

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def push(self, command: Command) -> bool:
        """Apply ``command``; kept (and the redo history dropped) only if the write worked."""
        ok = self._run(command, "apply")
        if ok:
            self.done.append(command)
            self.undone.clear()
        self._changed()
        return ok

    def undo(self) -> bool:
        """Revert the last command; one that cannot be reverted is dropped. False when there
        was nothing to undo or it failed."""
        if not self.done:
            return False
        command = self.done.pop()
        ok = self._run(command, "revert")
        if ok:
            self.undone.append(command)
        self._changed()
        return ok

    def redo(self) -> bool:
        """Apply the last undone command again; one that fails is dropped."""
        if not self.undone:
            return False
        command = self.undone.pop()
        ok = self._run(command, "apply")
        if ok:
            self.done.append(command)
        self._changed()
        return ok

    def clear(self) -> None:
        self.done.clear()
        self.undone.clear()
        self._changed()

    @property
    def can_undo(self) -> bool:
        return bool(self.done)

    @property
    def can_redo(self) -> bool:
        return bool(self.undone)

    @property
    def undo_text(self) -> str:
        """The text of the command Undo would revert ("" when none)."""
        return self.done[-1].text if self.done else ""

    @property
    def redo_text(self) -> str:
        return self.undone[-1].text if self.undone else ""

    def __len__(self) -> int:
        return len(self.done) + len(self.undone)
