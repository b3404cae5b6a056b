"""Owner ▸ Gold and onboarding…: the gold standard of an onboarding batch's images and the
pre-filter of its annotators, with the owner's decision.

Top: the batch's images with their gold (an expert's finished annotation marked gold, or an
imported PNG label mask). Bottom: each assigned annotator's mean scores against gold over their
scored images (computed by :mod:`slicereview.app.qa.workflow` when they finish an image), the
pre-filter verdict and the decision in force; *Confirm* stores the pre-filter's verdict,
*Override* the opposite and needs a reason. Each decision is stored with who, when and why.
Only the owner sees this: the annotators' work lists never say which images are gold.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.report.formatting import fixed
from slicereview.gui.common import file_dialogs
from slicereview.gui.common.widgets import cell
from slicereview.gui.gateway.owner import OwnerService
from slicereview.gui.owner.picker import OwnerPicker
from slicereview.model import Phase

SCORE_COLUMNS = ("Annotator", "Group", "Scored images", "Dice (relaxed, mean)",
                 "α strict (nominal, image)", "α relaxed (nominal, image)",
                 "Box α (strict, mean)", "Pre-filter", "Decision in force")


def _fmt(value: float | None) -> str:
    return "—" if value is None else fixed(value, 3)


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    return table


class GoldDialog(QDialog):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Gold standard and onboarding pre-filter")
        self.owner = owner
        self.picker = OwnerPicker(owner)
        self.batch_box = QComboBox()
        self.batch_box.currentIndexChanged.connect(self.refresh)
        self.images = _table(("Case", "Image", "Gold"))
        self.images.itemSelectionChanged.connect(self._fill_candidates)
        self.candidate_box = QComboBox()
        self.mark_button = QPushButton("Mark as gold")
        self.mark_button.clicked.connect(self.mark_gold)
        self.import_button = QPushButton("Import gold mask (PNG)…")
        self.import_button.clicked.connect(self._ask_mask)
        self.scores = _table(SCORE_COLUMNS)
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("Reason (required to override the pre-filter)")
        self.confirm_button = QPushButton("Confirm pre-filter")
        self.confirm_button.clicked.connect(lambda: self.decide(override=False))
        self.override_button = QPushButton("Override…")
        self.override_button.setToolTip("Decide against the pre-filter (or decide where it "
                                         "has no verdict); needs a reason")
        self.override_button.clicked.connect(lambda: self.decide(override=True))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self._layout()
        owner.workflow_changed.connect(self.refresh)
        self._fill_batches()
        self.resize(1150, 720)

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(QLabel("Onboarding batch:"))
        top.addWidget(self.batch_box, 1)
        top.addWidget(self.picker, 1)
        gold = QGroupBox("Gold standard (shown to the owner only)")
        g = QVBoxLayout(gold)
        g.addWidget(self.images)
        row = QHBoxLayout()
        row.addWidget(QLabel("Expert's annotation:"))
        row.addWidget(self.candidate_box, 1)
        row.addWidget(self.mark_button)
        row.addWidget(self.import_button)
        g.addLayout(row)
        pre = QGroupBox("Annotators against gold — pre-filter and decision")
        p = QVBoxLayout(pre)
        p.addWidget(self.scores)
        row = QHBoxLayout()
        row.addWidget(self.reason_edit, 1)
        row.addWidget(self.confirm_button)
        row.addWidget(self.override_button)
        p.addLayout(row)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(gold, 2)
        layout.addWidget(pre, 3)
        layout.addWidget(self.message)
        layout.addWidget(close)

    @property
    def batch_id(self) -> int | None:
        data = self.batch_box.currentData()
        return None if data is None else int(data)

    def _fill_batches(self) -> None:
        self.batch_box.clear()
        for b in self.owner.batches():
            if b.phase is Phase.ONBOARDING:
                self.batch_box.addItem(b.name, b.id)
        if self.batch_box.count() == 0:
            self.message.setText("No onboarding batch yet: create one in Owner ▸ Phases and "
                                 "batches….")
        self.refresh()

    def refresh(self) -> None:
        if self.batch_id is None:
            self.images.setRowCount(0)
            self.scores.setRowCount(0)
            return
        selected = self.image_id
        images = self.owner.batch_images(self.batch_id)
        self.images.setRowCount(len(images))
        for row, image in enumerate(images):
            origin = self.owner.gold_origin(image.id)
            for col, text in enumerate((image.case_id, f"{image.cols} × {image.rows}",
                                        origin or "—")):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, image.id)
                self.images.setItem(row, col, item)
            if image.id == selected:
                self.images.selectRow(row)
        self.images.resizeColumnsToContents()
        rows = self.owner.onboarding(self.batch_id)
        self.scores.setRowCount(len(rows))
        for row, r in enumerate(rows):
            verdict = {None: "no verdict", True: "passes", False: "below"}[r.passes]
            cells = (r.rater.name, r.rater.group or "—", str(r.scored), _fmt(r.dice),
                     _fmt(r.strict_alpha), _fmt(r.relaxed_alpha), _fmt(r.box_alpha), verdict,
                     r.decision or "not decided")
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, r.rater.id)
                self.scores.setItem(row, col, item)
        self.scores.resizeColumnsToContents()

    @property
    def image_id(self) -> int | None:
        items = self.images.selectedItems()
        return int(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

    def _fill_candidates(self) -> None:
        self.candidate_box.clear()
        if self.image_id is not None:
            for annotation_id, label in self.owner.gold_candidates(self.image_id):
                self.candidate_box.addItem(label, annotation_id)

    def select_image(self, image_id: int) -> None:
        for row in range(self.images.rowCount()):
            if cell(self.images, row, 0).data(Qt.ItemDataRole.UserRole) == image_id:
                self.images.selectRow(row)

    def _run(self, write) -> bool:
        try:
            write()
        except (ValueError, KeyError, PermissionError, OSError) as exc:
            self.message.setText(str(exc))
            return False
        self.message.clear()
        return True

    def mark_gold(self) -> bool:
        annotation_id = self.candidate_box.currentData()
        if annotation_id is None:
            self.message.setText("Choose an image with a finished (expert's) annotation.")
            return False
        return self._run(lambda: self.owner.mark_gold(int(annotation_id)))

    def import_mask(self, path: str) -> bool:
        if self.image_id is None:
            self.message.setText("Choose the image the mask belongs to.")
            return False
        image_id = self.image_id
        return self._run(lambda: self.owner.import_gold(image_id, path))

    def _ask_mask(self) -> None:
        path = file_dialogs.open_file(self, "Gold mask", "gold", "PNG masks (*.png)",
                                      self.owner.gateway.folder)
        if path is not None:
            self.import_mask(str(path))

    def select_annotator(self, rater_id: int) -> None:
        for row in range(self.scores.rowCount()):
            if cell(self.scores, row, 0).data(Qt.ItemDataRole.UserRole) == rater_id:
                self.scores.selectRow(row)

    def decide(self, *, override: bool) -> bool:
        """Store the owner's decision for the selected annotator: the pre-filter's verdict,
        or (``override``) the opposite one, which needs the reason typed above."""
        items = self.scores.selectedItems()
        if not items or self.batch_id is None:
            self.message.setText("Choose an annotator in the table.")
            return False
        if self.picker.owner_id is None:
            self.message.setText("Choose the acting owner (or add one with New owner…).")
            return False
        rater_id = int(items[0].data(Qt.ItemDataRole.UserRole))
        row = next(r for r in self.owner.onboarding(self.batch_id) if r.rater.id == rater_id)
        reason = self.reason_edit.text()
        if override:
            go_on = not row.passes if row.passes is not None else True
            if not reason.strip():
                self.message.setText("Overriding the pre-filter needs a reason: write why.")
                return False
        else:
            go_on = None
        batch_id, owner_id = self.batch_id, self.picker.owner_id
        done = self._run(lambda: self.owner.decide(batch_id, rater_id, owner_id, go_on, reason))
        if done:
            self.reason_edit.clear()
            self.select_annotator(rater_id)
        return done
