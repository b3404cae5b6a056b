"""The import options dialog: which slices of 3-D volumes become images, along which axis.

Shown before importing a folder, or files among which there is a volume (NIfTI, NRRD,
MHA/MHD) or a DICOM file (multi-frame files use the same choice for their frames). The
choices are those of ``slicereview import --slices/--axis``.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from slicereview.engines.imaging.importer import SliceSelection

MODES = [("middle", "The middle slice"), ("all", "Every slice"),
         ("every", "Every k-th slice"), ("range", "A range of slices")]
AXES = ["0 — axial (most NIfTI/DICOM volumes)", "1 — coronal", "2 — sagittal"]


class ImportOptionsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import options")
        self.mode_box = QComboBox()
        for _, text in MODES:
            self.mode_box.addItem(text)
        self.axis_box = QComboBox()
        self.axis_box.addItems(AXES)
        self.step_spin = QSpinBox()
        self.step_spin.setRange(1, 10000)
        self.step_spin.setValue(4)
        self.start_spin = QSpinBox()
        self.start_spin.setRange(0, 100000)
        self.stop_spin = QSpinBox()
        self.stop_spin.setRange(1, 100000)
        self.stop_spin.setValue(10)
        form = QFormLayout(self)
        form.addRow(QLabel("Volumes (NIfTI, NRRD, MHA/MHD) and multi-frame DICOM files become "
                           "one image per chosen slice or frame."))
        form.addRow("Slices:", self.mode_box)
        form.addRow("Slice along axis:", self.axis_box)
        form.addRow("Every k-th, k =", self.step_spin)
        form.addRow("From slice:", self.start_spin)
        form.addRow("To slice (exclusive):", self.stop_spin)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.mode_box.currentIndexChanged.connect(self._update)
        self._update()

    def _update(self) -> None:
        mode = MODES[self.mode_box.currentIndex()][0]
        self.step_spin.setEnabled(mode in ("every", "range"))
        self.start_spin.setEnabled(mode == "range")
        self.stop_spin.setEnabled(mode == "range")

    def selection(self) -> SliceSelection:
        mode = MODES[self.mode_box.currentIndex()][0]
        axis = self.axis_box.currentIndex()
        if mode == "range":
            start, stop = self.start_spin.value(), self.stop_spin.value()
            if stop <= start:
                raise ValueError("'To slice' must be greater than 'From slice'.")
            return SliceSelection(axis=axis, mode="range", start=start, stop=stop,
                                  step=self.step_spin.value())
        if mode == "every":
            return SliceSelection(axis=axis, mode="every", step=self.step_spin.value())
        return SliceSelection(axis=axis, mode=mode)
