"""The comparison view: the pair to compare (or the image to grade) of one rating session.

Two :class:`~slicereview.gui.common.image_view.ImageView` s side by side, their zoom, pan and
window/level linked (a check box unlinks them; windows relatively, :mod:`.window_link`),
the session's prompt above and the answer buttons below. Keys (also in the buttons' tooltips):

====================  ===============================================================
← / →                 the left / right image shows more of the property
↓ or Space            no difference ("same")
1 … 9                 grade (classify sessions; the page has the keyboard focus)
Backspace, Ctrl+Z     undo the last answer or grade
B / Shift+B, C / …    brighter / darker, more / less contrast (main window View menu,
                      acting on both images through ``image_views()``)
====================  ===============================================================

The view owns the keyboard: its children never take the focus (a click anywhere in it gives
the focus to the view), and it claims its keys with ``ShortcutOverride`` so that they win over
window shortcuts of the same key ("1" is 1:1 zoom elsewhere). Auto-repeated key presses are
ignored, so holding an arrow key cannot answer several pairs.

Each answer is passed to the engine with its active time
(:class:`~slicereview.gui.common.active_time.IdleClock`, the Annotate tab's clock: it runs while
the view is shown and the application active, and stops after a minute without a key, click, wheel
or mouse movement in the view — the label beside *Undo* then says "clock paused"), and the next
pair is shown as soon as the answer is committed (one SQLite transaction and one replay step);
the session's images are decoded in the background when it opens
(:class:`~slicereview.gui.common.prefetch.Prefetcher`), so pairs are shown from memory.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.rating.sessions import Comparison, Current, GradeRequest, Ranking
from slicereview.gui.common.active_time import ClockLabel, IdleClock, TouchOnInput
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.prefetch import Prefetcher
from slicereview.gui.common.shortcuts import RATE_ANSWER_KEYS
from slicereview.gui.gateway import ConnectionLostError, ProjectGateway
from slicereview.gui.rate.confirm import confirm_undo
from slicereview.gui.rate.window_link import RelativeWindowLink

_K = Qt.Key
PAIR_KEYS = {getattr(_K, f"Key_{name}"): answer for name, answer in RATE_ANSWER_KEYS.items()}
DIGITS = {getattr(_K, f"Key_{d}"): d - 1 for d in range(1, 10)}


class CompareView(QWidget):
    """Shows and answers one rating session; open one with :meth:`open`."""

    #: The session's ranking is complete (carries the session id).
    finished = Signal(int)
    #: A new pair or image is on screen.
    shown = Signal()

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        gateway.write_failed.connect(self._on_write_failed)
        gateway.changed_elsewhere.connect(self._on_changed_elsewhere)
        self.gateway = gateway
        self.session_id: int | None = None
        self.current: Current | None = None
        self._answerable = False
        self.clock = IdleClock(self)
        self.prefetcher = Prefetcher(gateway, self)
        gateway.project_closed.connect(self.prefetcher.cancel)

        self.prompt = QLabel()
        font = QFont(self.prompt.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.prompt.setFont(font)
        self.prompt.setWordWrap(True)
        self.progress = QLabel()
        self.progress.setObjectName("rate_progress")
        self.progress.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.progress.setMinimumWidth(
            self.progress.fontMetrics().horizontalAdvance("answered 9999, about 9999 to go"))
        self.message = QLabel()
        self.message.setStyleSheet("color: #b35c00")
        self.clock_label = ClockLabel(self.clock)
        self.clock_label.setObjectName("rate_clock")
        self.left = ImageView(show_histogram=False)
        self.right = ImageView(show_histogram=False)
        self.window_link = RelativeWindowLink()
        self.left.window_changed.connect(self._on_left_window)
        self.right.window_changed.connect(self._on_right_window)
        self.link_box = QCheckBox("Link zoom, pan and window")
        self.link_box.setChecked(True)
        self.link_box.setToolTip("Zoom, pan and window/level act on both images together")
        self.link_box.toggled.connect(self._apply_link)

        self.left_button = self._button("◀  Left  (←)", "The left image shows more (←)",
                                        lambda: self.answer("left"))
        self.same_button = self._button("Same  (↓ / Space)",
                                        "No difference between the two (↓ or Space)",
                                        lambda: self.answer("same"))
        self.right_button = self._button("Right  (→)  ▶", "The right image shows more (→)",
                                         lambda: self.answer("right"))
        self.undo_button = self._button("Undo  (Backspace)",
                                        "Undo the last answer (Backspace or Ctrl+Z)", self.undo)
        self.grade_row = QHBoxLayout()
        self.grade_buttons: list[QPushButton] = []

        top = QHBoxLayout()
        top.addWidget(self.prompt, 1)
        top.addWidget(self.progress)
        views = QHBoxLayout()
        views.setSpacing(6)
        views.addWidget(self.left, 1)
        views.addWidget(self.right, 1)
        pair_row = QHBoxLayout()
        pair_row.addWidget(self.left_button, 2)
        pair_row.addStretch(1)
        pair_row.addWidget(self.same_button, 2)
        pair_row.addStretch(1)
        pair_row.addWidget(self.right_button, 2)
        bottom = QHBoxLayout()
        bottom.addWidget(self.link_box)
        bottom.addWidget(self.message, 1)
        bottom.addWidget(self.clock_label)
        bottom.addWidget(self.undo_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(views, 1)
        layout.addLayout(pair_row)
        layout.addLayout(self.grade_row)
        layout.addLayout(bottom)
        self._apply_link(True)
        self._take_keyboard()
        self.touch = TouchOnInput(self.clock, self)

    def _button(self, text: str, tip: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.setToolTip(tip)
        button.setMinimumHeight(34)
        button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        button.clicked.connect(slot)
        return button

    def _take_keyboard(self) -> None:
        for child in self.findChildren(QWidget):
            child.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def image_views(self) -> list[ImageView]:
        """The views the main window's View menu acts on (both sides, or the graded image)."""
        if isinstance(self.current, GradeRequest):
            return [self.left]
        return [self.left, self.right] if isinstance(self.current, Comparison) else []

    # -- linking ---------------------------------------------------------------------------
    @property
    def linked(self) -> bool:
        return self.link_box.isChecked() and isinstance(self.current, Comparison | None)

    def _apply_link(self, _checked: bool = True) -> None:
        target = self.left.viewbox if self.linked else None
        self.right.viewbox.setXLink(target)
        self.right.viewbox.setYLink(target)
        if self.linked and self.left.display is not None and self.right.display is not None:
            self._on_left_window(self.left.current_window.center, self.left.current_window.width)

    def _copy_window(self, source: ImageView, target: ImageView) -> None:
        if self.linked:
            self.window_link.carry(source, target)

    def _on_left_window(self, _center: float, _width: float) -> None:
        self._copy_window(self.left, self.right)

    def _on_right_window(self, _center: float, _width: float) -> None:
        self._copy_window(self.right, self.left)

    # -- showing ---------------------------------------------------------------------------
    def open(self, session_id: int) -> None:
        """Show session ``session_id`` where it stopped."""
        rs = self.gateway.rating.run(session_id)
        self.session_id = session_id
        self.current = None
        self.prompt.setText(rs.session.prompt or "Which image shows more?")
        self._set_labels(rs.labels)
        self.message.clear()
        self.clock.touch()  # choosing the session is input
        self.show_current(rs.current())
        self.prefetcher.prefetch(list(rs.items))  # later pairs come from memory
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def _set_labels(self, labels: tuple[str, ...]) -> None:
        for button in self.grade_buttons:
            self.grade_row.removeWidget(button)
            button.deleteLater()
        self.grade_buttons = []
        for g, label in enumerate(labels[:9]):
            button = self._button(f"{g + 1}  {label}", f"Grade {label!r} (key {g + 1})",
                                  lambda _=False, g=g: self.grade(g))
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.installEventFilter(self.touch)
            self.grade_row.addWidget(button)
            self.grade_buttons.append(button)

    def show_current(self, now: Current) -> None:
        """Put ``now`` (a pair, an image to grade, or the finished ranking) on screen."""
        previous = self.current
        self.current = now
        if isinstance(now, Ranking):
            self._answerable = False
            self.finished.emit(self.session_id)
            return
        pair = isinstance(now, Comparison)
        for w in (self.left_button, self.same_button, self.right_button, self.right,
                  self.link_box):
            w.setVisible(pair)
        for button in self.grade_buttons:
            button.setVisible(not pair)
        if pair != isinstance(previous, Comparison):
            self._apply_link()
        ids: tuple[int, ...] = (now.left, now.right) if isinstance(now, Comparison) \
            else (now.image_id,)
        views = (self.left, self.right) if pair else (self.left,)
        self._answerable = all(self._load(view, image_id, previous is not None)
                               for view, image_id in zip(views, ids, strict=True))
        if isinstance(now, Comparison) and self.session_id is not None:
            kind = str(self.gateway.rating.run(self.session_id).kind)
            total = now.estimated_total
            self.progress.setText(
                f"answered {now.answered} of {total} pairs" if kind == "exhaustive" else
                f"answered {now.answered} of at most {total}" if kind == "confidence" else
                f"answered {now.answered}, about {max(total - now.answered, 1)} to go")
        elif isinstance(now, GradeRequest):
            self.progress.setText(f"graded {now.graded} of {now.total}")
        for w in (self.left_button, self.same_button, self.right_button, *self.grade_buttons):
            w.setEnabled(self._answerable)
        self.clock.reset()
        self.shown.emit()

    def _load(self, view: ImageView, image_id: int, keep: bool) -> bool:
        try:
            display = self.gateway.display(self.gateway.image(image_id))
        except Exception as exc:  # a missing or unreadable file: say which, don't answer blind
            view.clear()
            self.message.setText(f"Cannot show image {image_id}: {exc}")
            return False
        old = view.display
        keep = keep and old is not None and old.data.shape == display.data.shape
        view.set_image(display, keep_view=keep, keep_window=False)  # (zoom and pan stay; each
        # image starts at its own automatic window, docs/rate.md)
        return True

    # -- answering -------------------------------------------------------------------------
    def answer(self, choice: str) -> None:
        """Answer the pair on screen (``"left"``, ``"right"`` or ``"same"``)."""
        now, session_id = self.current, self.session_id
        if not (isinstance(now, Comparison) and self._answerable and session_id is not None):
            return
        self.message.clear()
        nxt = self.gateway.rating.answer(session_id, choice, self.clock.elapsed_ms(),
                                         (now.left, now.right))
        if nxt is None and self.gateway.server_down:
            return  # refused, the server away (the message said so): the screen stays
        self.show_current(nxt if nxt is not None else self._reread())

    def grade(self, grade: int) -> None:
        now, session_id = self.current, self.session_id
        if not (isinstance(now, GradeRequest) and self._answerable
                and 0 <= grade < len(now.labels) and session_id is not None):
            return
        self.message.clear()
        nxt = self.gateway.rating.grade(session_id, grade, self.clock.elapsed_ms(),
                                        now.image_id)
        if nxt is None and self.gateway.server_down:
            return  # refused, the server away (the message said so): the screen stays
        self.show_current(nxt if nxt is not None else self._reread())

    def _reread(self) -> Current:
        """The session's comparison as the file has it now (after a refused write, e.g. a pair
        another instance answered first: never stay stuck on it)."""
        assert self.session_id is not None, "no session shown"
        return self.gateway.rating.run(self.session_id).current()

    def _on_changed_elsewhere(self) -> None:
        if self.session_id is None or self.current is None:
            return
        try:
            now = self._reread()
        except (KeyError, ValueError, ConnectionLostError):
            return
        if now != self.current:
            self.message.setText("Updated: answers were added in another window or instance.")
            self.show_current(now)

    def _on_write_failed(self, message: str) -> None:
        if self.isVisible():
            self.message.setText(message)

    def undo(self) -> None:
        """Undo the last answer or grade and show that comparison again: from this window's
        history when it has one, else the session's last stored answer (e.g. after reopening)."""
        session_id = self.session_id
        if session_id is None:
            return
        rating = self.gateway.rating
        if rating.history(session_id).can_undo:
            if not rating.undo(session_id):  # refused (e.g. answered since elsewhere): say so
                self.show_current(self._reread())
                return
        elif not rating.run(session_id).answer_count:
            self.message.setText("Nothing to undo.")
            return
        else:
            ok = confirm_undo(self, self.gateway, session_id)
            self.activateWindow()  # the keys belong to the view again after the comparison
            self.setFocus(Qt.FocusReason.OtherFocusReason)
            if not (ok and rating.remove_last_answer(session_id)):
                return
        self.message.setText("Last answer undone (Ctrl+Shift+Z redoes it).")
        self.show_current(rating.run(session_id).current())

    def redo(self) -> None:
        """Store the undone answer again."""
        session_id = self.session_id
        if session_id is None or not self.gateway.rating.history(session_id).can_redo:
            return
        self.gateway.rating.redo(session_id)
        self.message.setText("Answer restored.")
        self.show_current(self.gateway.rating.run(session_id).current())

    # -- keys ------------------------------------------------------------------------------
    def _key_action(self, event: QKeyEvent):
        key = event.key()
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.matches(QKeySequence.StandardKey.Redo) or (
                key == _K.Key_Y and mods == Qt.KeyboardModifier.ControlModifier):
            return self.redo  # Ctrl+Y as well: the docs promise it, Linux's Redo lacks it
        if event.matches(QKeySequence.StandardKey.Undo) or (
                key == _K.Key_Backspace and mods == Qt.KeyboardModifier.NoModifier):
            return self.undo
        if mods != Qt.KeyboardModifier.NoModifier:
            return None
        if isinstance(self.current, Comparison) and key in PAIR_KEYS:
            return lambda: self.answer(PAIR_KEYS[key])
        if isinstance(self.current, GradeRequest) and DIGITS.get(key, 99) < len(
                self.current.labels):
            return lambda: self.grade(DIGITS[key])
        return None

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and self._key_action(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        action = self._key_action(event)
        if action is None:
            super().keyPressEvent(event)
            return
        event.accept()
        if not event.isAutoRepeat():
            action()

    def mousePressEvent(self, event) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        super().mousePressEvent(event)

    # -- active clock ----------------------------------------------------------------------
    def showEvent(self, event) -> None:
        self.clock.set_visible(True)
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        self.clock.set_visible(False)
        super().hideEvent(event)
