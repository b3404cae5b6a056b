"""The right-hand panel of the Review tab: image α, the annotators (legend, visibility and
decisions), the boxes worst first, the heat-map colour bar, the image's [CrowdSegQA, Table 1]
features and the pins.

The panel shows values and emits what the reviewer asks for; the page turns requests into
undoable commands. The table's *Decision* column holds the decision's word (never cut); the
selected annotator's decision with its reason tags and comment is written out in full below the
table (it used to be cut to "rejected: missed finding, A faint …"). Numbers name their method:
image α is Krippendorff's α on binary pixel values, "α (nominal, strict)" with ROI = certain
pixels, "relaxed" with certain or uncertain.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.report.formatting import fixed
from slicereview.app.review.image import ReviewImage
from slicereview.engines.review.features import ImageFeatures
from slicereview.gui.review.overlay import annotator_colour, band_colour, vote_colour

DECISION_TEXT = {"accept": "accepted", "reject": "rejected", "expert_review": "expert review"}
#: What the decision cell says while the decision is being stored (:meth:`show_pending`).
PENDING_TEXT = {"accept": "accepting…", "reject": "rejecting…",
                "expert_review": "to expert…"}
DECISION_COLOURS = {"accept": "#34C759", "reject": "#FF453A", "expert_review": "#BF5AF2"}
FEATURE_NAMES = (
    ("strict_alpha", "α (nominal, strict)"), ("relaxed_alpha", "α (nominal, relaxed)"),
    ("unsure_share", "uncertain share"), ("unsure_pixels", "uncertain pixels"),
    ("area_mean", "area mean (px)"), ("area_std", "area std (px, ddof=0)"),
    ("n_boxes", "boxes"), ("n_disagreement", "  α ≤ 0.1 disagreement"),
    ("n_low", "  α ≤ 0.667 low"), ("n_moderate", "  α ≤ 0.8 moderate"),
    ("n_high", "  α > 0.8 high"), ("wbbox", "Wbbox Σ(1−α)·area"),
    ("wbbox_per_pixel", "Wbbox per pixel"), ("intra_strict", "intra-rater α strict"),
)


def decision_text(name: str, decision) -> str:
    """The decision in force on ``name``'s annotation, with reason tags and comment, in full.

    >>> decision_text("Ann", None)
    'Ann: not decided yet'
    """
    if decision is None:
        return f"{name}: not decided yet"
    text = f"{name}: {DECISION_TEXT[str(decision.decision)]}"
    if decision.tags:
        text += " — " + ", ".join(decision.tags)
    if decision.comment:
        text += f" — “{decision.comment}”"
    return text


def _fmt(value: float | int) -> str:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def swatch(colour: QColor, dashed: bool = False, size: int = 14) -> QPixmap:
    pix = QPixmap(size, size)
    pix.fill(colour)
    return pix


class HeatBar(QWidget):
    """Colour bar of the heat map: 1 .. R votes, all certain (top) and all uncertain (bottom)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.raters = 0
        self.setMinimumHeight(54)

    def set_raters(self, raters: int) -> None:
        self.raters = raters
        self.update()

    def paintEvent(self, _event) -> None:
        if self.raters < 1:
            return
        p = QPainter(self)
        w = (self.width() - 70) / self.raters
        for k in range(1, self.raters + 1):
            colour = vote_colour(k, self.raters)
            x = int(70 + (k - 1) * w)
            p.fillRect(x, 2, int(w) - 2, 14, colour)
            faint = QColor(colour)
            faint.setAlpha(90)
            p.fillRect(x, 18, int(w) - 2, 14, QColor("#808080"))  # over a mid-grey image
            p.fillRect(x, 18, int(w) - 2, 14, faint)
            p.setPen(QColor("#FFFFFF") if k < self.raters else QColor("#000000"))
            p.drawText(x, 2, int(w) - 2, 14, Qt.AlignmentFlag.AlignCenter, str(k))
            p.setPen(QColor("#000000"))
            p.drawText(x, 18, int(w) - 2, 14, Qt.AlignmentFlag.AlignCenter, str(k))
        p.setPen(self.palette().windowText().color())
        p.drawText(0, 2, 68, 14, Qt.AlignmentFlag.AlignLeft, "certain")
        p.drawText(0, 18, 68, 14, Qt.AlignmentFlag.AlignLeft, "uncertain")
        p.drawText(0, 36, self.width(), 16, Qt.AlignmentFlag.AlignLeft,
                   f"votes: annotators who marked the pixel, of {self.raters}")
        p.end()


