"""Widgets of the annotate page's side panel: who annotates what, status and time, questions,
navigation and the guidelines dialog. They hold no project state; the page fills them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QSpinBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.annotating import provenance_text
from slicereview.gui.annotate.questions_form import QuestionsForm
from slicereview.gui.common.polygon_items import colour_name
from slicereview.model import AnnotationStatus, Certainty, Phase, Polygon

STATUS_TEXT = {
    None: "not started",
    AnnotationStatus.IN_PROGRESS: "in progress",
    AnnotationStatus.SUBMITTED: "submitted",
    AnnotationStatus.NOTHING_TO_ANNOTATE: "nothing to annotate",
}


def format_ms(ms: int) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a duration in milliseconds.

    >>> format_ms(83_400), format_ms(3_723_000)
    ('1:23', '1:02:03')
    """
    s = int(ms) // 1000
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class AnnotatePanel(QWidget):
    """The right-hand side of the annotate page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.annotator_box = QComboBox()
        self.annotator_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.annotator_box.setMinimumContentsLength(12)
        self.annotator_box.setToolTip("Whose annotation is shown; anyone else's than yours "
                                      "is read-only")
        self.you_box = QComboBox()
        self.you_box.setObjectName("you_are")
        self.you_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.you_box.setMinimumContentsLength(12)
        self.you_box.setToolTip("Who you are: only your own annotations can be edited and gather "
                                "your active time (remembered)")
        self.new_annotator_button = QPushButton("New…")
        self.new_annotator_button.setToolTip("Add an annotator by name")
        self.phase_box = QComboBox()
        self.phase_box.addItems([p.value for p in Phase])
        self.phase_box.setCurrentText(Phase.FORMAL.value)
        self.phase_box.setToolTip("Phase: onboarding (with a gold standard), pilot or formal")
        self.round_box = QSpinBox()
        self.round_box.setRange(1, 999)
        self.round_box.setToolTip("Round within the phase")
        who = QGroupBox("Annotator")
        form = QFormLayout(who)
        row = QHBoxLayout()
        row.addWidget(self.you_box, 1)
        row.addWidget(self.new_annotator_button)
        form.addRow("You are", row)
        form.addRow("Showing", self.annotator_box)
        form.addRow("Phase", self.phase_box)
        form.addRow("Round", self.round_box)

        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.RichText)
        self.time_label = QLabel()
        self.time_label.setToolTip("Active annotation time on this image (pauses when the "
                                   "window is inactive or after a minute without input)")
        self.progress_label = QLabel()
        #: The selected polygon: certainty, vertices and how it was made (its provenance).
        self.selected_label = QLabel()
        self.selected_label.setWordWrap(True)
        self.selected_label.setVisible(False)
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setStyleSheet("color: #e0a030")
        status = QGroupBox("This image")
        col = QVBoxLayout(status)
        for w in (self.status_label, self.time_label, self.progress_label, self.selected_label,
                  self.message_label):
            col.addWidget(w)

        self.image_form = QuestionsForm()
        self.image_group = QGroupBox("Image classification")
        QVBoxLayout(self.image_group).addWidget(self.image_form)
        self.polygon_form = QuestionsForm()
        self.polygon_group = QGroupBox("Selected polygon")
        QVBoxLayout(self.polygon_group).addWidget(self.polygon_form)

        self.image_form.setMinimumWidth(0)
        self.previous_button = QPushButton("◀ Previous")
        self.previous_button.setToolTip("Previous image (Page Up)")
        self.next_button = QPushButton("Next ▶")
        self.next_button.setToolTip("Next image (Page Down)")
        self.nothing_button = QPushButton("Nothing to annotate")
        self.nothing_button.setToolTip("This image has nothing to outline (an answer, not a "
                                       "gap); goes to the next image")
        self.submit_button = QPushButton("Submit")
        self.submit_button.setToolTip("This annotation is finished (Ctrl+Return); goes to the "
                                      "next image. Editing it later reopens it.")
        self.guidelines_button = QPushButton("Guidelines")
        self.guidelines_button.setToolTip("Show the current task guidelines")
        buttons = QGridLayout()
        buttons.addWidget(self.previous_button, 0, 0)
        buttons.addWidget(self.next_button, 0, 1)
        buttons.addWidget(self.nothing_button, 1, 0)
        buttons.addWidget(self.submit_button, 1, 1)
        buttons.addWidget(self.guidelines_button, 2, 0, 1, 2)

        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(4, 4, 4, 4)
        # Never squeeze the forms: the page's scroll area scrolls instead.
        self.column.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        for group in (who, status, self.image_group, self.polygon_group):
            self.column.addWidget(group)
        self.column.addLayout(buttons)
        self.column.addStretch(1)

    def insert(self, index: int, widget: QWidget) -> None:
        """Put ``widget`` at ``index`` of the panel's column (a part's box)."""
        self.column.insertWidget(index, widget)

    def show_status(self, status: AnnotationStatus | None, polygons: list[Polygon],
                    done: int | None, total: int, *, returned: bool = False) -> None:
        counts = {c: sum(p.certainty is c for p in polygons) for c in Certainty}
        word = "returned (rejected by a reviewer)" if returned else STATUS_TEXT[status]
        self.status_label.setText(
            f"<b>Status:</b> {word}<br>{len(polygons)} polygon(s): "
            f"<span style='color:{colour_name(Certainty.CERTAIN)}'>"
            f"{counts[Certainty.CERTAIN]} certain (solid)</span>, "
            f"<span style='color:{colour_name(Certainty.UNCERTAIN)}'>"
            f"{counts[Certainty.UNCERTAIN]} uncertain (dashed)</span>")
        self.progress_label.setText("" if done is None else f"Done: {done} of {total} images")

    def show_time(self, ms: int, *, paused: bool) -> None:
        self.time_label.setText(f"Active time: {format_ms(ms)}{' (paused)' if paused else ''}")

    def show_selected(self, polygon: Polygon | None) -> None:
        self.polygon_group.setTitle(
            f"Selected polygon ({polygon.certainty.value}, {len(polygon.vertices)} vertices)"
            if polygon else "Selected polygon (none)")
        self.selected_label.setText(
            f"Selected: {polygon.certainty.value}, {len(polygon.vertices)} vertices, made "
            f"{provenance_text(polygon)}" if polygon else "")
        self.selected_label.setVisible(polygon is not None)


class GuidelinesDialog(QDialog):
    """The newest guideline text (Markdown), non-modal so it can stay open beside the image."""

    def __init__(self, version: int | None, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Guidelines (version {version})" if version else "Guidelines")
        self.browser = QTextBrowser()
        self.browser.setMarkdown(text or "This project has no guidelines yet.")
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(box)
        self.resize(520, 400)
