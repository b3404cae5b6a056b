"""File ▸ Connect to server…: the URL of a project on a PostgreSQL server.

:class:`ConnectDialog` asks for a libpq URL (``postgresql://USER@HOST:PORT/DATABASE``, or
``postgresql:///DATABASE?host=/socket/folder`` on this machine) and offers the URLs opened
lately (:func:`slicereview.gui.common.settings.recent_servers`). It has no password field and
nothing it remembers holds a password: libpq reads one from ``~/.pgpass`` or ``PGPASSWORD``,
and when the server asks for one the window asks for it once (:class:`PasswordDialog`) and
keeps it in memory for that project only. What then happens to the URL (opening it like a
file) is :meth:`~slicereview.gui.window.file_actions.FileMenu.connect_server`.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QInputDialog,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

#: What a server project's URL starts with (the store accepts both).
SCHEMES = ("postgresql://", "postgres://")
_HINT = ("A project on a PostgreSQL server, as a URL:\n"
         "  postgresql://USER@HOST:PORT/DATABASE\n"
         "  postgresql:///DATABASE?host=/var/run/postgresql   (a server on this machine)\n"
         "Leave the password out: it is asked for when the server wants one, or read from "
         "~/.pgpass.")


class ConnectDialog(QDialog):
    """The URL to connect to (see the module docstring); :meth:`url` once accepted."""

    def __init__(self, recent: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect to server")
        self.combo = QComboBox()
        self.combo.setObjectName("server_url")
        self.combo.setEditable(True)
        self.combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.combo.addItems(recent)
        self.combo.setMinimumWidth(520)
        line = self.combo.lineEdit()
        if line is not None:
            line.setPlaceholderText("postgresql://user@host:5432/database")
        self.problem = QLabel()
        self.problem.setStyleSheet("QLabel { color: #a00000; }")
        self.problem.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Connect")
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(_HINT))
        layout.addWidget(self.combo)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

    def url(self) -> str:
        return self.combo.currentText().strip()

    def _check(self) -> None:
        if not self.url().lower().startswith(SCHEMES):
            self.problem.setText("Type a URL that starts with postgresql:// (see above).")
            self.problem.show()
            return
        self.accept()


class PasswordDialog(QInputDialog):
    """The password the server asked for (shown as dots; kept in memory only)."""

    def __init__(self, where: str, parent: QWidget | None = None, *, again: bool = False
                 ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Password")
        self.setLabelText(f"The server refused that password for {where}. Type it again:"
                          if again else f"The server asks for a password for {where}:")
        self.setTextEchoMode(QLineEdit.EchoMode.Password)
