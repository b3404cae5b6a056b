"""The main window's File ▸ Import from PACS… and the PACS log-in (:class:`PacsImport`, a part
of :class:`~slicereview.gui.window.main_window.MainWindow`, beside :mod:`.file_actions`): the
study list dialog, then the import in a thread worker with a progress dialog and Cancel (the
listing of the chosen studies' series and instances counted in it, Cancel honoured there too),
shown and ended as a file import (:meth:`~.file_actions.FileMenu.run_import`: one import at a time).
And the log-in asked for when an image on a PACS must be fetched again and the server refuses
(:meth:`PacsImport.login`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from slicereview.engines.dicomweb.auth import Auth
from slicereview.engines.dicomweb.errors import AuthenticationError
from slicereview.gui.common import workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.model import Image

if TYPE_CHECKING:
    from slicereview.gui.window.main_window import MainWindow
    from slicereview.gui.window.pacs_dialog import PacsDialog


class PacsImport:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.gateway = window.gateway
        #: The study list dialog last opened (tests drive it).
        self.dialog: PacsDialog | None = None
        #: PACS servers whose log-in the user cancelled this session (not asked again).
        self.declined: set[str] = set()

    def slots(self) -> dict[str, Callable[[], object]]:
        return {"import_pacs": self.import_pacs}

    def import_pacs(self) -> Worker | None:
        from slicereview.gui.window.pacs_dialog import PacsDialog

        if self.gateway.project is None or self.window.file_menu.import_worker is not None:
            return None
        dialog = PacsDialog(self.window, imported=self.gateway.pacs_studies())
        self.dialog = dialog
        if dialog.exec() != PacsDialog.DialogCode.Accepted or not dialog.chosen():
            return None
        return self.start_import(dialog.url(), dialog.auth(), dialog.chosen())

    def start_import(self, url: str, auth: Auth | None, studies: list[str]) -> Worker | None:
        project = self.gateway.project
        if project is None or self.window.file_menu.import_worker is not None:
            return None
        self.gateway.credentials.set(url, auth)  # the viewer fetches with them again
        worker = thread_worker(workers.import_pacs, project.location, url, auth,
                               list(studies), name="pacs-import")
        return self.window.file_menu.run_import(worker, "Import from PACS",
                                                "Importing from the PACS…", _step)

    def login(self, image: Image, error: Exception) -> bool:
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
        server = origin(location.url)
        if server in self.declined:
            return False
        dialog = LoginDialog(server, str(error), self.window)
        if dialog.exec() != LoginDialog.DialogCode.Accepted or dialog.auth() is None:
            self.declined.add(server)
            return False
        self.gateway.credentials.set(location.url, dialog.auth())
        self.window.browser.forget_failures()
        self.window.refresh_images()  # (thumbnails that failed for want of credentials)
        return True


def _step(what: str) -> str:
    """The progress dialog's text: a listing step as the import says it ("Listing study 3 of
    40…"), else the instance being fetched (its SOP Instance UID)."""
    if what and not set(what) <= set("0123456789."):
        return f"{what[:1].upper()}{what[1:]}…"
    return f"Importing {what}…" if what else "Importing from the PACS…"
