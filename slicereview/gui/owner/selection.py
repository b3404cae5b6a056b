"""Owner ▸ Audit and selection order…: the review queue's random audit slots and the order in
which a batch hands out its images (the rules: :mod:`slicereview.app.review.audit`,
:mod:`slicereview.app.qa.selection`).

* **Review queue audit** — *Share of review slots* in % (0: off; at most 50) and the *seed*
  (*keep* keeps the stored one, or draws one at random the first time); **Apply** stores them
  (``slicereview audit set``). The Overview's *Queue audit* section shows what they measure.
* **Selection order** — a batch, its order (*batch*, *random*, *uncertainty*,
  *disagreement*), the rater whose stored work the uncertainty order reads (a model), the
  random order's seed; **Set order** stores it (``slicereview selection``).

Each press is one transaction by the acting owner; a refusal is said in the dialog.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.gateway.owner import OwnerService
from slicereview.gui.owner.picker import OwnerPicker
from slicereview.model import Role

ORDERS = ("batch", "random", "uncertainty", "disagreement")


class SelectionDialog(QDialog):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Audit and selection order")
        self.owner = owner
        self.picker = OwnerPicker(owner)
        self.share = QDoubleSpinBox()
        self.share.setObjectName("audit_share")
        self.share.setRange(0.0, 50.0)
        self.share.setDecimals(1)
        self.share.setSuffix(" %")
        self.share.setToolTip("Share of the review queue's slots that show an image drawn at "
                              "random from the whole queue (0: no audit)")
        self.seed = QSpinBox()
        self.seed.setRange(-1, 2 ** 31 - 1)
        self.seed.setSpecialValueText("keep")
        self.seed.setValue(-1)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setObjectName("audit_apply")
        self.apply_button.clicked.connect(self.apply_audit)
        audit = QGroupBox("Review queue audit")
        form = QFormLayout(audit)
        form.addRow("Share of review slots", self.share)
        form.addRow("Seed", self.seed)
        form.addRow(self.apply_button)

        self.batch_box = QComboBox()
        self.batch_box.setObjectName("selection_batch")
        self.order_box = QComboBox()
        self.order_box.setObjectName("selection_order")
        self.order_box.addItems(ORDERS)
        self.rater_box = QComboBox()
        self.rater_box.setObjectName("selection_rater")
        self.order_seed = QSpinBox()
        self.order_seed.setRange(0, 2 ** 31 - 1)
        self.set_button = QPushButton("Set order")
        self.set_button.setObjectName("selection_set")
        self.set_button.clicked.connect(self.set_order)
        self.batch_box.currentIndexChanged.connect(self._show_order)
        self.order_box.currentTextChanged.connect(self._enable)
        chooser = QGroupBox("Selection order (Next image to annotate, claims, packages)")
        form = QFormLayout(chooser)
        form.addRow("Batch", self.batch_box)
        form.addRow("Order", self.order_box)
        form.addRow("Uncertainty of", self.rater_box)
        form.addRow("Random seed", self.order_seed)
        form.addRow(self.set_button)

        self.message = QLabel(wordWrap=True)
        self.message.setObjectName("selection_message")
        layout = QVBoxLayout(self)
        for w in (self.picker, audit, chooser, self.message):
            layout.addWidget(w)
        self.refill()

    def refill(self) -> None:
        """Read the stored audit and the batches."""
        found = self.owner.audit()
        self.share.setValue(0.0 if found is None else 100 * found.share)
        self.batch_box.clear()
        for batch in self.owner.batches():
            self.batch_box.addItem(f"{batch.name} ({batch.phase})", batch.id)
        self.rater_box.clear()
        # models first (what the order is for; owner.raters() lists people only), then people
        for rater_id, label in self.owner.models():
            self.rater_box.addItem(f"{label} (model)", rater_id)
        for rater in self.owner.raters(Role.ANNOTATOR):
            self.rater_box.addItem(rater.label, rater.id)
        self._show_order()

    def _show_order(self) -> None:
        batch_id = self.batch_box.currentData()
        if batch_id is None:
            self._enable()
            return
        chosen = self.owner.selection_order(batch_id)
        self.order_box.setCurrentText(chosen.order)
        if chosen.rater_id is not None:
            self.rater_box.setCurrentIndex(max(0, self.rater_box.findData(chosen.rater_id)))
        self.order_seed.setValue(chosen.seed)
        self._enable()

    def _enable(self) -> None:
        self.set_button.setEnabled(self.batch_box.currentData() is not None)
        self.rater_box.setEnabled(self.order_box.currentText() == "uncertainty")
        self.order_seed.setEnabled(self.order_box.currentText() == "random")

    def _who(self) -> int | None:
        owner_id = self.picker.owner_id
        if owner_id is None:
            self.message.setText("Choose the acting owner first (or create one: New owner…).")
        return owner_id

    def apply_audit(self) -> None:
        owner_id = self._who()
        if owner_id is None:
            return
        seed = None if self.seed.value() < 0 else self.seed.value()
        try:
            found = self.owner.set_audit(owner_id, self.share.value() / 100, seed)
        except (PermissionError, ValueError) as exc:
            self.message.setText(str(exc))
            return
        self.message.setText("Audit off: the review queue shows the method's order only."
                             if found is None else
                             f"Audit on: {100 * found.share:g} % of the review slots are drawn "
                             f"at random from the whole queue (seed {found.seed}).")

    def set_order(self) -> None:
        owner_id = self._who()
        batch_id = self.batch_box.currentData()
        if owner_id is None or batch_id is None:
            return
        order = self.order_box.currentText()
        rater = self.rater_box.currentData() if order == "uncertainty" else None
        try:
            self.owner.set_selection_order(owner_id, batch_id, order, rater,
                                           self.order_seed.value())
        except (PermissionError, ValueError, KeyError) as exc:
            self.message.setText(str(exc))
            return
        self.message.setText(f"{self.batch_box.currentText()} now hands out its images in "
                             f"{order} order.")
