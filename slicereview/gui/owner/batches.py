"""Owner ▸ Phases and batches…: the batches of the project per phase with their rules and
assignments, and a form to create one (from an image set or the images in the image list) or
edit one (rules and added assignments; a batch's images and phase stay as created, since work
may already exist on them). Saves through :mod:`slicereview.app.qa.workflow`. A new batch's form
starts empty: no phase and no images are chosen for the owner (a name alone used to make an
onboarding batch of every listed image), and *Create batch* asks for both.

*Repeats* (intra-rater agreement): for the selected batch, "Schedule repeats" asks every annotator
of the batch to annotate a seeded share of its images (in %, at least one image) a second time,
after their first passes, blind (:mod:`slicereview.app.qa.repeats`); the seed is shown and kept so
a schedule can be reproduced, scheduling again keeps existing repeats, and each annotator's
repeats to do / done are listed.

*Pre-annotation* of the selected batch: the model shown to its annotators as their starting
point, on every image or a seeded random half, or none (:mod:`.preannotation_box`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.common.widgets import cell
from slicereview.gui.gateway.owner import OwnerService
from slicereview.gui.owner.preannotation_box import PreannotationBox
from slicereview.model import Phase, Role

LOW_ACTIONS = (("assign", "assign one more annotator"), ("review", "flag for review first"))
COLUMNS = ("Batch", "Phase", "Images", "Assigned", "Pre-filter (mean Dice ≥)",
           "Low agreement (strict α <)", "Max annotators", "When low")


def _checkable(widget: QListWidget, items: list[tuple[str, object]]) -> None:
    widget.clear()
    for text, data in items:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, data)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Unchecked)
        widget.addItem(item)


def _checked(widget: QListWidget) -> list:
    return [widget.item(i).data(Qt.ItemDataRole.UserRole) for i in range(widget.count())
            if widget.item(i).checkState() is Qt.CheckState.Checked]


class BatchesDialog(QDialog):
    """``selection``: the image ids listed in the image list now (offered as a source)."""

    def __init__(self, owner: OwnerService, selection: list[int] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Phases and batches")
        self.owner = owner
        self.selection = list(selection or [])
        self.editing: int | None = None
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.itemSelectionChanged.connect(self._on_row)
        self.name_edit = QLineEdit()
        self.phase_box = QComboBox()
        self.phase_box.addItems([str(p) for p in Phase])
        self.phase_box.setPlaceholderText("choose the phase…")
        self.source_box = QComboBox()
        self.source_box.setPlaceholderText("choose the images…")
        self.annotator_list = QListWidget()
        self.group_list = QListWidget()
        for w in (self.annotator_list, self.group_list):
            w.setMaximumHeight(110)
        self.prefilter_check = QCheckBox("Pre-filter: mean Dice against gold ≥")
        self.min_dice = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0, singleStep=0.05,
                                       value=0.6)
        self.alpha_check = QCheckBox("Low agreement: strict α (nominal, image level) <")
        self.alpha_threshold = QDoubleSpinBox(decimals=3, minimum=-1.0, maximum=1.0,
                                              singleStep=0.05, value=0.667)
        self.max_annotators = QSpinBox(minimum=2, maximum=50, value=3)
        self.low_action = QComboBox()
        for key, text in LOW_ACTIONS:
            self.low_action.addItem(text, key)
        self.new_button = QPushButton("New batch")
        self.new_button.clicked.connect(self.start_new)
        self.save_button = QPushButton("Create batch")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        self.repeat_share = QDoubleSpinBox(decimals=1, minimum=0.5, maximum=100.0,
                                           singleStep=0.5, value=5.0, suffix=" %")
        self.repeat_share.setToolTip("Share of the batch each annotator annotates a second "
                                     "time (at least one image)")
        self.repeat_seed = QSpinBox(minimum=0, maximum=2_147_483_647, value=0)
        self.repeat_seed.setToolTip("Seed of the draw: the same seed picks the same images")
        self.repeat_button = QPushButton("Schedule repeats")
        self.repeat_button.clicked.connect(self.schedule_repeats)
        self.repeat_label = QLabel()
        self.repeat_label.setWordWrap(True)
        self.preannotation = PreannotationBox(owner)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        self._layout()
        self.refresh()
        self.start_new()
        self.resize(1100, 640)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Name:", self.name_edit)
        form.addRow("Phase:", self.phase_box)
        form.addRow("Images:", self.source_box)
        form.addRow("Annotators:", self.annotator_list)
        form.addRow("Groups:", self.group_list)
        for check, spin in ((self.prefilter_check, self.min_dice),
                            (self.alpha_check, self.alpha_threshold)):
            row = QHBoxLayout()
            row.addWidget(check)
            row.addWidget(spin)
            form.addRow(row)
        form.addRow("Max annotators per image:", self.max_annotators)
        form.addRow("When agreement is low:", self.low_action)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addLayout(buttons)
        repeats = QGroupBox("Repeats (intra-rater agreement) of the selected batch")
        row = QHBoxLayout()
        for w in (QLabel("Share"), self.repeat_share, QLabel("seed"), self.repeat_seed):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.repeat_button)
        col = QVBoxLayout(repeats)
        col.addLayout(row)
        col.addWidget(self.repeat_label)
        right.addWidget(repeats)
        right.addWidget(self.preannotation)
        right.addWidget(self.message)
        right.addStretch(1)
        body = QHBoxLayout()
        body.addWidget(self.table, 3)
        body.addLayout(right, 2)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body)
        layout.addWidget(close)

    # -- reading ---------------------------------------------------------------------------
    def refresh(self) -> None:
        raters = {r.id: r for r in self.owner.raters()}
        batches = self.owner.batches()
        self.table.setRowCount(len(batches))
        for row, b in enumerate(batches):
            assigned = ", ".join(raters[r].name if r is not None else f"group {g}"
                                 for r, g in self.owner.assignments(b.id))
            low = dict(LOW_ACTIONS)[b.low_action]
            cells = (b.name, str(b.phase), str(len(self.owner.batch_images(b.id))),
                     assigned or "—", "—" if b.min_dice is None else f"{b.min_dice:.2f}",
                     "off" if b.alpha_threshold is None else f"{b.alpha_threshold:.3f}",
                     str(b.max_annotators), low)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, b.id)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        _checkable(self.annotator_list, [(f"{r.name}" + (f" (group {r.group})" if r.group
                                                        else ""), r.id)
                                         for r in self.owner.raters(Role.ANNOTATOR)])
        groups = sorted({r.group for r in raters.values() if r.group
                         and r.role is Role.ANNOTATOR})
        _checkable(self.group_list, [(g, g) for g in groups])
        chosen = self.source_box.currentData()
        self.source_box.clear()
        if self.selection:
            self.source_box.addItem(f"the images in the image list ({len(self.selection)})",
                                    ("list", None))
        for set_id, name, count in self.owner.image_sets():
            self.source_box.addItem(f"image set “{name}” ({count})", ("set", set_id))
        self.source_box.setCurrentIndex(self.source_box.findData(chosen) if chosen else -1)

    def _on_row(self) -> None:
        items = self.table.selectedItems()
        if items:
            self.edit(int(items[0].data(Qt.ItemDataRole.UserRole)))

    def start_new(self) -> None:
        """Empty the form for a new batch."""
        self.editing = None
        self.table.clearSelection()
        self.name_edit.clear()
        self.phase_box.setCurrentIndex(-1)  # asked, never assumed
        self.source_box.setCurrentIndex(-1)
        for widget in (self.annotator_list, self.group_list):
            for i in range(widget.count()):
                widget.item(i).setCheckState(Qt.CheckState.Unchecked)
        for w in (self.name_edit, self.phase_box, self.source_box):
            w.setEnabled(True)
        self.save_button.setText("Create batch")
        self.message.clear()
        self._show_repeats()

    def edit(self, batch_id: int) -> None:
        """Show a batch in the form (its rules; assignments are shown checked)."""
        batch = next(b for b in self.owner.batches() if b.id == batch_id)
        self.editing = batch_id
        self.name_edit.setText(batch.name)
        self.phase_box.setCurrentText(str(batch.phase))
        for w in (self.name_edit, self.phase_box, self.source_box):
            w.setEnabled(False)
        pairs = self.owner.assignments(batch_id)
        for widget, values in ((self.annotator_list, {r for r, _ in pairs}),
                               (self.group_list, {g for _, g in pairs})):
            for i in range(widget.count()):
                item = widget.item(i)
                item.setCheckState(Qt.CheckState.Checked if item.data(
                    Qt.ItemDataRole.UserRole) in values else Qt.CheckState.Unchecked)
        self.prefilter_check.setChecked(batch.min_dice is not None)
        self.min_dice.setValue(0.6 if batch.min_dice is None else batch.min_dice)
        self.alpha_check.setChecked(batch.alpha_threshold is not None)
        self.alpha_threshold.setValue(0.667 if batch.alpha_threshold is None
                                      else batch.alpha_threshold)
        self.max_annotators.setValue(batch.max_annotators)
        self.low_action.setCurrentIndex(self.low_action.findData(batch.low_action))
        self.save_button.setText("Save changes")
        self.message.clear()
        self._show_repeats()

    # -- writing ---------------------------------------------------------------------------
    def _rules(self) -> dict:
        return dict(
            raters=_checked(self.annotator_list), groups=_checked(self.group_list),
            min_dice=self.min_dice.value() if self.prefilter_check.isChecked() else None,
            alpha_threshold=(self.alpha_threshold.value() if self.alpha_check.isChecked()
                             else None),
            max_annotators=self.max_annotators.value(), low_action=self.low_action.currentData())

    def save(self) -> int | None:
        """Create the batch (or save the edited one); returns its id, ``None`` on an error
        (shown in the dialog)."""
        try:
            if self.editing is not None:
                self.owner.edit_batch(self.editing, **self._rules())
                batch_id = self.editing
            else:
                if self.phase_box.currentIndex() < 0:
                    raise ValueError("Choose the batch's phase: onboarding, pilot or formal.")
                kind, set_id = self.source_box.currentData() or (None, None)
                if kind is None:
                    raise ValueError("Choose the batch's images: an image set, or the images "
                                     "listed in the image list.")
                images = self.selection if kind == "list" else (
                    self.owner.image_set(set_id) if kind == "set" and set_id is not None
                    else [])
                batch_id = self.owner.define_batch(self.name_edit.text(),
                                                   self.phase_box.currentText(), images,
                                                   **self._rules())
        except (ValueError, KeyError, PermissionError) as exc:
            self.message.setText(str(exc))
            return None
        self.refresh()
        for row in range(self.table.rowCount()):
            if cell(self.table, row, 0).data(Qt.ItemDataRole.UserRole) == batch_id:
                self.table.selectRow(row)
        self.message.setText("")
        return batch_id

    # -- repeats ---------------------------------------------------------------------------
    def _show_repeats(self) -> None:
        """Each annotator's repeats of the selected batch (to do / done); its pre-annotation."""
        self.preannotation.show_batch(self.editing)
        self.repeat_button.setEnabled(self.editing is not None)
        if self.editing is None:
            self.repeat_label.setText("Select a batch to schedule repeats.")
            return
        rows = self.owner.repeat_progress(self.editing)
        self.repeat_label.setText("<br>".join(
            f"{r.name}: {todo} to do, {done} done" for r, todo, done in rows)
            or "No annotators assigned.")

    def schedule_repeats(self) -> dict[int, int] | None:
        """Schedule the share of the selected batch for its annotators; returns rater id →
        repeated images (``None`` on an error, shown in the dialog)."""
        if self.editing is None:
            return None
        try:
            out = self.owner.schedule_repeats(self.editing, self.repeat_share.value(),
                                              self.repeat_seed.value())
        except (ValueError, KeyError, PermissionError) as exc:
            self.message.setText(str(exc))
            return None
        self._show_repeats()
        return out
