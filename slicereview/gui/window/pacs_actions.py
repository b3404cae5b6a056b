"""The main window's File ▸ Import from PACS… (a mixin of
:class:`~slicereview.gui.window.main_window.MainWindow`, beside :mod:`.file_actions`): the study
list dialog, then the import in a worker with a progress dialog and Cancel; the end is reported as
a file import's (``_on_import_done`` / ``_on_import_failed``). And the log-in asked for when
an image on a PACS must be fetched again and the server refuses (:meth:`pacs_login`)."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressDialog

from slicereview.engines.dicomweb.errors import AuthenticationError
from slicereview.gui.common.workers import PacsImportWorker


class PacsActions:
    """See the module docstring."""

    def on_import_pacs(self) -> PacsImportWorker | None:
        from slicereview.gui.window.pacs_dialog import PacsDialog

        if self.gateway.project is None or self._import_worker is not None:
            return None
        dialog = PacsDialog(self)
        self._pacs_dialog = dialog  # (tests drive it)
        if dialog.exec() != PacsDialog.DialogCode.Accepted or not dialog.chosen():
            return None
        return self.start_pacs_import(dialog.url(), dialog.auth(), dialog.chosen())

    def start_pacs_import(self, url: str, auth: object, studies: list[str]
                          ) -> PacsImportWorker | None:
        if self.gateway.project is None or self._import_worker is not None:
            return None
        self.gateway.credentials.set(url, auth)  # the viewer fetches with them again
        worker = PacsImportWorker(self.gateway.project.location, url, auth, studies)
        progress = QProgressDialog("Importing from the PACS…", "Cancel", 0, 0, self)
        progress.setWindowTitle("Import from PACS")
        progress.setMinimumDuration(300)
        progress.canceled.connect(worker.cancel)
        self._import_dialog = progress
        worker.progress.connect(self._on_import_progress)
        worker.finished.connect(self._on_import_done)
        worker.failed.connect(self._on_import_failed)
        self._import_worker = worker  # one import at a time, files or PACS
        self.gateway.hold_changes()
        self._import_thread = worker.start()
        return worker

    def pacs_login(self, image: object, error: Exception) -> bool:
        """After ``error`` showing ``image``: when a PACS refused the credentials, ask for
        new ones (once per server and session, if the user cancels) and keep them in memory;
        True when the caller should try again."""
        from slicereview.engines.dicomweb.cache import RemoteInstance
        from slicereview.engines.dicomweb.http import origin
        from slicereview.gui.window.pacs_dialog import LoginDialog

        if not isinstance(error, AuthenticationError):
            return False
        location = self.gateway.file_of(image)
        if not isinstance(location, RemoteInstance):
            return False
        declined = self.__dict__.setdefault("_pacs_declined", set())
        server = origin(location.url)
        if server in declined:
            return False
        dialog = LoginDialog(server, str(error), self)
        if dialog.exec() != LoginDialog.DialogCode.Accepted or dialog.auth() is None:
            declined.add(server)
            return False
        self.gateway.credentials.set(location.url, dialog.auth())
        self.browser.forget_failures()
        self.refresh_images()  # (thumbnails that failed for want of credentials come back)
        return True
