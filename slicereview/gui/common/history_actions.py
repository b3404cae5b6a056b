"""Undo and Redo actions that display a Qt-free undo history.

The history (:class:`~slicereview.app.undo.CommandStack`) does the work; :class:`HistoryActions`
only shows it: the actions are enabled while there is something to undo or redo, their text
names the command ("Undo Add polygon"), and triggering them calls the history. A page that
shows several histories (one per annotation) points the actions at the current one with
:meth:`HistoryActions.follow`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from slicereview.app.undo import CommandStack


class HistoryActions(QObject):
    """An Undo and a Redo action (``undo_keys``/``redo_keys`` their shortcuts) on ``parent``."""

    def __init__(self, parent: QObject, undo_keys: Sequence[str], redo_keys: Sequence[str]
                 ) -> None:
        super().__init__(parent)
        self.history: CommandStack | None = None
        self.undo = QAction("Undo", parent)
        self.redo = QAction("Redo", parent)
        for action, keys, tip in ((self.undo, undo_keys, "Undo (Ctrl+Z)"),
                                  (self.redo, redo_keys, "Redo (Ctrl+Shift+Z)")):
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setToolTip(tip)
            action.setIconText(tip.split()[0])  # a toolbar keeps a short label
        self.undo.triggered.connect(self._undo)
        self.redo.triggered.connect(self._redo)
        self._show()

    def follow(self, history: CommandStack | None) -> None:
        """Show and act on ``history`` from now on (``None``: nothing to undo)."""
        if history is self.history:
            return
        if self.history is not None:
            self.history.listeners.remove(self._show)
        self.history = history
        if history is not None:
            history.listeners.append(self._show)
        self._show()

    def _show(self) -> None:
        h = self.history
        self.undo.setEnabled(h is not None and h.can_undo)
        self.redo.setEnabled(h is not None and h.can_redo)
        self.undo.setText(f"Undo {h.undo_text}" if h is not None and h.can_undo else "Undo")
        self.redo.setText(f"Redo {h.redo_text}" if h is not None and h.can_redo else "Redo")

    def _undo(self) -> None:
        if self.history is not None:
            self.history.undo()

    def _redo(self) -> None:
        if self.history is not None:
            self.history.redo()
