"""The main window's file actions: new/open project, the demo, import and relink.

:class:`FileActions` is a mixin of :class:`~slicereview.gui.window.main_window.MainWindow`, split
out of ``main_window.py`` to keep that module short. The dialogs ask for paths; the work runs in
the workers of :mod:`slicereview.gui.common.workers` (import, demo) or through the window's gateway
(create, relink), with a progress dialog and a message at the end. It uses the window's
``gateway``, ``open_project`` and the ``_demo_*`` / ``_import_*`` attributes set up in
``MainWindow.__init__``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog

from slicereview.gui.common import settings as user_settings
from slicereview.gui.common.workers import DemoWorker, ImportWorker
from slicereview.store import SUFFIX

if TYPE_CHECKING:  # pydicom and SimpleITK stay out of the GUI's start-up
    from slicereview.engines.imaging.importer import SliceSelection


class FileActions:
    """File-menu slots of the main window (see the module docstring)."""

    def on_new_project(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New project", "",
                                              f"slicereview project (*{SUFFIX})")
        if not path:
            return
        path = Path(path).with_suffix(SUFFIX) if not path.endswith(SUFFIX) else Path(path)
        try:
            self.gateway.create(path)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot create project", str(exc))
            return
        user_settings.add_recent_project(path)

    def on_open_project(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open project", "",
            f"slicereview project (*{SUFFIX});;Work package (*.zip);;All files (*)")
        if path.lower().endswith(".zip"):
            self.open_package(Path(path))  # unpacked in a worker (qa_actions.py)
        elif path:
            self.open_project(Path(path))

    def on_open_demo(self) -> DemoWorker | None:
        """Build the demo (first time; 20–25 s of CPU time) in a worker thread, then open it."""
        if self._demo_worker is not None:
            return None
        worker = DemoWorker()
        dialog = QProgressDialog("Building the demo project…", "", 0, 0, self)
        dialog.setCancelButton(None)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)
        self._demo_dialog = dialog
        worker.progress.connect(self._on_demo_progress)
        worker.finished.connect(self._on_demo_done)
        worker.failed.connect(self._on_demo_failed)
        self._demo_worker = worker
        self._demo_thread = worker.start()
        return worker

    def _on_demo_progress(self, done: int, total: int, what: str) -> None:
        self._demo_dialog.setMaximum(total)
        self._demo_dialog.setValue(done)
        self._demo_dialog.setLabelText(f"Building the demo project: {what}…")

    def _on_demo_done(self, path: object) -> None:
        self._demo_dialog.reset()
        self._demo_worker = None
        self.open_project(Path(path))

    def _on_demo_failed(self, message: str) -> None:
        self._demo_dialog.reset()
        self._demo_worker = None
        QMessageBox.critical(self, "Cannot build the demo", message)

    def on_import_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Import images", "",
            "Images (*.dcm *.DCM *.nii *.nii.gz *.nrrd *.nhdr *.mha *.mhd *.png *.tif *.tiff "
            "*.jpg *.jpeg);;All files (*)")
        if files:
            self.ask_and_import([Path(f) for f in files])

    def on_import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Import every image below a folder")
        if folder:
            self.ask_and_import([Path(folder)])

    def ask_and_import(self, paths: list[Path]) -> ImportWorker | None:
        """Ask which volume slices to import (when volumes may be among ``paths``), then
        import."""
        from slicereview.engines.imaging.formats import DICOM, SITK_FORMATS, detect_format
        from slicereview.gui.window.import_dialog import ImportOptionsDialog

        slices = None
        if any(p.is_dir() or detect_format(p) in SITK_FORMATS | {DICOM} for p in paths):
            dialog = ImportOptionsDialog(self)
            while True:
                if dialog.exec() != ImportOptionsDialog.DialogCode.Accepted:
                    return None
                try:
                    slices = dialog.selection()
                    break
                except ValueError as exc:
                    QMessageBox.warning(self, "Import options", str(exc))
        return self.start_import(paths, slices)

    def start_import(self, paths: list[Path],
                     slices: SliceSelection | None = None) -> ImportWorker | None:
        """Import in a worker thread with a cancellable progress dialog."""
        if self.gateway.project is None or self._import_worker is not None:
            return None
        worker = ImportWorker(self.gateway.project.location, paths, slices)
        dialog = QProgressDialog("Importing…", "Cancel", 0, 0, self)
        dialog.setWindowTitle("Import images")
        dialog.setMinimumDuration(300)
        dialog.canceled.connect(worker.cancel)
        self._import_dialog = dialog
        # Bound methods of this window: Qt queues the calls into the GUI thread.
        worker.progress.connect(self._on_import_progress)
        worker.finished.connect(self._on_import_done)
        worker.failed.connect(self._on_import_failed)
        self._import_worker = worker
        self.gateway.hold_changes()  # its commits are ours: one re-read when it ends
        self._import_thread = worker.start()
        return worker

    def _on_import_progress(self, done: int, total: int, what: str) -> None:
        self._import_dialog.setMaximum(total)
        self._import_dialog.setValue(done)
        self._import_dialog.setLabelText(f"Importing {Path(what).name}…")

    def _on_import_done(self, report: object) -> None:
        self._import_dialog.reset()
        self._import_worker = None
        self.gateway.release_changes()  # the new images are listed once, now
        self.statusBar().showMessage(report.summary(), 10000)
        details = report.details()
        if details:
            QMessageBox.information(self, "Import finished",
                                    "\n".join([report.summary(), "", *details]))

    def _on_import_failed(self, message: str) -> None:
        self._import_dialog.reset()
        self._import_worker = None
        self.gateway.release_changes()
        QMessageBox.critical(self, "Import failed", message)

    def on_relink(self) -> None:
        if self.gateway.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Folder that now holds the images")
        if not folder:
            return
        report = self.gateway.relink(folder)
        QMessageBox.information(
            self, "Relink", f"Relinked {report.relinked} file(s); "
            f"{len(report.still_missing)} still missing; "
            f"{len(report.hash_mismatch)} found with different content (not relinked).")
