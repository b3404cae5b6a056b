"""Keys of the Review tab, caught before the main window's shortcuts.

The main window's View menu binds A, PgUp/PgDn... window-wide; on the Review tab the same keys
mean review actions. A :class:`ReviewKeys` filter is installed on the application while the
page is shown: for a key event aimed at the page or one of its children (not a text field or
spin box, not while a dialog is open) it accepts the ``ShortcutOverride`` — so no window
shortcut fires — and runs the page's action on the key press. H is *held*: the overlays hide
on press and come back on release.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

if TYPE_CHECKING:
    from slicereview.gui.review.page import ReviewPage

_K = Qt.Key
_M = Qt.KeyboardModifier
#: (key, modifiers) → page method name; docs/review.md, "Reviewing in the app", lists them.
KEYS: dict[tuple[Qt.Key, Qt.KeyboardModifier], str] = {
    (_K.Key_PageDown, _M.NoModifier): "next_image",
    (_K.Key_PageUp, _M.NoModifier): "previous_image",
    (_K.Key_Tab, _M.NoModifier): "next_box",
    (_K.Key_Backtab, _M.ShiftModifier): "previous_box",
    (_K.Key_Tab, _M.ShiftModifier): "previous_box",
    (_K.Key_A, _M.NoModifier): "accept",
    (_K.Key_R, _M.NoModifier): "reject",
    (_K.Key_E, _M.NoModifier): "expert_review",
    (_K.Key_P, _M.NoModifier): "start_point_pin",
    (_K.Key_P, _M.ShiftModifier): "pin_box",
    (_K.Key_Return, _M.ControlModifier): "accept_all_and_next",
    (_K.Key_Enter, _M.ControlModifier): "accept_all_and_next",
    (_K.Key_Escape, _M.NoModifier): "cancel_pin",
    (_K.Key_S, _M.NoModifier): "toggle_side_by_side",
    (_K.Key_M, _M.NoModifier): "cycle_heat",
    (_K.Key_K, _M.NoModifier): "cycle_consensus",
    (_K.Key_O, _M.NoModifier): "toggle_model",
}
HOLD_KEY = _K.Key_H
_TEXT = (QLineEdit, QPlainTextEdit, QAbstractSpinBox, QComboBox)


class ReviewKeys(QObject):
    """Application event filter routing review keys to ``page``."""

    def __init__(self, page: ReviewPage, hold: Callable[[bool], None]) -> None:
        super().__init__(page)
        self.page = page
        self.hold = hold

    def _action(self, event: QKeyEvent) -> str | None:
        mods = event.modifiers() & ~_M.KeypadModifier
        if event.matches(QKeySequence.StandardKey.Redo):
            return "redo"
        if event.matches(QKeySequence.StandardKey.Undo):
            return "undo"
        return KEYS.get((Qt.Key(event.key()), mods))

    def _ours(self, obj: QObject) -> bool:
        if not isinstance(obj, QWidget) or isinstance(obj, _TEXT):
            return False
        if QApplication.activeModalWidget() is not None or not self.page.isVisible():
            return False
        return obj is self.page or self.page.isAncestorOf(obj)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress,
                        QEvent.Type.KeyRelease) or not self._ours(obj):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() == HOLD_KEY and event.modifiers() == _M.NoModifier:
            if kind == QEvent.Type.ShortcutOverride:
                event.accept()
            elif not event.isAutoRepeat():
                self.hold(kind == QEvent.Type.KeyPress)
            return True
        name = self._action(event)
        if name is None or kind == QEvent.Type.KeyRelease:
            return False
        event.accept()
        if kind == QEvent.Type.KeyPress:
            self.page.clock.touch()
        if kind == QEvent.Type.KeyPress and (not event.isAutoRepeat() or name.endswith(
                ("image", "box"))):
            action = getattr(self.page, name, None) or getattr(self.page.decisions, name)
            action()
        return True
