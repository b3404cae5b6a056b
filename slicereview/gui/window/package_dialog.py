"""The "Export work package…" dialog: which annotator, which batch (or all of theirs).

The file is asked for afterwards (a save dialog); the package is written by
:func:`slicereview.gui.common.qa_workers.export_package` in a thread worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QWidget

if TYPE_CHECKING:
    from slicereview.gui.gateway.qa import QAService

#: The batch choice meaning "every batch of the annotator".
ALL_BATCHES = "(all their batches and annotations)"


class PackageDialog(QDialog):
    """Choose the annotator and batch of a work package (``qa``: the gateway's QA part)."""

    def __init__(self, qa: QAService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export work package")
        self.qa = qa
        self.annotator_box = QComboBox()
        self.annotator_box.addItems(qa.annotator_names())
        self.batch_box = QComboBox()
        self.annotator_box.currentTextChanged.connect(self._fill_batches)
        self._fill_batches(self.annotator_box.currentText())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        note = QLabel("The package holds a blind copy of the project (this annotator's work, "
                      "the decisions and comments on it, the reviewers' pins on the images of "
                      "their returned work, the guidelines and questions; nothing of other "
                      "annotators) and the images it needs. An annotator the owner stopped "
                      "after onboarding gets no package for pilot or formal work.")
        note.setWordWrap(True)
        form.addRow(note)
        form.addRow("Annotator:", self.annotator_box)
        form.addRow("Batch:", self.batch_box)
        form.addRow(buttons)

    def _fill_batches(self, annotator: str) -> None:
        self.batch_box.clear()
        self.batch_box.addItem(ALL_BATCHES)
        self.batch_box.addItems(self.qa.batch_names(annotator) if annotator else [])

    def choice(self) -> tuple[str, str | None]:
        """(annotator, batch or ``None`` for all)."""
        batch = self.batch_box.currentText()
        return self.annotator_box.currentText(), None if batch == ALL_BATCHES else batch
