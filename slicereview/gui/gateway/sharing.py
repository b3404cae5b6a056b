"""Two instances on one project file: notice the other one and its changes.

:class:`ProjectWatch` belongs to the gateway. While a project is open it

* holds the project's lock file (:mod:`slicereview.store.lockfile`) and says, through
  :attr:`ProjectWatch.also_open`, when another instance has the project open ("Also open on
  HOST by USER since TIME; changes there appear here"; an empty text when nobody else has);
  the lock's heartbeat runs every :data:`~slicereview.store.lockfile.HEARTBEAT_S` seconds;
* checks ``PRAGMA data_version`` every :data:`POLL_MS` and before each write
  (:meth:`ProjectWatch.check`); a change means another connection committed, and
  :attr:`ProjectWatch.changed_elsewhere` tells the gateway to drop what it cached and the views
  to re-read what they show.

A server project has no lock file and needs no polling: :class:`~.server_watch.ServerWatch`
listens for the server's change notices, lists who else has it open and says when the
connection to the server is lost (that sentence comes first in :attr:`ProjectWatch.message`).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from slicereview.gui.gateway.server_watch import ServerWatch
from slicereview.store import Project
from slicereview.store.lockfile import HEARTBEAT_S, ProjectLock

#: How often the file is checked for other connections' commits.
POLL_MS = 1000


class ProjectWatch(QObject):
    #: Another connection committed to the open project.
    changed_elsewhere = Signal()
    #: Who else has the project open, or what is wrong with the connection to the server, as
    #: a sentence ("" when nobody and nothing).
    also_open = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.lock: ProjectLock | None = None
        self.message = ""
        self._version = 0
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self.check)
        self._beat = QTimer(self)
        self._beat.setInterval(HEARTBEAT_S * 1000)
        self._beat.timeout.connect(self.heartbeat)
        #: The server's notices (a server project only).
        self.server = ServerWatch(self)
        self.server.changed.connect(self.check)
        self.server.others.connect(lambda text: self._set_parts(others=text))
        self.server.connection.connect(lambda text: self._set_parts(connection=text))
        self._others = ""
        self._connection = ""

    def start(self, project: Project) -> None:
        self.stop()
        self.project = project
        self._version = project.data_version()
        # The lock file beside a project file says who else has it open; a server project
        # has no file beside it (its change counter is watched all the same).
        if project.path is None:
            self.server.start(project)
            return
        self.lock = ProjectLock(project.path)
        self.heartbeat()
        self._poll.start()
        self._beat.start()

    def stop(self) -> None:
        self._poll.stop()
        self._beat.stop()
        self.server.stop()
        if self.lock is not None:
            self.lock.release()
        self.lock = None
        self.project = None
        self._others = self._connection = ""
        self._set_message("")

    def heartbeat(self) -> None:
        """Refresh our lock (or take over a free or stale one) and say who else is there."""
        if self.lock is None:
            return
        other = self.lock.acquire()
        self._set_parts(others="" if other is None else
                        f"Also open on {other.describe()}; changes there appear here.")

    def _set_parts(self, *, others: str | None = None, connection: str | None = None) -> None:
        self._others = self._others if others is None else others
        self._connection = self._connection if connection is None else connection
        self._set_message(self._connection or self._others)

    def _set_message(self, text: str) -> None:
        if text != self.message:
            self.message = text
            self.also_open.emit(text)

    def check(self) -> bool:
        """``True`` (and :attr:`changed_elsewhere`) if another connection committed since the
        last check."""
        if self.project is None:
            return False
        try:
            version = self.project.data_version()
        except Exception:  # closed under us: the gateway is closing it
            return False
        if version == self._version:
            return False
        self._version = version
        self.changed_elsewhere.emit()
        return True


class SharingBanner(QWidget):
    """A thin bar above the tabs while another instance has the project open (non-blocking:
    work goes on; *Hide* hides it until the next change of who else is there)."""

    def __init__(self, watch: ProjectWatch, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sharing_banner")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet("#sharing_banner { background: #fff4d6; border-bottom: 1px solid "
                           "#e0c060; }")
        self.label = QLabel()
        # dark text on the light bar whatever the desktop theme (a dark palette has light text)
        self.label.setStyleSheet("QLabel { color: #3a2a00; background: transparent; }")
        self.label.setWordWrap(True)
        hide = QPushButton("Hide")
        hide.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 8, 3)
        layout.addWidget(self.label, 1)
        layout.addWidget(hide)
        watch.also_open.connect(self.show_message)
        self.show_message(watch.message)

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self.setVisible(bool(text))
