"""Active time of one answer: a stopwatch that runs only while someone can be looking.

The clock counts while its page is visible *and* the application is active (one of its windows
has the focus); it pauses when the user switches to another program, minimises the window or
changes tab, and resumes when they come back. Every answer and grade stores this time, so a
coffee break does not count as a 20-minute judgement.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, Qt
from PySide6.QtGui import QGuiApplication


class ActiveClock(QObject):
    """Milliseconds of active time since :meth:`reset`.

    Example (needs a ``QGuiApplication``)::

        clock = ActiveClock()
        clock.set_visible(True)
        ...
        ms = clock.elapsed_ms()
        clock.reset()
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QElapsedTimer()
        self._banked = 0
        self._visible = False
        app = QGuiApplication.instance()
        self._app_active = (app is None or QGuiApplication.applicationState()
                            == Qt.ApplicationState.ApplicationActive)
        if app is not None:
            app.applicationStateChanged.connect(self._on_app_state)

    @property
    def running(self) -> bool:
        return self._visible and self._app_active

    def _set(self, *, visible: bool | None = None, active: bool | None = None) -> None:
        if self.running and self._timer.isValid():
            self._banked += self._timer.elapsed()
            self._timer.invalidate()
        if visible is not None:
            self._visible = visible
        if active is not None:
            self._app_active = active
        if self.running:
            self._timer.start()

    def set_visible(self, visible: bool) -> None:
        """The page with the clock was shown (``True``) or hidden (``False``)."""
        self._set(visible=bool(visible))

    def _on_app_state(self, state: Qt.ApplicationState) -> None:
        self._set(active=state == Qt.ApplicationState.ApplicationActive)

    def reset(self) -> None:
        """Start counting the next answer from zero."""
        self._banked = 0
        if self.running:
            self._timer.start()
        else:
            self._timer.invalidate()

    def elapsed_ms(self) -> int:
        running = self._timer.elapsed() if self.running and self._timer.isValid() else 0
        return int(self._banked + running)
