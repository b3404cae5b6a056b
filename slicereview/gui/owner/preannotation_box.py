"""The Owner's batch settings, *Pre-annotation of the selected batch*: which model's polygons
the batch's annotators start from, on every image or on a seeded random half, or none
(:mod:`slicereview.app.qa.preannotation`; docs/models.md). It shows the setting in force as
one sentence (the model, the share, the seed, how many image × annotator starts begin from
the model, who set it and when) and writes through the owner service."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.gateway.owner import OwnerService

SHARES = ((None, "no image (annotators start empty)"), ("half", "a random half of the images"),
          ("all", "every image"))


class PreannotationBox(QGroupBox):
    """``owner``: the owner service; ``failed(message)``: where a refusal is said."""

    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__("Pre-annotation of the selected batch", parent)
        self.owner = owner
        self.batch_id: int | None = None
        self.model_box = QComboBox()
        self.model_box.setPlaceholderText("no model in this project")
        self.model_box.setToolTip("The model whose polygons the annotators start from (its "
                                  "predictions: slicereview predictions import, or Owner ▸ "
                                  "Models…)")
        self.share_box = QComboBox()
        for key, text in SHARES:
            self.share_box.addItem(text, key)
        self.seed = QSpinBox(minimum=0, maximum=2_147_483_647, value=0)
        self.seed.setToolTip("Seed of the random half: the same seed gives the same design")
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply)
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        row = QHBoxLayout()
        for w in (QLabel("Show"), self.model_box, QLabel("on"), self.share_box, QLabel("seed"),
                  self.seed):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.apply_button)
        col = QVBoxLayout(self)
        col.addLayout(row)
        col.addWidget(self.state)
        col.addWidget(self.message)
        self.show_batch(None)

    def show_batch(self, batch_id: int | None) -> None:
        """Show the setting of ``batch_id`` (``None``: no batch selected)."""
        self.batch_id = batch_id
        self.message.clear()
        self.model_box.clear()
        for rater_id, label in self.owner.models() if self.owner.is_open else []:
            self.model_box.addItem(label, rater_id)
        enabled = batch_id is not None
        for w in (self.model_box, self.share_box, self.seed, self.apply_button):
            w.setEnabled(enabled)
        if batch_id is None:
            self.model_box.setCurrentIndex(0 if self.model_box.count() else -1)
            self.state.setText("Select a batch to show a model's polygons to its annotators.")
            return
        text, model_id, share, seed = self.owner.preannotation(batch_id)
        self.state.setText(text)
        self.model_box.setCurrentIndex(self.model_box.findData(model_id) if model_id else
                                       (0 if self.model_box.count() else -1))
        self.share_box.setCurrentIndex(self.share_box.findData(share))
        self.seed.setValue(seed)

    def apply(self) -> bool:
        """Write the form's setting for the selected batch; whether it was written."""
        if self.batch_id is None:
            return False
        try:
            self.owner.set_preannotation(self.batch_id, self.model_box.currentData(),
                                         self.share_box.currentData(), self.seed.value())
        except (ValueError, KeyError, PermissionError) as exc:
            self.message.setText(str(exc))
            return False
        self.show_batch(self.batch_id)
        return True