class ReviewDecisionsPanel(QWidget):
    annotator_toggled = Signal(int, bool)
    #: A box was picked in the list: its index in the worst-first order.
    box_chosen = Signal(int)
    decision_requested = Signal(str)
    accept_all_requested = Signal()
    pin_requested = Signal()
    #: The selected image pin for everyone (``True``) or for reviewers and owners only: its id.
    for_everyone_requested = Signal(int, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.review: ReviewImage | None = None
        self.alpha_label = QLabel()
        self.alpha_label.setWordWrap(True)
        self.alpha_label.setTextFormat(Qt.TextFormat.RichText)
        self.annotators = QTableWidget(0, 3)
        self.annotators.setHorizontalHeaderLabels(["Show", "Annotator", "Decision"])
        self.annotators.verticalHeader().setVisible(False)
        self.annotators.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.annotators.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.annotators.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.annotators.horizontalHeader().setStretchLastSection(True)
        self.annotators.setMaximumHeight(170)
        self.annotators.setWordWrap(True)
        self.annotators.itemSelectionChanged.connect(self._show_decision)
        self.decision_label = QLabel()  # the selected annotator's decision, in full
        self.decision_label.setWordWrap(True)
        self.decision_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.annotators.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        buttons = QGridLayout()
        #: Accept, Reject, Expert review, Pin and Accept all (:meth:`set_deciding`).
        self.decision_buttons: list[QPushButton] = []
        self._tips: list[str] = []
        for k, (text, tip, slot) in enumerate((
                ("Accept (A)", "Accept the selected annotation",
                 lambda: self.decision_requested.emit("accept")),
                ("Reject… (R)", "Reject the selected annotation (a reason is required)",
                 lambda: self.decision_requested.emit("reject")),
                ("Expert review (E)", "Send the selected annotation to an expert",
                 lambda: self.decision_requested.emit("expert_review")),
                ("Pin comment (P)", "Comment on the selected box, or press P and click a point",
                 self.pin_requested.emit),
                ("Accept all and next (Ctrl+Return)", "Accept every undecided annotation of "
                 "this image and go to the next image", self.accept_all_requested.emit))):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(slot)
            self.decision_buttons.append(button)
            self._tips.append(tip)
            buttons.addWidget(button, k // 2, k % 2, 1, 2 if k == 4 else 1)
        self.boxes = QListWidget()
        self.boxes.setWordWrap(True)  # (an entry wraps: the panel never scrolls sideways)
        self.boxes.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.boxes.setToolTip("Boxes worst first (Tab / Shift+Tab walk them)")
        self.boxes.currentRowChanged.connect(self._on_box_row)
        self.heat_bar = HeatBar()
        self.features = QLabel()
        self.features.setTextFormat(Qt.TextFormat.RichText)
        self.pins = QListWidget()
        self.pins.setMaximumHeight(110)
        self.pins.setWordWrap(True)  # (who reads it and the whole comment, never cut)
        self.pins.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pins.currentRowChanged.connect(self._on_pin_row)
        self.for_everyone_button = QPushButton("Mark for everyone")
        self.for_everyone_button.setToolTip(
            "An image pin the owner marks for everyone is read by every annotator of the image "
            "(without its α); others are read by reviewers and owners, or, on an annotation, "
            "by its annotator once it is returned")
        self.for_everyone_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.for_everyone_button.setEnabled(False)
        self.for_everyone_button.clicked.connect(self._on_for_everyone)
        self.message = QLabel()
        self.message.setWordWrap(True)

        who = QGroupBox("Annotators")
        wl = QVBoxLayout(who)
        wl.addWidget(self.annotators)
        wl.addWidget(self.decision_label)
        wl.addLayout(buttons)
        wl.addWidget(self.message)  # (next to the buttons whose refusals it says)
        box_group = QGroupBox("Boxes, worst α first")
        QVBoxLayout(box_group).addWidget(self.boxes)
        heat = QGroupBox("Agreement heat map")
        QVBoxLayout(heat).addWidget(self.heat_bar)
        feats = QGroupBox("Features")
        QVBoxLayout(feats).addWidget(self.features)
        pins = QGroupBox("Pinned comments")
        pin_column = QVBoxLayout(pins)
        pin_column.addWidget(self.pins)
        pin_column.addWidget(self.for_everyone_button)
        layout = QVBoxLayout(self)
        #: The panel's sections, top to bottom (the page adds the model's under the boxes).
        self.sections = layout
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.alpha_label)
        layout.addWidget(who)
        layout.addWidget(box_group, 1)
        layout.addWidget(heat)
        layout.addWidget(feats)
        layout.addWidget(pins)
        self.setMinimumWidth(330)

    # -- filling ---------------------------------------------------------------------------
    def set_review(self, review: ReviewImage | None, level: str,
                   features: ImageFeatures | None, keep_selection: bool = False) -> None:
        selected = self.selected_annotator() if keep_selection else None
        pin = self._selected_pin()
        pinned = pin.id if pin is not None else None
        self.review = review
        self.annotators.setRowCount(0)
        self.boxes.clear()
        self.pins.clear()
        if review is None:
            self.alpha_label.setText("")
            self.features.setText("")
            self.heat_bar.set_raters(0)
            return
        self.alpha_label.setText(
            f"<b>α (nominal, strict)</b> {_fmt(review.strict.alpha)}<br>"
            f"<b>α (nominal, relaxed)</b> {_fmt(review.relaxed.alpha)}<br>"
            f"{len(review.annotators)} annotators · boxes: {level}")
        self.annotators.setRowCount(len(review.annotators))
        for k, work in enumerate(review.annotators):
            show = QCheckBox()
            show.setChecked(True)
            show.setIcon(swatch(annotator_colour(k)))
            show.setToolTip(f"Show {work.name}'s outlines (solid certain, dashed uncertain)")
            show.toggled.connect(lambda on, k=k: self.annotator_toggled.emit(k, on))
            self.annotators.setCellWidget(k, 0, show)
            name = QTableWidgetItem(work.name)  # default text colour: yellow is unreadable
            name.setToolTip(work.name)
            self.annotators.setItem(k, 1, name)
            d = work.decision
            text = "—" if d is None else DECISION_TEXT[str(d.decision)]
            item = QTableWidgetItem(text)
            item.setToolTip(decision_text(work.name, d))
            if d is not None:
                item.setForeground(QColor(DECISION_COLOURS[str(d.decision)]))
            self.annotators.setItem(k, 2, item)
        self.annotators.resizeColumnToContents(0)
        self.annotators.resizeColumnToContents(1)
        self.annotators.setColumnWidth(1, min(self.annotators.columnWidth(1), 150))
        self.annotators.resizeRowsToContents()
        self.annotators.selectRow(selected if selected is not None and
                                  selected < len(review.annotators) else 0)
        blocker = self.boxes.blockSignals(True)
        for b in review.boxes(level):
            r0, c0, r1, c1 = b.box
            alpha = "n/a" if math.isnan(b.alpha) else fixed(b.alpha, 3)
            entry = QListWidgetItem(f"α {alpha}  {b.band:<12}  {c1 - c0}×{r1 - r0} px at "
                                    f"({c0}, {r0})")
            entry.setIcon(swatch(band_colour(b.band)))
            self.boxes.addItem(entry)
        self.boxes.blockSignals(blocker)
        self.heat_bar.set_raters(len(review.annotators))
        names = {w.annotation_id: w.name for w in review.annotators}
        for pin in review.pins:
            where = ("box" if pin.pin_kind == "box" else "point") + " " + ", ".join(
                f"{v:.0f}" for v in pin.pin_at)
            readers = ("for everyone" if pin.for_everyone else "reviewers and owners"
                       if pin.annotation_id is None
                       else f"on {names.get(pin.annotation_id, 'an annotation')}")
            self.pins.addItem(f"{where} ({readers}): "
                              f"{', '.join([*pin.tags, pin.comment]).strip(', ')}")
        ids = [p.id for p in review.pins]
        if pinned in ids:  # (the pin just marked stays selected)
            self.pins.setCurrentRow(ids.index(pinned))
        self._on_pin_row(self.pins.currentRow())
        self._set_features(features)

    def _set_features(self, f: ImageFeatures | None) -> None:
        if f is None:
            self.features.setText("")
            return
        rows = "".join(f"<tr><td>{label}</td><td align='right'>{_fmt(getattr(f, key))}</td></tr>"
                       for key, label in FEATURE_NAMES)
        self.features.setText(f"<table cellspacing='0' cellpadding='1'>{rows}</table>")

    # -- selection -------------------------------------------------------------------------
    def _show_decision(self) -> None:
        index = self.selected_annotator()
        if self.review is None or index is None or index >= len(self.review.annotators):
            self.decision_label.setText("")
            return
        work = self.review.annotators[index]
        self.decision_label.setText(decision_text(work.name, work.decision))

    def _selected_pin(self):
        row = self.pins.currentRow()
        return self.review.pins[row] if self.review and 0 <= row < len(self.review.pins) \
            else None

    def _on_pin_row(self, _row: int) -> None:
        pin = self._selected_pin()
        self.for_everyone_button.setEnabled(pin is not None and pin.annotation_id is None)
        self.for_everyone_button.setText(
            "For reviewers and owners only" if pin is not None and pin.for_everyone
            else "Mark for everyone")

    def _on_for_everyone(self) -> None:
        pin = self._selected_pin()
        if pin is not None:
            self.for_everyone_requested.emit(pin.id, not pin.for_everyone)

    def set_deciding(self, allowed: bool, why: str = "") -> None:
        """Enable the decision and pin buttons, or disable them saying ``why`` (their tip)."""
        for button, tip in zip(self.decision_buttons, self._tips, strict=True):
            button.setEnabled(allowed)
            button.setToolTip(tip if allowed else why)

    def show_pending(self, indices: list[int], decision: str) -> None:
        """Say at once that ``decision`` on the annotations of annotators ``indices`` is being
        stored: their decision cells read "accepting…" (in the decision's colour) and the
        message "Saving…", painted before this returns (the write, and the re-read after it,
        come next)."""
        for index in indices:
            item = self.annotators.item(index, 2)
            if item is not None:
                item.setText(PENDING_TEXT[decision])
                item.setForeground(QColor(DECISION_COLOURS[decision]))
        self.message.setText("Saving…")
        self.annotators.viewport().repaint()
        self.message.repaint()

    def selected_annotator(self) -> int | None:
        rows = self.annotators.selectionModel().selectedRows() if self.review else []
        return rows[0].row() if rows else None

    def select_box(self, index: int) -> None:
        blocker = self.boxes.blockSignals(True)
        self.boxes.setCurrentRow(index)
        self.boxes.blockSignals(blocker)

    def _on_box_row(self, row: int) -> None:
        if row >= 0:
            self.box_chosen.emit(row)

    def set_annotator_checked(self, index: int, on: bool) -> None:
        widget = self.annotators.cellWidget(index, 0)
        if isinstance(widget, QCheckBox):
            widget.setChecked(on)

