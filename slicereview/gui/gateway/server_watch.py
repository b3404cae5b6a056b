"""A window's live link to a server project: change notices, who else is there, and the
state of the connection.

:class:`ServerWatch` is the server's half of :class:`~.sharing.ProjectWatch` (a project file is
watched through its lock file and ``PRAGMA data_version`` instead). While a server project is
open it keeps a :class:`~slicereview.store.postgres_live.Listener` (a second connection that
``LISTEN`` s, opened off the GUI thread by a thread worker of
:mod:`slicereview.gui.common.background`) and waits on its socket with a
:class:`~PySide6.QtCore.QSocketNotifier`: no polling. It says

* :attr:`ServerWatch.changed` when someone committed (every committed write sends a notice;
  :class:`~.sharing.ProjectWatch` then compares the change counter, which leaves out this
  window's own commits, and the views re-read). A burst of commits (another machine's import
  commits every quarter second) is said at once and then at most every :data:`MIN_GAP_S`,
  counted from when the views finished re-reading, so that they do not re-read more often
  than that however long a re-read takes;
* :attr:`ServerWatch.others` who else has the project open ("Also open on HOST by USER …"),
  again whenever a window comes or goes;
* :attr:`ServerWatch.connection` what is wrong with the connection ("" when nothing is): when
  the listener's connection breaks (a server restart, a network drop) it says so and a worker
  reconnects, pausing as :data:`~slicereview.store.postgres_link.PAUSES` says, until the server
  is back or the project is closed; once back the views re-read what they may have missed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal

from slicereview.gui.common.background import Control, Worker, thread_worker
from slicereview.store import Project
from slicereview.store.errors import AuthenticationError, NoSuchDatabaseError, ServerError
from slicereview.store.location import describe
from slicereview.store.postgres_link import PAUSES
from slicereview.store.postgres_live import BYE, CHANGED, HELLO, Listener, visitors

#: The shortest time between two :attr:`ServerWatch.changed` (seconds).
MIN_GAP_S = 0.5

#: The clock the gap is measured on (seconds; a test puts its own here).
now = time.monotonic


def listen(control: Control, url: str, started: int | None = None
           ) -> Iterator[tuple[int, int, str]]:
    """Work function: a :class:`Listener` on ``url``, trying again after each pause of
    :data:`PAUSES` while the server cannot be reached (each failure is a progress step whose
    text says so); a refused login or a missing database ends it (nothing to wait for)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return Listener.open(url, started)  # type: ignore[return-value]
        except (AuthenticationError, NoSuchDatabaseError):
            raise
        except ServerError as exc:
            pause = PAUSES[min(attempt, len(PAUSES)) - 1]
            reason = str(exc).rstrip(". ")
            yield attempt, 0, (f"The connection to the server is lost: {reason}. Reconnecting "
                               f"(attempt {attempt + 1} in {pause:g} s)…")
            deadline = time.monotonic() + pause
            while time.monotonic() < deadline:
                if control.cancelled():
                    return None
                time.sleep(0.05)


