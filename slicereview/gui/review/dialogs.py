"""Dialogs of the Review tab: the reason of a rejection or a pinned comment.

A rejection needs a reason (a tag or text, :data:`~slicereview.app.review.decisions.REASON_NEEDED`)
and so does a pin; OK stays disabled until there is one, so the rule is visible before the
click rather than an error after it. A pin also says who reads it (:class:`PinDialog`).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.review.decisions import REASON_TAGS


class ReasonDialog(QDialog):
    """Reason tags (check boxes) and free text; :meth:`reason` after ``exec()``."""

    def __init__(self, title: str, prompt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.tag_boxes = [QCheckBox(tag) for tag in REASON_TAGS]
        grid = QGridLayout()
        for k, box in enumerate(self.tag_boxes):
            grid.addWidget(box, k // 2, k % 2)
            box.toggled.connect(self._update)
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("Why (free text; optional when a tag is ticked)")
        self.text.setMaximumHeight(90)
        self.text.textChanged.connect(self._update)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.hint = QLabel("Pick a reason tag or write why.")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(prompt))
        layout.addLayout(grid)
        layout.addWidget(self.text)
        layout.addWidget(self.hint)
        layout.addWidget(self.buttons)
        self._update()
        self.text.setFocus()  # R or Shift+P, then type why: the keys go to the text at once

    def reason(self) -> tuple[tuple[str, ...], str]:
        """``(tags, text)`` as entered."""
        tags = tuple(b.text() for b in self.tag_boxes if b.isChecked())
        return tags, self.text.toPlainText().strip()

    def _update(self) -> None:
        tags, text = self.reason()
        ok = bool(tags or text)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        self.hint.setVisible(not ok)


class PinDialog(ReasonDialog):
    """A pinned comment and who reads it (:meth:`readers` after ``exec()``): the selected
    annotator's annotation (it goes back to them with a rejection), the image for reviewers
    and owners, or the image for everyone (every annotator reads it; only the owner's)."""

    ANNOTATION, IMAGE, EVERYONE = "annotation", "image", "everyone"

    def __init__(self, annotator: str | None, owner: bool, parent: QWidget | None = None
                 ) -> None:
        super().__init__("Pin a comment", "Comment on this region:", parent)
        self.choices = {
            self.ANNOTATION: QRadioButton(
                f"On {annotator}'s annotation: it goes back to {annotator} with a rejection"
                if annotator else "On an annotation (select an annotator first)"),
            self.IMAGE: QRadioButton("On the image, for reviewers and owners"),
            self.EVERYONE: QRadioButton("On the image, for everyone: every annotator of the "
                                        "image reads it"),
        }
        self.choices[self.ANNOTATION].setEnabled(annotator is not None)
        self.choices[self.EVERYONE].setEnabled(owner)
        if not owner:
            self.choices[self.EVERYONE].setToolTip(
                "Only the task owner marks a pin for everyone: choose an owner as the "
                "Reviewer.")
        self.choices[self.ANNOTATION if annotator else self.IMAGE].setChecked(True)
        group = QGroupBox("Who reads it")
        column = QVBoxLayout(group)
        for button in self.choices.values():
            column.addWidget(button)
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.count() - 1, group)  # (above OK and Cancel)

    def readers(self) -> str:
        """:data:`ANNOTATION`, :data:`IMAGE` or :data:`EVERYONE`."""
        return next(k for k, button in self.choices.items() if button.isChecked())
