"""Active time: one clock for the Rate and Annotate tabs that runs only while someone works.

The clock advances on a timer tick while it is *running* — the caller says the page is shown
(:meth:`IdleClock.set_running`, alias :meth:`IdleClock.set_visible`) *and* the application is
active (one of its windows has the focus; followed here) — and the last input
(:meth:`IdleClock.touch`) is at most ``idle_ms`` ago. Time after the last input counts up to
that limit (looking at an image without moving the mouse is work); a longer pause counts as
``idle_ms`` at most, so a grade given after a coffee break stores at most ``idle_ms`` plus the
time since the person came back, never the 11 minutes the window stayed focused.

:attr:`IdleClock.paused` is true while the clock stands still (hidden, another program active,
or idle); :attr:`IdleClock.paused_changed` tells the page so it can say so. :meth:`take`
returns the milliseconds gathered since the last take (the Annotate tab adds them to the
annotation; the Rate tab stores them with the answer and starts from zero for the next one).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QWidget

#: Idle limit: no input for this long pauses the clock.
IDLE_MS = 60_000
TICK_MS = 500


class IdleClock(QObject):
    """Milliseconds of active time, pausing after ``idle_ms`` without input.

    ``follow_application=False`` leaves out whether the application is active (a script, or a
    test whose result must not depend on which window of the test run has the focus).

    Example (a fake clock in place of the real one; the same with or without an application)::

        >>> t = [0]
        >>> clock = IdleClock(idle_ms=1000, now=lambda: t[0], follow_application=False)
        >>> clock.set_running(True); clock.touch()
        >>> t[0] = 5000            # five seconds without input
        >>> clock.paused, clock.take()
        (True, 1000)
        >>> clock.touch(); t[0] = 5400
        >>> clock.paused, clock.take()
        (False, 400)
    """

    #: The clock stopped (``True``) or started again (``False``).
    paused_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, *, idle_ms: int = IDLE_MS,
                 now: Callable[[], int] | None = None, follow_application: bool = True
                 ) -> None:
        super().__init__(parent)
        if now is None:
            elapsed = QElapsedTimer()
            elapsed.start()
            now = elapsed.elapsed
        self._now = now
        self.idle_ms = idle_ms
        self._wanted = False
        app = QGuiApplication.instance() if follow_application else None
        self._app_active = (not isinstance(app, QGuiApplication)
                            or QGuiApplication.applicationState()
                            == Qt.ApplicationState.ApplicationActive)
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self._on_app_state)
        self._last_tick = self._now()
        self._last_input = self._now()
        self._gathered = 0
        self._was_paused = True
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.tick)
        self._timer.start()

    @property
    def running(self) -> bool:
        """Shown and the application active (input or not)."""
        return self._wanted and self._app_active

    @property
    def idle(self) -> bool:
        """Running, but no input for more than ``idle_ms``."""
        return self.running and self._now() - self._last_input > self.idle_ms

    @property
    def paused(self) -> bool:
        return not self.running or self.idle

    def _change(self, *, wanted: bool | None = None, active: bool | None = None) -> None:
        self.tick()
        if wanted is not None:
            self._wanted = wanted
        if active is not None:
            self._app_active = active
        self._last_tick = self._now()
        self._emit_paused()

    def set_running(self, running: bool) -> None:
        """The page with the clock is shown and can be worked on (``True``) or not."""
        if bool(running) != self._wanted:
            self._change(wanted=bool(running))

    set_visible = set_running

    def _on_app_state(self, state: Qt.ApplicationState) -> None:
        self._change(active=state == Qt.ApplicationState.ApplicationActive)

    def touch(self) -> None:
        """Record user input now."""
        self.tick()
        self._last_input = self._now()
        self._emit_paused()

    def tick(self) -> None:
        now = self._now()
        if self.running:
            # Count the part of (last tick, now] that lies within idle_ms of the last input.
            active_until = min(now, self._last_input + self.idle_ms)
            self._gathered += max(0, active_until - self._last_tick)
        self._last_tick = now
        self._emit_paused()

    def _emit_paused(self) -> None:
        paused = self.paused
        if paused != self._was_paused:
            self._was_paused = paused
            self.paused_changed.emit(paused)

    def peek(self) -> int:
        """Milliseconds gathered since the last :meth:`take` (without taking them)."""
        self.tick()
        return int(self._gathered)

    elapsed_ms = peek

    def take(self) -> int:
        """Return and reset the milliseconds gathered since the last take."""
        self.tick()
        ms, self._gathered = self._gathered, 0
        return int(ms)

    def reset(self) -> None:
        """Start counting from zero (the next comparison); the time since the last input still
        counts as work if the person is there."""
        self.take()

    def stop(self) -> None:
        self._timer.stop()


class TouchOnInput(QObject):
    """Touch ``clock`` on every key, click, wheel or mouse movement in ``widget`` and its
    children at the time of the call (an event filter; it never eats the event)."""

    INPUT = frozenset({QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress,
                       QEvent.Type.MouseMove, QEvent.Type.Wheel})

    def __init__(self, clock: IdleClock, widget: QWidget) -> None:
        super().__init__(widget)
        self.clock = clock
        for w in (widget, *widget.findChildren(QWidget)):
            w.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in self.INPUT:
            self.clock.touch()
        return False


class ClockLabel(QLabel):
    """Says whether ``clock`` runs, and why it is paused when it is idle."""

    def __init__(self, clock: IdleClock, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clock = clock
        clock.paused_changed.connect(self.show_state)
        self.setToolTip("Active time counts while this view is shown, the window is active "
                        f"and there was input in the last {clock.idle_ms // 1000} s")
        self.show_state(clock.paused)

    def show_state(self, paused: bool) -> None:
        if paused and self.clock.idle:
            self.setText(f"Clock paused: no input for {self.clock.idle_ms / 1000:g} s "
                         "(move the mouse to go on)")
            self.setStyleSheet("color: #b35c00; font-weight: bold")
        else:
            self.setText("Clock paused" if paused else "Clock running")
            self.setStyleSheet("" if paused else "color: #2e7d32")
