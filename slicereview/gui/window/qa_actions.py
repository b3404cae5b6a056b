"""The main window's work-package actions in the File menu (:class:`PackageMenu`, a part of
:class:`~slicereview.gui.window.main_window.MainWindow`).

Export asks for the annotator and batch (:class:`~slicereview.gui.window.package_dialog.
PackageDialog`) and a file; merge asks for a package zip. Both run in a thread worker with a
progress dialog, as does opening a package zip with File ▸ Open project… (checking and
unpacking 200 stored mammograms takes about a second). The merge report is shown at the end
(added, updated, unchanged, kept, conflicts kept apart); a refused package (another project,
damaged, newer version) is one line in a warning, and the project is untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QProgressDialog

from slicereview.gui.common import file_dialogs, qa_workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.window.package_dialog import PackageDialog

if TYPE_CHECKING:
    from slicereview.app.qa.packages import MergeReport
    from slicereview.gui.window.main_window import MainWindow


class PackageMenu:
    """Export, merge and open work packages for ``window`` (see the module docstring)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.gateway = window.gateway
        #: The package job running (one at a time), or ``None``.
        self.worker: Worker | None = None
        #: The last merge's report (or refusal), as shown.
        self.last_merge_text = ""
        self._dialog: QProgressDialog | None = None

    def slots(self) -> dict[str, Callable[[], object]]:
        return {"export_package": self.export_package, "merge_package": self.merge_package}

    def _start(self, worker: Worker, label: str, done: Callable[[Any], None]) -> Worker:
        dialog = QProgressDialog(label, "", 0, 0, self.window)
        dialog.setCancelButton(None)  # a merge is one transaction: it finishes or rolls back
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)
        self._dialog = dialog
        worker.finished.connect(done)
        worker.failed.connect(self._on_failed)
        self.worker = worker
        return worker

    def _end(self) -> None:
        if self._dialog is not None:
            self._dialog.reset()
        self.worker = None

    def open_package(self, path: Path) -> Worker | None:
        """Open a work package zip: checked and unpacked beside itself in a worker (see
        :func:`slicereview.app.qa.packages.unpack`), then its project is opened."""
        if self.worker is not None:
            return None
        return self._start(thread_worker(qa_workers.unpack_package, Path(path)),
                           f"Checking and unpacking {path.name}…", self._on_unpacked)

    def _on_unpacked(self, project: Path) -> None:
        self._end()
        self.window.open_project(Path(project))

    def export_package(self) -> Worker | None:
        if not self.gateway.is_open or self.worker is not None:
            return None
        qa = self.gateway.qa
        if not qa.annotator_names():
            QMessageBox.information(self.window, "Export work package",
                                    "This project has no annotator yet.")
            return None
        chooser = PackageDialog(qa, self.window)
        if chooser.exec() != QDialog.DialogCode.Accepted:
            return None
        annotator, batch = chooser.choice()
        chosen = file_dialogs.save_file(self.window, "Save work package", "package",
                                        f"{annotator}.zip", "Work package (*.zip)",
                                        self.gateway.folder)
        if chosen is None:
            return None
        path = str(chosen)
        out = Path(path) if path.endswith(".zip") else Path(path + ".zip")
        worker = thread_worker(qa_workers.export_package, qa.location(), annotator, batch,
                               out)
        return self._start(worker, f"Writing the work package of {annotator}…",
                           self._on_exported)

    def _on_exported(self, path: Path) -> None:
        self._end()
        self.window.statusBar().showMessage(f"Wrote the work package {path}", 10000)
        QMessageBox.information(self.window, "Export work package", f"Wrote {path}.\n\nThe "
                                "annotator opens the zip with File ▸ Open project… (it is "
                                "unpacked beside itself), works offline and sends the folder "
                                "back zipped in the same layout.")

    def merge_package(self) -> Worker | None:
        if not self.gateway.is_open or self.worker is not None:
            return None
        path = file_dialogs.open_file(self.window, "Merge work package", "package",
                                      "Work package: the zip, or the project.srproj of the "
                                      "folder it was unpacked to (*.zip project.srproj);;All "
                                      "files (*)", self.gateway.folder)
        if path is None:
            return None
        worker = thread_worker(qa_workers.merge_package, self.gateway.qa.location(),
                               Path(path))
        return self._start(worker, f"Merging {Path(path).name}…", self._on_merged)

    def _on_merged(self, report: MergeReport) -> None:
        self._end()
        self.gateway.watch.check()  # the merge committed on its own connection: tell the views
        self.gateway.qa.merged()
        text = report.text
        self.last_merge_text = text
        self.window.statusBar().showMessage(f"Merged: {text}", 10000)
        QMessageBox.information(self.window, "Merge work package", f"Merged: {text}.")

    def _on_failed(self, message: str) -> None:
        self._end()
        self.last_merge_text = message
        QMessageBox.warning(self.window, "Work package", message.splitlines()[0] if message
                            else "The work package could not be handled.")

    def stop(self) -> None:
        """The window closes: let a package job finish (a merge is one transaction)."""
        if self.worker is not None:
            self.worker.wait(30000)
