"""The review queue panel: filters, the ranked table, the budget line and meter, and the progress
of the feature computation.

Columns: rank, case id, image α strict and relaxed (nominal), the boxes per agreement band as a
small coloured bar (red disagreement, orange low, yellow moderate, green high; counts in the
tooltip), the method's score and the review status. Every cell's tooltip says why the image is
where it is (the queue's ``explain``); images the low-agreement rule flagged *review first* lead
the queue in every method, marked ⚑ by their rank, the flag's reason first in the tooltip. No
value but a case id is cut: every other column takes the width its values need (the α headers
are on two lines to save width), the case column takes the rest and elides long case ids in the
middle (the full id is in the tooltip), and the table never scrolls sideways — its minimum width
keeps the other columns whole and :data:`CASE_MIN_WIDTH` of the case id. A line is drawn
under the last row within the *budget* (how many images the reviewer means to look at; default
20, stored in the project) and the meter counts the reviewed images within the budget.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.report.formatting import fixed
from slicereview.app.review.queue import QueueRow, QueueSpec
from slicereview.engines.review.priority import METHODS, MODEL_METHODS
from slicereview.gui.common.widgets import cell, header
from slicereview.gui.review.overlay import band_colour
from slicereview.model import Phase

COLUMNS = ("#", "Case", "α\nstrict", "α\nrelaxed", "Boxes", "Score", "Status")
BANDS = (("n_disagreement", "disagreement"), ("n_low", "low"), ("n_moderate", "moderate"),
         ("n_high", "high"))
_ROW = Qt.ItemDataRole.UserRole
#: The case column's narrowest width (px): the part of a case id always shown.
CASE_MIN_WIDTH = 64
STATUS_COLOURS = {"reviewed": "#34C759", "partly reviewed": "#FF9500", "not reviewed": ""}


def _fmt(value: float, digits: int = 2) -> str:
    return "—" if value is None or math.isnan(value) else fixed(value, digits)


def _score(value: float) -> str:
    """Scores of the box methods are pixel areas (thousands): no exponent notation.

    >>> _score(19266.04), _score(0.4213), _score(float("nan"))
    ('19,266', '0.4213', '—')
    """
    if math.isnan(value):
        return "—"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


class _QueueDelegate(QStyledItemDelegate):
    """Paints the band bar in the Boxes column and the budget line under row ``budget``."""

    def __init__(self, panel: ReviewQueuePanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        super().paint(painter, option, index)
        rows = self.panel.rows
        if index.column() == 4 and index.row() < len(rows):
            self._bar(painter, option.rect, rows[index.row()])
        if index.row() == self.panel.budget - 1:
            painter.save()
            painter.setPen(QPen(QColor("#0A84FF"), 3))
            r = option.rect
            painter.drawLine(r.left(), r.bottom(), r.right(), r.bottom())
            painter.restore()

    @staticmethod
    def _bar(painter: QPainter, rect: QRect, row: QueueRow) -> None:
        counts = [getattr(row.features, field) for field, _ in BANDS]
        total = sum(counts)
        area = rect.adjusted(4, 6, -4, -6)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        if total == 0:
            painter.setBrush(QColor("#888888"))
            painter.drawRect(area.adjusted(0, area.height() // 2 - 1, 0, -area.height() // 2))
        x = float(area.left())
        for count, (_, band) in zip(counts, BANDS, strict=True):
            if not count:
                continue
            width = area.width() * count / total
            painter.setBrush(band_colour(band))
            painter.drawRect(QRect(round(x), area.top(), max(1, round(width)), area.height()))
            x += width
        painter.restore()


class ReviewQueuePanel(QWidget):
    """The ranked queue with its filters; emits what the reviewer picks."""

    #: The filters or the method changed: the queue must be recomputed.
    spec_changed = Signal()
    #: A row was chosen (clicked): its position in the queue.
    row_chosen = Signal(int)
    budget_changed = Signal(int)
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[QueueRow] = []
        self.budget = 20
        self.method_box = QComboBox()
        self.method_box.addItems(list(METHODS))
        self.method_box.setToolTip("Priority method (docs/review.md)")
        self.model_box = QComboBox()
        self.model_box.setToolTip("The model model-disagreement ranks by, and whose outline "
                                  "the Model outline layer draws")
        self.phase_box = QComboBox()
        self.phase_box.addItems([p.value for p in Phase])
        self.phase_box.setCurrentText("formal")
        self.round_box = QSpinBox()
        self.round_box.setRange(0, 99)
        self.round_box.setSpecialValueText("latest finished")
        self.round_box.setToolTip("Round: each annotator's latest finished round, or one round")
        self.group_box = QComboBox()
        self.group_box.setToolTip("Annotators whose work the queue compares")
        self.budget_box = QSpinBox()
        self.budget_box.setRange(1, 100000)
        self.budget_box.setValue(self.budget)
        self.budget_box.setToolTip("How many images you plan to review (a line under that row)")
        self.meter = QLabel()
        self.progress = QProgressBar()
        self.progress.setFormat("Computing features %v / %m")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setItemDelegate(_QueueDelegate(self))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the case gives way
        header.setStretchLastSection(False)  # a stretched last column was cut when narrow
        header.setMinimumSectionSize(24)
        self.table.setColumnWidth(4, 56)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.cellClicked.connect(lambda row, _col: self.row_chosen.emit(row))
        self.empty_label = QLabel()
        self.empty_label.setWordWrap(True)

        form = QFormLayout()
        form.addRow("Method:", self.method_box)
        form.addRow("Model:", self.model_box)
        form.addRow("Phase:", self.phase_box)
        form.addRow("Round:", self.round_box)
        form.addRow("Annotators:", self.group_box)
        form.addRow("Budget:", self.budget_box)
        busy = QHBoxLayout()
        busy.addWidget(self.progress, 1)
        busy.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(form)
        layout.addLayout(busy)
        layout.addWidget(self.meter)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty_label)
        self.set_busy(False)
        for box in (self.method_box, self.phase_box, self.group_box):
            box.currentIndexChanged.connect(self.spec_changed)
        self.model_box.currentIndexChanged.connect(self._on_model)
        self.round_box.valueChanged.connect(self.spec_changed)
        self.budget_box.valueChanged.connect(self._on_budget)

    # -- filters ---------------------------------------------------------------------------
    def set_groups(self, groups: list[str]) -> None:
        blocker = self.group_box.blockSignals(True)
        current = self.group_box.currentData()
        self.group_box.clear()
        self.group_box.addItem("everyone", None)
        for g in groups:
            self.group_box.addItem(f"group {g}", g)
        index = self.group_box.findData(current)
        self.group_box.setCurrentIndex(max(index, 0))
        self.group_box.blockSignals(blocker)

    def set_models(self, models: list[tuple[int, str]]) -> None:
        """The project's models ``(id, label)``; without one, model-disagreement is not
        offered (greyed, with why)."""
        blocker = self.model_box.blockSignals(True)
        current = self.model_box.currentData()
        self.model_box.clear()
        for rater_id, label in models:
            self.model_box.addItem(label, rater_id)
        self.model_box.setCurrentIndex(max(self.model_box.findData(current), 0)
                                       if models else -1)
        self.model_box.setPlaceholderText("no model in this project")
        self.model_box.blockSignals(blocker)
        model = self.method_box.model()
        assert isinstance(model, QStandardItemModel)  # (a QComboBox's own model)
        item = model.item(self.method_box.findText("model-disagreement"))
        item.setEnabled(bool(models))
        item.setToolTip("" if models else "Needs a model's predictions: import them first")

    def _on_model(self, _index: int) -> None:
        if self.method_box.currentText() == "model-disagreement":
            self.spec_changed.emit()

    def spec(self) -> QueueSpec:
        model = self.model_box.currentData()
        method = self.method_box.currentText()
        if method == "model-disagreement" and model is None:
            method = "box-score"  # (greyed without a model; a saved choice falls back)
        return QueueSpec(phase=self.phase_box.currentText(),
                         round=self.round_box.value() or None,
                         group=self.group_box.currentData(), method=method,
                         # (the model's distance is computed each time: only when ranked by)
                         model=int(model) if model is not None and method in MODEL_METHODS
                         else None)

    def set_spec(self, method: str, phase: str, rnd: int, group: str | None) -> None:
        """Restore saved filters without emitting :attr:`spec_changed`."""
        for box, value in ((self.method_box, method), (self.phase_box, phase)):
            blocker = box.blockSignals(True)
            box.setCurrentText(value)
            box.blockSignals(blocker)
        blocker = self.round_box.blockSignals(True)
        self.round_box.setValue(rnd)
        self.round_box.blockSignals(blocker)
        blocker = self.group_box.blockSignals(True)
        self.group_box.setCurrentIndex(max(self.group_box.findData(group), 0))
        self.group_box.blockSignals(blocker)

    def set_budget(self, budget: int) -> None:
        blocker = self.budget_box.blockSignals(True)
        self.budget_box.setValue(budget)
        self.budget_box.blockSignals(blocker)
        self.budget = budget
        self._update_meter()
        self.table.viewport().update()

    def _on_budget(self, value: int) -> None:
        self.budget = value
        self._update_meter()
        self.table.viewport().update()
        self.budget_changed.emit(value)

    # -- rows ------------------------------------------------------------------------------
    def set_busy(self, busy: bool, done: int = 0, total: int = 0) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)

    def set_rows(self, rows: list[QueueRow], not_enough: int = 0) -> None:
        self.rows = list(rows)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            self._fill(r, row)
        if not rows:
            self.empty_label.setText("No image of this phase has two finished annotations "
                                     "yet: nothing to review." if not not_enough else
                                     f"{not_enough} image(s) have one finished annotation "
                                     "only (not enough annotations to compare).")
        else:
            self.empty_label.setText(f"{not_enough} image(s) with one finished annotation "
                                     "are not ranked." if not_enough else "")
        self._fit_columns()
        self._update_meter()

    def update_row(self, position: int, row: QueueRow) -> None:
        self.rows[position] = row
        self._fill(position, row)
        self._fit_columns()
        self._update_meter()

    def _fit_columns(self) -> None:
        """Keep every column but the case whole: the table is at least as wide as their
        contents, :data:`CASE_MIN_WIDTH`, the frame and the vertical scroll bar."""
        header = self.table.horizontalHeader()
        others = sum(max(header.sectionSizeHint(c), self.table.sizeHintForColumn(c))
                     if c != 4 else self.table.columnWidth(4)
                     for c in range(len(COLUMNS)) if c != 1)
        chrome = 2 * self.table.frameWidth() + self.table.verticalScrollBar().sizeHint().width()
        self.table.setMinimumWidth(others + CASE_MIN_WIDTH + chrome)

    def _fill(self, r: int, row: QueueRow) -> None:
        f = row.features
        counts = ", ".join(f"{getattr(f, field)} {band}" for field, band in BANDS)
        tip = (f"{row.case_id}: rank {row.rank} by {self.method_box.currentText()}\n"
               f"{row.explain}\nBoxes ({f.level}): {counts}")
        header(self.table, 5).setToolTip(
            f"Priority score of {self.method_box.currentText()} (higher = more urgent)")
        values = (f"{row.rank} ⚑" if row.flag else str(row.rank), row.case_id,
                  _fmt(f.strict_alpha), _fmt(f.relaxed_alpha), "", _score(row.score),
                  row.status)
        for c, text in enumerate(values):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            if c in (0, 2, 3, 5):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if c == 6 and STATUS_COLOURS.get(row.status):
                item.setForeground(QColor(STATUS_COLOURS[row.status]))
            item.setData(_ROW, row.image_id)
            self.table.setItem(r, c, item)

    def _update_meter(self) -> None:
        within = self.rows[:self.budget]
        done = sum(r.status == "reviewed" for r in within)
        self.meter.setText(f"<b>{done} of {min(self.budget, len(self.rows))}</b> reviewed "
                           f"within the budget of {self.budget} · {len(self.rows)} in the queue")

    def select(self, position: int) -> None:
        if 0 <= position < len(self.rows):
            blocker = self.table.blockSignals(True)
            self.table.selectRow(position)
            self.table.blockSignals(blocker)
            self.table.scrollToItem(cell(self.table, position, 0))
