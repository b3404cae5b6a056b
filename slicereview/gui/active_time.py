"""Active annotation time: a clock that runs only while someone is actually working.

The clock advances on a timer tick while it is *running* (the page is shown and its window is
active, decided by the caller through :meth:`IdleClock.set_running`) and the last input
(:meth:`IdleClock.touch`) is at most ``idle_ms`` ago. Time after the last input counts up to
that limit (looking at an image without moving the mouse is work); a longer pause counts as
``idle_ms`` at most. :meth:`IdleClock.take` returns the milliseconds gathered since the last
take, for :meth:`slicereview.store.Project.add_active_time`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer

#: Idle limit: no input for this long pauses the clock.
IDLE_MS = 60_000
TICK_MS = 500


class IdleClock(QObject):
    """Milliseconds of active time, pausing after ``idle_ms`` without input."""

    def __init__(self, parent: QObject | None = None, *, idle_ms: int = IDLE_MS,
                 now: Callable[[], int] | None = None) -> None:
        super().__init__(parent)
        if now is None:
            elapsed = QElapsedTimer()
            elapsed.start()
            now = elapsed.elapsed
        self._now = now
        self.idle_ms = idle_ms
        self._running = False
        self._last_tick = self._now()
        self._last_input = self._now()
        self._gathered = 0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.tick)
        self._timer.start()

    @property
    def running(self) -> bool:
        return self._running

    def set_running(self, running: bool) -> None:
        if running != self._running:
            self.tick()
            self._running = running
            self._last_tick = self._now()

    def touch(self) -> None:
        """Record user input now."""
        self.tick()
        self._last_input = self._now()

    def tick(self) -> None:
        now = self._now()
        if self._running:
            # Count the part of (last tick, now] that lies within idle_ms of the last input.
            active_until = min(now, self._last_input + self.idle_ms)
            self._gathered += max(0, active_until - self._last_tick)
        self._last_tick = now

    def peek(self) -> int:
        """Milliseconds gathered since the last :meth:`take` (without taking them)."""
        self.tick()
        return self._gathered

    def take(self) -> int:
        """Return and reset the milliseconds gathered since the last take."""
        self.tick()
        ms, self._gathered = self._gathered, 0
        return int(ms)

    def stop(self) -> None:
        self._timer.stop()