class ServerWatch(QObject):
    """See the module docstring."""

    #: Someone committed to the project (possibly this window: compare the change counter).
    changed = Signal()
    #: Who else has the project open, as a sentence ("" when nobody).
    others = Signal(str)
    #: What is wrong with the connection to the server, as a sentence ("" when nothing).
    connection = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.listener: Listener | None = None
        self._notifier: QSocketNotifier | None = None
        self._worker: Worker | None = None
        self._lost = False
        self._said = 0.0  # when changed was last emitted (monotonic)
        self._due = False  # a changed is due at the end of the gap
        self._emitting = False  # the views are re-reading (changed is being emitted)
        self._again = False  # a notice came while they did
        self._started = 0  # when start() was called (seconds since 1970)

    def start(self, project: Project) -> None:
        self.stop()
        self.project = project
        self._started = int(time.time())  # (the other windows' "since", kept on reconnecting)
        self._connect()

    def stop(self) -> None:
        """Close the listener (saying goodbye to the other windows) and stop reconnecting."""
        self.project = None
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        self._drop_listener(say_bye=True)
        if self._lost:
            self._lost = False
            self.connection.emit("")

    @property
    def is_listening(self) -> bool:
        return self.listener is not None

    def _connect(self) -> None:
        assert self.project is not None
        worker = thread_worker(listen, str(self.project.location), self._started,
                               name="server listener")
        self._worker = worker
        worker.progress.connect(self._on_attempt)
        worker.finished.connect(lambda listener: self._on_listening(worker, listener))
        worker.failed.connect(lambda message: self._on_given_up(worker, message))

    def _on_attempt(self, _done: int, _total: int, what: str) -> None:
        if self.project is not None:
            self._lost = True
            self.connection.emit(what)

    def _on_listening(self, worker: Worker, listener: Listener | None) -> None:
        if worker is not self._worker or self.project is None:  # stopped meanwhile
            if listener is not None:
                listener.close()
            return
        self._worker = None
        if listener is None:
            return
        self.listener = listener
        self._notifier = QSocketNotifier(listener.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._on_readable)
        if self._lost:
            self._lost = False
            self.connection.emit("")
            self._emit_changed()  # what was committed while the connection was down
        self._say_others()

    def _on_given_up(self, worker: Worker, message: str) -> None:
        if worker is not self._worker or self.project is None:
            return
        self._worker = None
        self._lost = True
        self.connection.emit(f"No live changes from the server: {message}")

    def _on_readable(self) -> None:
        if self.listener is None:
            return
        try:
            notices = self.listener.read()
        except ServerError:  # (ConnectionLostError) the server or the network went away
            self._drop_listener(say_bye=False)
            self._lost = True
            where = describe(self.project.location) if self.project else "the server"
            self.connection.emit(f"The connection to {where} is lost; reconnecting…")
            if self.project is not None:
                self._connect()
            return
        payloads = {n.payload for n in notices}
        if CHANGED in payloads:
            self._say_changed()
        if payloads & {HELLO, BYE}:
            self._say_others(gone={n.pid for n in notices if n.payload == BYE})

    def _say_changed(self) -> None:
        """Emit :attr:`changed` now, or once at the end of :data:`MIN_GAP_S` after the last
        (counted from when the views finished re-reading)."""
        if self._emitting:  # read while the views re-read (a re-read that processes events)
            self._again = True
            return
        if self._due:  # the end of the gap will say it (even if its time has come)
            return
        wait_s = self._said + MIN_GAP_S - now()
        if wait_s <= 0:
            self._emit_changed()
        else:
            self._end_gap_in(wait_s)

    def _end_gap_in(self, wait_s: float) -> None:
        if not self._due:
            self._due = True
            QTimer.singleShot(int(wait_s * 1000) + 1, self, self._end_of_gap)

    def _end_of_gap(self) -> None:
        self._due = False
        if self._emitting:
            self._again = True
        elif self.project is not None:
            self._emit_changed()

    def _emit_changed(self) -> None:
        """Say :attr:`changed`; the gap to the next one counts from when the views have
        re-read (the slots return), so a re-read that takes longer than the gap is not
        followed at once by another, and a notice read during the re-read waits too."""
        self._emitting = True
        try:
            self.changed.emit()
        finally:
            self._emitting = False
            self._said = now()
        if self._again:
            self._again = False
            self._end_gap_in(MIN_GAP_S)

    def _say_others(self, gone: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        if self.project is None or self.listener is None:
            return
        try:
            found = visitors(self.project.db, exclude={self.listener.pid, *gone})
        except Exception:  # the main connection is down: said by the connection state
            return
        self.others.emit("" if not found else "Also open on " + "; ".join(
            v.describe() for v in found) + "; changes there appear here.")

    def _drop_listener(self, *, say_bye: bool) -> None:
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        if self.listener is not None:
            self.listener.close(say_bye=say_bye)
            self.listener = None
