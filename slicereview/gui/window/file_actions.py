"""The main window's File menu: new and open project, the demo, import and relink
(:class:`FileMenu`, a part of :class:`~slicereview.gui.window.main_window.MainWindow`).

The dialogs ask for paths; the work runs on the background API
(:mod:`slicereview.gui.common.background`): the import in a thread worker
(:func:`~slicereview.gui.common.workers.import_files`; a PACS import through
:meth:`FileMenu.run_import` too, one import at a time), the demo build in a process worker,
creating and relinking through the window's gateway; with a progress dialog and a message at
the end.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QProgressDialog

from slicereview.gui.common import file_dialogs, workers
from slicereview.gui.common import settings as user_settings
from slicereview.gui.common.background import Worker, process_worker, thread_worker
from slicereview.gui.window.connect_dialog import ConnectDialog, PasswordDialog
from slicereview.store import SUFFIX
from slicereview.store.errors import AuthenticationError, EmptyDatabaseError
from slicereview.store.location import describe, with_password

if TYPE_CHECKING:  # pydicom and SimpleITK stay out of the GUI's start-up
    from slicereview.app.images.importing import ImportReport
    from slicereview.engines.imaging.importer import SliceSelection
    from slicereview.gui.window.main_window import MainWindow


class FileMenu:
    """The File menu's slots of ``window`` (see the module docstring)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.gateway = window.gateway
        #: The import running (files or PACS; one at a time), or ``None``.
        self.import_worker: Worker | None = None
        #: The demo build running, or ``None``.
        self.demo_worker: Worker | None = None
        self._import_dialog: QProgressDialog | None = None
        self._import_step: Callable[[str], str] = str
        self._demo_dialog: QProgressDialog | None = None
        #: The open "Connect to server" or password dialog, or ``None``.
        self.server_dialog: ConnectDialog | PasswordDialog | None = None

    def slots(self) -> dict[str, Callable[[], object]]:
        """The menu actions this object answers, by name (:mod:`.actions`)."""
        return {"new_project": self.new_project, "open_project": self.open_project,
                "connect_server": self.connect_server,
                "open_demo": self.open_demo, "import_files": self.import_files,
                "import_folder": self.import_folder, "relink": self.relink,
                "close_project": self.gateway.close, "quit": self.window.close}

    def new_project(self) -> None:
        chosen = file_dialogs.save_file(self.window, "New project", "project", f"study{SUFFIX}",
                                        f"slicereview project (*{SUFFIX})", self.gateway.folder)
        if chosen is None:
            return
        name = str(chosen)
        path = Path(name) if name.endswith(SUFFIX) else Path(name).with_suffix(SUFFIX)
        try:
            self.gateway.create(path)
        except Exception as exc:
            QMessageBox.critical(self.window, "Cannot create project", str(exc))
            return
        user_settings.add_recent_project(path)

    def open_project(self) -> None:
        chosen = file_dialogs.open_file(
            self.window, "Open project", "project",
            f"slicereview project (*{SUFFIX});;Work package (*.zip);;All files (*)",
            self.gateway.folder)
        if chosen is None:
            return
        if chosen.name.lower().endswith(".zip"):
            self.window.packages.open_package(chosen)  # unpacked in a worker
        else:
            self.window.open_project(chosen)

    # -- a project on a server -----------------------------------------------------------------
    def connect_server(self) -> ConnectDialog:
        """Ask for a server project's URL (window-modal, :mod:`.connect_dialog`) and open it."""
        dialog = ConnectDialog(user_settings.recent_servers(), self.window)
        dialog.accepted.connect(lambda: self.open_server(dialog.url()))
        self.server_dialog = dialog
        dialog.open()
        return dialog

    def open_server(self, url: str, asked: bool = False) -> bool:
        """Open the server project at ``url`` like a file; remember the URL without a
        password; when the server asks for a password, ask for it (:class:`PasswordDialog`),
        and again when it refuses the one typed (``asked``: this URL's password was typed);
        an empty database this login may fill is offered to become a new project."""
        try:
            self.gateway.open(url)
        except AuthenticationError as exc:
            if exc.needs_password or (exc.password_refused and asked):
                dialog = PasswordDialog(describe(url), self.window,
                                        again=exc.password_refused)
                dialog.textValueSelected.connect(
                    lambda password: self.open_server(with_password(url, password),
                                                      asked=True))
                self.server_dialog = dialog
                dialog.open()
                return False
            QMessageBox.critical(self.window, "Cannot open project", str(exc))
            return False
        except EmptyDatabaseError as exc:
            if not exc.can_create:
                QMessageBox.critical(self.window, "Cannot open project", str(exc))
                return False
            answer = QMessageBox.question(
                self.window, "Empty database",
                f"{describe(url)} is an empty database. Make a new project there?")
            if answer != QMessageBox.StandardButton.Yes:
                return False
            try:
                self.gateway.create(url)
            except Exception as made:
                QMessageBox.critical(self.window, "Cannot create project", str(made))
                return False
        except Exception as exc:
            QMessageBox.critical(self.window, "Cannot open project", str(exc))
            return False
        if self.window.remember:
            user_settings.add_recent_server(describe(url))
        return True

    # -- the demo ------------------------------------------------------------------------------
    def open_demo(self) -> Worker | None:
        """Build the demo (first time; 20–25 s of CPU time) in a process worker, then open
        it. Closing the window cancels the build (a half-built demo is never used)."""
        from slicereview.demo import project as demo

        if self.demo_worker is not None:
            return None
        worker = process_worker(workers.build_demo, demo.default_demo_dir(), name="demo")
        dialog = QProgressDialog("Building the demo project…", "", 0, 0, self.window)
        dialog.setCancelButton(None)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)
        self._demo_dialog = dialog
        worker.progress.connect(self._on_demo_progress)
        worker.finished.connect(self._on_demo_done)
        worker.failed.connect(self._on_demo_failed)
        worker.cancelled.connect(self._end_demo)
        self.demo_worker = worker
        return worker

    def _on_demo_progress(self, done: int, total: int, what: str) -> None:
        if self._demo_dialog is not None:
            self._demo_dialog.setMaximum(total)
            self._demo_dialog.setValue(done)
            self._demo_dialog.setLabelText(f"Building the demo project: {what}…")

    def _end_demo(self) -> None:
        if self._demo_dialog is not None:
            self._demo_dialog.reset()
        self.demo_worker = None

    def _on_demo_done(self, path: Path) -> None:
        self._end_demo()
        self.window.open_project(Path(path))

    def _on_demo_failed(self, message: str) -> None:
        self._end_demo()
        QMessageBox.critical(self.window, "Cannot build the demo", message)

    # -- importing -----------------------------------------------------------------------------
    def import_files(self) -> None:
        files = file_dialogs.open_files(
            self.window, "Import images", "images",
            "Images (*.dcm *.DCM *.nii *.nii.gz *.nrrd *.nhdr *.mha *.mhd *.png *.tif *.tiff "
            "*.jpg *.jpeg);;All files (*)", self.gateway.folder)
        if files:
            self.ask_and_import(files)

    def import_folder(self) -> None:
        folder = file_dialogs.open_folder(self.window, "Import every image below a folder",
                                          "images", self.gateway.folder)
        if folder is not None:
            self.ask_and_import([folder])

    def ask_and_import(self, paths: list[Path]) -> Worker | None:
        """Ask which volume slices to import (when volumes may be among ``paths``), then
        import."""
        from slicereview.engines.imaging.formats import DICOM, SITK_FORMATS, detect_format
        from slicereview.gui.window.import_dialog import ImportOptionsDialog

        slices = None
        if any(p.is_dir() or detect_format(p) in SITK_FORMATS | {DICOM} for p in paths):
            dialog = ImportOptionsDialog(self.window)
            while True:
                if dialog.exec() != ImportOptionsDialog.DialogCode.Accepted:
                    return None
                try:
                    slices = dialog.selection()
                    break
                except ValueError as exc:
                    QMessageBox.warning(self.window, "Import options", str(exc))
        return self.start_import(paths, slices)

    def start_import(self, paths: list[Path],
                     slices: SliceSelection | None = None) -> Worker | None:
        """Import in a thread worker with a cancellable progress dialog."""
        project = self.gateway.project
        if project is None or self.import_worker is not None:
            return None
        worker = thread_worker(workers.import_files, project.location,
                               [Path(p) for p in paths], slices, name="import")
        return self.run_import(worker, "Import images", "Importing…")

    def run_import(self, worker: Worker, title: str, label: str,
                   step: Callable[[str], str] | None = None) -> Worker:
        """Show ``worker`` (an import of files or PACS studies) with a progress dialog and
        Cancel; its commits are re-read once, when it ends. ``step(what)`` is the dialog's
        text for a progress step (default: ``Importing NAME…``)."""
        self._import_step = step or (lambda what: f"Importing {Path(what).name}…")
        dialog = QProgressDialog(label, "Cancel", 0, 0, self.window)
        dialog.setWindowTitle(title)
        dialog.setMinimumDuration(300)
        dialog.canceled.connect(worker.cancel)
        self._import_dialog = dialog
        worker.progress.connect(self._on_import_progress)
        worker.finished.connect(self._on_import_done)
        worker.failed.connect(self._on_import_failed)
        worker.cancelled.connect(lambda: self._end_import())
        self.import_worker = worker
        self.gateway.hold_changes()  # its commits are ours: one re-read when it ends
        return worker

    def _on_import_progress(self, done: int, total: int, what: str) -> None:
        if self._import_dialog is not None:
            self._import_dialog.setMaximum(total)
            self._import_dialog.setValue(done)
            self._import_dialog.setLabelText(self._import_step(what))

    def _end_import(self) -> None:
        if self._import_dialog is not None:
            self._import_dialog.reset()
        self.import_worker = None
        self.gateway.release_changes()  # the new images are listed once, now

    def _on_import_done(self, report: ImportReport) -> None:
        self._end_import()
        self.window.statusBar().showMessage(report.summary(), 10000)
        details = report.details()
        if details:
            QMessageBox.information(self.window, "Import finished",
                                    "\n".join([report.summary(), "", *details]))

    def _on_import_failed(self, message: str) -> None:
        self._end_import()
        QMessageBox.critical(self.window, "Import failed", message)

    def relink(self) -> None:
        if self.gateway.project is None:
            return
        folder = file_dialogs.open_folder(self.window, "Folder that now holds the images",
                                          "images", self.gateway.folder)
        if folder is None:
            return
        here = self.gateway.project.is_server and self._relink_here()
        if here is None:
            return
        report = self.gateway.relink(folder, this_machine=here)
        QMessageBox.information(
            self.window, "Relink", (f"Found {report.relinked} file(s) on this machine (the "
                                    "project's paths are unchanged); " if here else
                                    f"Relinked {report.relinked} file(s); ") +
            f"{len(report.still_missing)} still missing; "
            f"{len(report.hash_mismatch)} found with different content (not relinked).")

    def _relink_here(self) -> bool | None:
        """A server project: relink for this machine only (``True``, the paths stay) or for
        everyone (``False``); ``None`` when cancelled (docs/server.md, "Relinking per
        machine")."""
        box = QMessageBox(QMessageBox.Icon.Question, "Relink",
                          "Is the storage under another folder on this machine only, or has "
                          "it moved for everyone who opens this project?", parent=self.window)
        box.setObjectName("relink_scope")
        here = box.addButton("Only this machine", QMessageBox.ButtonRole.AcceptRole)
        everyone = box.addButton("For everyone", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(here)
        box.exec()
        clicked = box.clickedButton()
        return True if clicked is here else False if clicked is everyone else None

    def stop(self) -> None:
        """The window closes: cancel the import (what is imported stays) and the demo build."""
        for worker in (self.import_worker, self.demo_worker):
            if worker is not None:
                worker.cancel()
                worker.wait(10000)
