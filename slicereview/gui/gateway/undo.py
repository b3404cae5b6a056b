"""The Qt side of the one undo path: a ``QUndoCommand`` around an application-layer command.

Every undoable intent is a Qt-free command of :mod:`slicereview.app.commands`;
:class:`UndoCommand` only forwards ``redo``/``undo`` to its ``apply``/``revert`` and tells the
gateway what changed, so the project file always matches the screen.

``QUndoStack.push`` runs :meth:`UndoCommand.redo` (views never apply an edit and push
afterwards). When a write fails (a full disk, a locked or read-only file) the command marks
itself *obsolete*: Qt then deletes it instead of keeping it on the stack (``push`` during the
first redo, ``undo``/``redo`` later), so a failed command never sits on the stack where the next
Ctrl+Z would revert a change that was never made. The gateway shows the error
(:attr:`~slicereview.gui.gateway.ProjectGateway.write_failed`) and views re-read the file.

Example
-------
>>> stack = QUndoStack()                                               # doctest: +SKIP
>>> gateway.execute(stack, AddPolygon(project, annotation_id, polygon))  # doctest: +SKIP
>>> stack.undo()   # the polygon is deleted from the project file again  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

if TYPE_CHECKING:
    from slicereview.app.commands import Command
    from slicereview.gui.gateway import ProjectGateway


class UndoCommand(QUndoCommand):
    """A ``QUndoCommand`` that applies and reverts one :class:`~slicereview.app.commands.Command`.

    After :meth:`redo` or :meth:`undo`, :attr:`error` holds the failure (``None`` on success).
    """

    def __init__(self, gateway: ProjectGateway, command: Command) -> None:
        super().__init__(command.text)
        self.gateway = gateway
        self.command = command
        self.error: Exception | None = None

    def _run(self, step: str) -> None:
        self.error = None
        try:
            self.gateway.write(getattr(self.command, step))  # waits while the file is busy
        except Exception as exc:  # the file refused the write: drop the command, say why
            self.error = exc
            self.setObsolete(True)
            self.gateway.report_failure(self.command, exc)
        self.gateway.settle(lambda: self.gateway.notify(self.command.changed,
                                                        getattr(self.command, "run", None)))

    def redo(self) -> None:
        self._run("apply")

    def undo(self) -> None:
        self._run("revert")
