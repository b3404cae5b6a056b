"""File ▸ Import from PACS…: connect to a DICOMweb service, search and list its studies
(date, modality, description, number of images) and choose the ones to import.

The list is fetched in a thread worker
(:func:`slicereview.gui.common.workers.list_pacs_studies`); a server that fails or misbehaves
shows its one-sentence message under the list. Credentials typed here are kept in
the gateway's memory for this session (:class:`~slicereview.app.images.pacs.Credentials`), never
stored; the fields start from ``SLICEREVIEW_DICOMWEB_USER``/``_PASSWORD``/``_TOKEN``. The
address starts as the project's PACS (the one most of its PACS images came from; else the last
one typed in this session), and the studies already imported from it are marked "imported" in
the list.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.images.pacs import ENV_PASSWORD, ENV_TOKEN, ENV_USER
from slicereview.app.images.pacs_listing import StudyList
from slicereview.engines.dicomweb.auth import Auth
from slicereview.gui.common import workers
from slicereview.gui.common.background import Worker, thread_worker

DEFAULT_URL = "http://localhost:8042/dicom-web"
COLUMNS = ("Date", "Modality", "Description", "Images", "In the project")
_last_url = {"url": DEFAULT_URL}


class PacsDialog(QDialog):
    """See the module docstring; :meth:`chosen` after ``exec()`` names the studies."""

    def __init__(self, parent: QWidget | None = None, auth: Auth | None = None,
                 imported: dict[str, set[str]] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import from PACS")
        self.resize(760, 520)
        #: The project's PACS addresses (most used first) and the studies imported from each.
        self.imported = imported or {}
        self.url_edit = QLineEdit(next(iter(self.imported), _last_url["url"]))
        self.user_edit = QLineEdit(auth.user if auth and auth.kind == "basic"
                                   else os.environ.get(ENV_USER, ""))
        self.password_edit = QLineEdit(auth.secret if auth and auth.kind == "basic"
                                       else os.environ.get(ENV_PASSWORD, ""))
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit = QLineEdit(auth.secret if auth and auth.kind == "bearer"
                                    else os.environ.get(ENV_TOKEN, ""))
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText("or a bearer token (instead of user and password)")
        form = QFormLayout()
        form.addRow("DICOMweb address:", self.url_edit)
        form.addRow("User name:", self.user_edit)
        form.addRow("Password:", self.password_edit)
        form.addRow("Token:", self.token_edit)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("description, or date YYYYMMDD[-YYYYMMDD]")
        self.search_button = QPushButton("&Search")
        row = QHBoxLayout()
        row.addWidget(self.search_edit, 1)
        row.addWidget(self.search_button)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.status = QLabel("Give the address and press Search to list the studies.")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.buttons.addButton(
            "&Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.search_button.clicked.connect(self.search)
        self.search_edit.returnPressed.connect(self.search)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.rows: list = []
        self.worker: Worker | None = None

    def url(self) -> str:
        return self.url_edit.text().strip()

    def auth(self) -> Auth | None:
        """What the fields say: a token, else user and password, else nothing."""
        token = self.token_edit.text().strip()
        if token:
            return Auth.bearer(token)
        user = self.user_edit.text().strip()
        return Auth.basic(user, self.password_edit.text()) if user else None

    def search(self) -> None:
        if self.worker is not None:
            return
        _last_url["url"] = self.url()
        self.status.setText("Asking the PACS…")
        self.search_button.setEnabled(False)
        worker = thread_worker(workers.list_pacs_studies, self.url(), self.auth(),
                               self.search_edit.text(), name="pacs-studies")
        worker.finished.connect(self._listed)
        worker.failed.connect(self._failed)
        self.worker = worker

    def wait(self, msecs: int = 30000) -> bool:
        """Block until a running listing is done (tests)."""
        return self.worker is None or self.worker.wait(msecs)

    def _listed(self, found: StudyList) -> None:
        self.worker = None
        self.search_button.setEnabled(True)
        self.rows = list(found.rows)
        self.table.setRowCount(len(self.rows))
        here = self.imported.get(self.url(), set())
        for r, study in enumerate(self.rows):
            values = (study.date, study.modalities, study.description,
                      "" if study.images is None else str(study.images),
                      "imported" if study.study_uid in here else "")
            for c, text in enumerate(values):
                item = QTableWidgetItem(text)
                if c == 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        listed = f"{len(self.rows)} stud{'y' if len(self.rows) == 1 else 'ies'}"
        if found.more:  # (the first the PACS sent, not the newest: QIDO-RS cannot sort)
            self.status.setText(f"These are the first {listed} the PACS sent, and it has "
                                "more: search by description or date to find the others, "
                                "then choose the ones to import.")
        else:
            self.status.setText(f"{listed}; choose the ones to import." if self.rows
                                else "No study matches.")
        done = sum(s.study_uid in here for s in self.rows)
        if done:  # (importing one again adds only the images not in the project yet)
            self.status.setText(self.status.text() + f" {done} of them are in the project "
                                "already (imported).")

    def _failed(self, message: str) -> None:
        self.worker = None
        self.search_button.setEnabled(True)
        self.status.setText(message)

    def _selection_changed(self) -> None:
        self.import_button.setEnabled(bool(self.chosen()))

    def chosen(self) -> list[str]:
        """The Study Instance UIDs of the selected rows."""
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.rows[r].study_uid for r in rows if r < len(self.rows)]


class LoginDialog(QDialog):
    """User name and password, or a token, for ``server`` after it refused (``message``)."""

    def __init__(self, server: str, message: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Log in to the PACS")
        self.user_edit = QLineEdit(os.environ.get(ENV_USER, ""))
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit = QLineEdit()
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText("or a bearer token")
        text = QLabel(f"{message}\n\nThe images of this project at {server} are fetched again "
                      "when their cached copy is gone. The credentials are kept for this "
                      "session only.")
        text.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow(text)
        form.addRow("User name:", self.user_edit)
        form.addRow("Password:", self.password_edit)
        form.addRow("Token:", self.token_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def auth(self) -> Auth | None:
        token = self.token_edit.text().strip()
        if token:
            return Auth.bearer(token)
        user = self.user_edit.text().strip()
        return Auth.basic(user, self.password_edit.text()) if user else None
