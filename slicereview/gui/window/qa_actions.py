"""The main window's QA actions: work packages in the File menu and showing an image the
Overview tab picked.

:class:`QAActions` is a mixin of :class:`~slicereview.gui.window.main_window.MainWindow` (like
:class:`~slicereview.gui.window.file_actions.FileActions`). Export asks for the annotator and batch
(:class:`~slicereview.gui.window.package_dialog.PackageDialog`) and a file; merge asks for a
package zip. Both run in a worker with a progress dialog, as does opening a package zip with
File ▸ Open project… (checking and unpacking 200 stored mammograms takes about a second).
The merge report is shown at the end (added, updated, unchanged, kept, conflicts kept
apart); a refused package (another project, damaged, newer version) is one line in a
warning, and the project is untouched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QProgressDialog

from slicereview.gui.common.qa_workers import (
    ExportPackageWorker,
    MergePackageWorker,
    UnpackPackageWorker,
)
from slicereview.gui.window.package_dialog import PackageDialog


class QAActions:
    """File-menu package slots and :meth:`show_in_view` (see the module docstring)."""

    _package_worker: Any = None

    def show_in_view(self, image_id: int) -> None:
        """Switch to the View tab and show ``image_id`` (selected in the image list)."""
        self.tabs.setCurrentWidget(self.viewer)
        self.browser.select(image_id)
        if self.browser.current_id() != image_id:  # hidden by a filter
            self.show_image(image_id)

    def _start_package_job(self, worker: Any, label: str, done: Any) -> Any:
        dialog = QProgressDialog(label, "", 0, 0, self)
        dialog.setCancelButton(None)  # a merge is one transaction: it finishes or rolls back
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)
        self._package_dialog = dialog
        worker.finished.connect(done)
        worker.failed.connect(self._on_package_failed)
        self._package_worker = worker
        self._package_thread = worker.start()
        return worker

    def open_package(self, path: Path) -> UnpackPackageWorker | None:
        """Open a work package zip: checked and unpacked beside itself in a worker (see
        :func:`slicereview.app.qa.packages.unpack`), then its project is opened."""
        if self._package_worker is not None:
            return None
        return self._start_package_job(UnpackPackageWorker(path),
                                       f"Checking and unpacking {path.name}…",
                                       self._on_unpack_done)

    def _on_unpack_done(self, project: object) -> None:
        self._package_dialog.reset()
        self._package_worker = None
        self.open_project(Path(str(project)))

    def on_export_package(self) -> ExportPackageWorker | None:
        if not self.gateway.is_open or self._package_worker is not None:
            return None
        if not self.gateway.qa.annotator_names():
            QMessageBox.information(self, "Export work package", "This project has no "
                                    "annotator yet.")
            return None
        chooser = PackageDialog(self.gateway.qa, self)
        if chooser.exec() != QDialog.DialogCode.Accepted:
            return None
        annotator, batch = chooser.choice()
        path, _ = QFileDialog.getSaveFileName(self, "Save work package", f"{annotator}.zip",
                                              "Work package (*.zip)")
        if not path:
            return None
        out = Path(path) if path.endswith(".zip") else Path(path + ".zip")
        worker = ExportPackageWorker(self.gateway.qa.location(), annotator, batch, out)
        return self._start_package_job(worker, f"Writing the work package of {annotator}…",
                                       self._on_export_done)

    def _on_export_done(self, path: object) -> None:
        self._package_dialog.reset()
        self._package_worker = None
        self.statusBar().showMessage(f"Wrote the work package {path}", 10000)
        QMessageBox.information(self, "Export work package", f"Wrote {path}.\n\nThe annotator "
                                "opens the zip with File ▸ Open project… (it is unpacked beside "
                                "itself), works offline and sends the folder back zipped in the "
                                "same layout.")

    def on_merge_package(self) -> MergePackageWorker | None:
        if not self.gateway.is_open or self._package_worker is not None:
            return None
        path, _ = QFileDialog.getOpenFileName(self, "Merge work package", "",
                                              "Work package (*.zip);;All files (*)")
        if not path:
            return None
        worker = MergePackageWorker(self.gateway.qa.location(), Path(path))
        return self._start_package_job(worker, f"Merging {Path(path).name}…",
                                       self._on_merge_done)

    def _on_merge_done(self, report: object) -> None:
        self._package_dialog.reset()
        self._package_worker = None
        self.gateway.watch.check()  # the merge committed on its own connection: tell the views
        self.gateway.qa.merged()
        text = report.text  # type: ignore[attr-defined]
        self.last_merge_text = text
        self.statusBar().showMessage(f"Merged: {text}", 10000)
        QMessageBox.information(self, "Merge work package", f"Merged: {text}.")

    def _on_package_failed(self, message: str) -> None:
        self._package_dialog.reset()
        self._package_worker = None
        self.last_merge_text = message
        QMessageBox.warning(self, "Work package", message.splitlines()[0] if message else
                            "The work package could not be handled.")
