"""Owner ▸ Models…: the project's model raters, importing their predictions, running an ONNX
model (docs/models.md).

* **The list**: each model rater by its label ``NAME@VERSION`` (simulated ones say so), its
  licence, and its predictions: images, those with polygons, those where it found nothing.
  Models are listed here and apart in every table; they are never counted as people.
* **Import predictions…**: the model's ``NAME[@VERSION]``, the two thresholds (certain 0.5,
  uncertain 0.3 by default) and files or a folder (PNG/TIFF, NIfTI, DICOM SEG); matched to the
  images as ``slicereview predictions import`` matches them, one line per file in the result.
* **Run an ONNX model…**: the ``.onnx`` file and its card; it runs on the images listed in
  the image list (every image, unless it is filtered) in the background, tile by tile in the
  model's own process, with a progress bar and **Cancel** (the images done are kept).

Both run in the one background API (:func:`~slicereview.gui.common.background.thread_worker`)
on their own connection; the window re-reads once when they end.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.common import workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.gateway.models import ModelsService

COLUMNS = ("Model", "Licence", "Images", "With polygons", "Nothing found")


class ModelsDialog(QDialog):
    """The dialog; ``images()`` gives the image ids a run is limited to (``[]``: all)."""

    def __init__(self, models: ModelsService, images: Callable[[], list[int]] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Models: predictions as raters")
        self.models = models
        self.images = images or (lambda: [])
        self.worker: Worker | None = None
        layout = QVBoxLayout(self)
        note = QLabel("A model is a rater of kind model: its predictions are its finished "
                      "annotations, listed apart and never counted as a person.")
        note.setWordWrap(True)
        layout.addWidget(note)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("models_table")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setMinimumHeight(150)
        layout.addWidget(self.table, 1)

        box = QGroupBox("Import predictions (PNG/TIFF, NIfTI, DICOM SEG)")
        form = QFormLayout(box)
        self.model_name = QLineEdit()
        self.model_name.setObjectName("model_name")
        self.model_name.setPlaceholderText("NAME@VERSION, e.g. bac-unet@1.2")
        form.addRow("Model:", self.model_name)
        self.certain = _threshold(0.5)
        self.uncertain = _threshold(0.3)
        row = QHBoxLayout()
        row.addWidget(QLabel("certain from p ≥"))
        row.addWidget(self.certain)
        row.addWidget(QLabel("uncertain from p ≥"))
        row.addWidget(self.uncertain)
        row.addStretch(1)
        form.addRow("Thresholds:", _widget(row))
        buttons = QHBoxLayout()
        self.import_files = QPushButton("Import files…")
        self.import_files.setObjectName("import_prediction_files")
        self.import_files.clicked.connect(lambda: self.choose_and_import(folder=False))
        self.import_folder = QPushButton("Import a folder…")
        self.import_folder.clicked.connect(lambda: self.choose_and_import(folder=True))
        buttons.addWidget(self.import_files)
        buttons.addWidget(self.import_folder)
        buttons.addStretch(1)
        form.addRow(_widget(buttons))
        layout.addWidget(box)

        box = QGroupBox("Run an ONNX model (onnxruntime, CPU; tiled over each whole image)")
        form = QFormLayout(box)
        self.onnx_file = _path_row(form, "Model file:", "ONNX models (*.onnx)", self)
        self.card_file = _path_row(form, "Model card:", "Model cards (*.json)", self)
        self.onnx_file.setObjectName("onnx_file")
        self.card_file.setObjectName("card_file")
        self.run_button = QPushButton("Run on the listed images")
        self.run_button.setObjectName("run_model")
        self.run_button.clicked.connect(self.start_run)
        form.addRow(self.run_button)
        layout.addWidget(box)

        progress = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setObjectName("models_progress")
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("models_cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        progress.addWidget(self.progress, 1)
        progress.addWidget(self.cancel_button)
        layout.addLayout(progress)
        self.output = QPlainTextEdit()
        self.output.setObjectName("models_result")
        self.output.setReadOnly(True)
        self.output.setMaximumHeight(140)
        layout.addWidget(self.output)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        self.refresh()
        self.resize(940, 720)

    # -- the list --------------------------------------------------------------------------
    def refresh(self) -> None:
        rows = self.models.models()
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = (row.label + ("  (simulated)" if row.simulated else ""),
                     row.licence or "–", str(row.images), str(row.submitted), str(row.empty))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0 and row.description:
                    item.setToolTip(row.description)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()

    # -- importing -------------------------------------------------------------------------
    def choose_and_import(self, folder: bool) -> Worker | None:
        if folder:
            chosen = QFileDialog.getExistingDirectory(self, "A folder of prediction files")
            paths = [Path(chosen)] if chosen else []
        else:
            names, _ = QFileDialog.getOpenFileNames(
                self, "Prediction files", "",
                "Predictions (*.png *.tif *.tiff *.nii *.nii.gz *.dcm);;All files (*)")
            paths = [Path(n) for n in names]
        return self.start_import(paths) if paths else None

    def start_import(self, paths: list[Path]) -> Worker | None:
        """Import ``paths`` as the named model's predictions, in the background."""
        model = self.model_name.text().strip()
        if not model:
            self.output.setPlainText("Name the model first (NAME or NAME@VERSION).")
            return None
        worker = thread_worker(workers.import_predictions, self.models.location(), model, paths,
                               self.certain.value(), self.uncertain.value(),
                               name="predictions")
        return self._start(worker, f"Importing predictions of {model}…",
                           lambda report: "\n".join([*report.lines(), report.summary()]))

    # -- running ---------------------------------------------------------------------------
    def start_run(self) -> Worker | None:
        """Run the chosen ONNX model with its card on the images, in the background."""
        model, card = self.onnx_file.text().strip(), self.card_file.text().strip()
        if not model or not card:
            self.output.setPlainText("Choose the model's .onnx file and its card (.json).")
            return None
        ids = self.images() or None
        worker = thread_worker(workers.run_model, self.models.location(), Path(model), Path(card),
                               ids, name="model")
        return self._start(worker, f"Running {Path(model).name}…", lambda report: "\n".join(
            [*(f"failed     {case}: {why}" for case, why in report.failed), report.summary()]))

    # -- the one worker --------------------------------------------------------------------
    def _start(self, worker: Worker, text: str, describe: Callable) -> Worker:
        self.worker = worker
        self.output.setPlainText(text)
        self.progress.setRange(0, 0)
        self._busy(True)
        self.models.hold()
        worker.progress.connect(self._on_progress)
        worker.finished.connect(lambda report: self._ended(describe(report)))
        worker.failed.connect(lambda message: self._ended(message))
        worker.cancelled.connect(lambda: self._ended("Cancelled: what was done is kept."))
        return worker

    def _on_progress(self, done: int, total: int, what: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.progress.setFormat(f"{what}  %p%" if what else "%p%")

    def _busy(self, busy: bool) -> None:
        for button in (self.import_files, self.import_folder, self.run_button):
            button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def _ended(self, text: str) -> None:
        self.worker = None
        self._busy(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.progress.setFormat("done")
        self.output.setPlainText(text)
        self.models.release()
        self.refresh()

    def reject(self) -> None:
        self.cancel()  # (closing the dialog stops its work; what was done is kept)
        super().reject()


def _threshold(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0.01, 1.0)
    box.setSingleStep(0.05)
    box.setDecimals(2)
    box.setValue(value)
    return box


def _widget(layout) -> QWidget:
    holder = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    holder.setLayout(layout)
    return holder


def _path_row(form: QFormLayout, label: str, filter_: str, parent: QWidget) -> QLineEdit:
    edit = QLineEdit()
    browse = QPushButton("Browse…")

    def choose() -> None:
        name, _ = QFileDialog.getOpenFileName(parent, label.rstrip(":"), "", filter_)
        if name:
            edit.setText(name)

    browse.clicked.connect(choose)
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    row.addWidget(browse)
    form.addRow(label, _widget(row))
    return edit
