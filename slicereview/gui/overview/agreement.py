"""The Overview's *Agreement* section: the annotator × annotator matrix with each model's row and
column after a dark line (:func:`slicereview.gui.overview.tables.fill_matrix`), and the images a
clicked cell lists. A people's cell lists where the pair disagrees most (lowest strict α first,
:func:`slicereview.app.report.pairs.pair_disagreements` in a thread worker with its own project
connection); a model's cell lists where the model and the person disagree most, from the
report's own per-image values (:func:`slicereview.app.report.matrix.model_disagreements`, no
worker needed). Selecting an image emits :attr:`AgreementSection.image_requested`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.report.formatting import fmt
from slicereview.app.report.matrix import MODEL_NOTE, NOTE, model_disagreements
from slicereview.gui.common import qa_workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.overview import tables
from slicereview.gui.overview.sections import note

if TYPE_CHECKING:
    from slicereview.app.report.pairs import PairImage

_HOW = ("(Krippendorff's α, nominal, strict, image level; lowest first)")


class AgreementSection(QWidget):
    """The matrix and its cell's images; ``gateway`` gives the project's location."""

    #: The user picked an image from a cell's list: show it in the View tab.
    image_requested = Signal(int)

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__()
        self.gateway = gateway
        self.data: Any = None
        self.worker: Worker | None = None
        self.ids: list[int] = []
        self.matrix = tables.new_table([])
        self.matrix.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectItems)
        self.matrix.setAlternatingRowColors(False)
        self.matrix.cellClicked.connect(self.open_pair)
        self.pair_label = QLabel("Click a cell to list the images where that pair disagrees "
                                 "most.")
        self.pair_label.setWordWrap(True)
        self.pair_list = QListWidget()
        self.pair_list.currentItemChanged.connect(self._chosen)
        self.model_note = note(MODEL_NOTE)
        self.model_note.setVisible(False)
        side_widget = QWidget()
        side = QVBoxLayout(side_widget)
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(self.pair_label)
        side.addWidget(self.pair_list)
        split = QSplitter()
        split.addWidget(self.matrix)
        split.addWidget(side_widget)
        split.setSizes([780, 320])
        split.setMinimumHeight(300)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split, 1)
        layout.addWidget(note(NOTE))
        layout.addWidget(self.model_note)

    def show_data(self, data: Any) -> None:
        """Fill the matrix from a ``ReportData``."""
        self.data = data
        self.ids = tables.fill_matrix(self.matrix, data)
        self.model_note.setVisible(self.matrix.rowCount() > len(self.ids))
        self.pair_list.clear()

    def clear(self) -> None:
        self.matrix.setRowCount(0)
        self.pair_list.clear()
        self.model_note.setVisible(False)

    def open_pair(self, row: int, column: int) -> Worker | None:
        """List the images of the clicked cell (a people's cell: in a worker, returned)."""
        item = self.matrix.item(row, column)
        if item is None or self.data is None:
            return None
        model = item.data(tables.MODEL_ROLE)
        if model:
            index, person = model
            part = self.data.models[index]
            self._show(f"{part.label} (model)", self.data.raters[person][0],
                       model_disagreements(part, person))
            return None
        pair = item.data(tables.PAIR_ROLE)
        if not pair or self.worker is not None:
            return None
        names = [self.data.raters[i][0] for i in pair]
        self.pair_label.setText(f"Images where {names[0]} and {names[1]} disagree most {_HOW} "
                                "— computing…")
        self.pair_list.clear()
        worker = thread_worker(qa_workers.pair_images, self.gateway.qa.location(), *pair)
        worker.finished.connect(lambda rows: self._done(names, rows))
        worker.failed.connect(self._failed)
        self.worker = worker
        return worker

    def _done(self, names: list[str], rows: list[PairImage]) -> None:
        self.worker = None
        self._show(names[0], names[1], rows)

    def _show(self, a: str, b: str, rows: list[PairImage]) -> None:
        self.pair_label.setText(f"Images where {a} and {b} disagree most {_HOW}. Select one "
                                "to see it in the View tab.")
        self.pair_list.clear()
        for row in rows:
            item = QListWidgetItem(f"{row.case_id}   {row.phase}   α = {fmt(row.alpha)}")
            item.setData(Qt.ItemDataRole.UserRole, row.image_id)
            self.pair_list.addItem(item)

    def _failed(self, message: str) -> None:
        self.worker = None
        self.pair_label.setText(f"Could not list the images: {message}")

    def _chosen(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self.image_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))
