"""The "New rating session" dialog of the Rate page.

It asks for the kind (sort / exhaustive / to a confidence / classify), the rater (an existing
name or a new one, created on OK), the image set (or all images, made into a new set), the
prompt, the sort algorithm (default :data:`slicereview.engines.ranking.DEFAULT`, ``k`` for
top-k), the labels of a classify session, and for a confidence session the raters sharing it and
its stop rule (:mod:`slicereview.gui.rate.confidence_fields`). The seed is drawn at random by
the store and kept with the session.

The dialog remembers the last choices (user settings, :func:`slicereview.gui.common.settings.
rating_choices`): kind, rater, image set (by name), algorithm, labels, and one prompt for
pairwise kinds and one for classify. Changing the kind swaps in that kind's prompt unless the
user has typed their own for this session (a grade prompt — "How much …?" — for classify,
a choice — "Which image shows more …?" — for sort and exhaustive).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QSpinBox,
    QWidget,
)

from slicereview.app.rating.sessions import NewSessionSpec, default_prompt
from slicereview.engines.ranking import ALGORITHMS, DEFAULT, DEFAULT_K, estimate_comparisons
from slicereview.engines.ranking.scoring import DEFAULT_LABELS
from slicereview.gui.common.settings import rating_choices, remember_rating_choices
from slicereview.gui.rate.confidence_fields import ConfidenceFields
from slicereview.model import SessionKind

KINDS = (
    (SessionKind.SORT, "Sort — pairwise, the sort chooses the pairs"),
    (SessionKind.EXHAUSTIVE, "Exhaustive — every pair once"),
    (SessionKind.CLASSIFY, "Classify — one grade per image"),
    (SessionKind.CONFIDENCE, "To a confidence — a sort, then the most doubtful pairs, to a "
                             "budget or a target; several raters"),
)


class NewSessionDialog(QDialog):
    """Collects a :class:`NewSessionSpec`; read it with :meth:`spec` after ``exec()``."""

    def __init__(self, raters: list[str], image_sets: list[tuple[int, str, int]],
                 all_images: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New rating session")
        self.kind = QComboBox()
        for kind, text in KINDS:
            self.kind.addItem(text, kind)
        self.rater = QComboBox()
        self.rater.setEditable(True)
        self.rater.addItems(raters)
        self.rater.setCurrentText("")
        edit = self.rater.lineEdit()
        if edit is not None:  # (an editable combo box has one)
            edit.setPlaceholderText("your name (a new name creates a rater)")
        self.image_set = QComboBox()
        for set_id, name, count in image_sets:
            self.image_set.addItem(f"{name} ({count} images)", (set_id, count, name))
        self.image_set.addItem(f"All images of the project ({all_images}) — new set",
                               (None, all_images, None))
        self.prompt = QLineEdit()
        self.prompt.textEdited.connect(self._on_prompt_edited)
        self._prompt_edited = False
        self.algorithm = QComboBox()
        for name in ALGORITHMS:
            self.algorithm.addItem(name + (" (default)" if name == DEFAULT else ""), name)
        self.algorithm.setCurrentIndex(list(ALGORITHMS).index(DEFAULT))
        self.k = QSpinBox()
        self.k.setRange(1, 1000)
        self.k.setValue(DEFAULT_K)
        self.labels = QLineEdit(", ".join(DEFAULT_LABELS))
        self.labels.setToolTip("2 to 9 grades from least to most, separated by commas "
                               "(keys 1–9)")
        self.confidence = ConfidenceFields()
        self.name = QLineEdit()
        self.name.setPlaceholderText("automatic: rater — kind n")
        self.estimate = QLabel()
        form = QFormLayout(self)
        form.addRow("Kind", self.kind)
        form.addRow("Rater", self.rater)
        form.addRow("Image set", self.image_set)
        form.addRow("Prompt", self.prompt)
        form.addRow("Algorithm", self.algorithm)
        form.addRow("k (top-k)", self.k)
        form.addRow("Labels", self.labels)
        form.addRow("To a confidence", self.confidence)
        form.addRow("Session name", self.name)
        form.addRow("", self.estimate)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._restore(rating_choices())
        for box in (self.kind, self.algorithm, self.image_set):
            box.currentIndexChanged.connect(self._update)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.k.valueChanged.connect(self._update)
        self.confidence.changed.connect(self._update)
        self.rater.currentTextChanged.connect(self._update)
        self._on_kind()
        self._update()
        self.resize(560, self.sizeHint().height())

    def _restore(self, last: dict[str, str]) -> None:
        self._last = last
        for box, key in ((self.kind, "kind"), (self.algorithm, "algorithm")):
            for i in range(box.count()):
                if str(box.itemData(i)) == last.get(key):
                    box.setCurrentIndex(i)
        for i in range(self.image_set.count() - 1):  # by name; "all images" is never kept
            if self.image_set.itemData(i)[2] == last.get("image_set"):
                self.image_set.setCurrentIndex(i)
        self.rater.setCurrentText(last.get("rater", ""))
        self.confidence.restore(last)
        if "labels" in last:
            self.labels.setText(last["labels"])

    def _prompt_key(self) -> str:
        classify = self.kind.currentData() == SessionKind.CLASSIFY
        return "question_classify" if classify else "question_pairwise"

    def _on_prompt_edited(self, _text: str) -> None:
        self._prompt_edited = True

    def _on_kind(self, *_args: object) -> None:
        """Swap in the kind's prompt (the remembered one, else the default) unless typed."""
        if not self._prompt_edited:
            kind = self.kind.currentData()
            self.prompt.setText(self._last.get(self._prompt_key(), default_prompt(kind)))

    def remember(self) -> None:
        """Keep this dialog's choices for the next one."""
        remember_rating_choices({
            "kind": str(self.kind.currentData()), "rater": self.rater.currentText().strip(),
            "algorithm": self.algorithm.currentData(), "labels": self.labels.text(),
            "image_set": self.image_set.currentData()[2] or "",
            self._prompt_key(): self.prompt.text().strip(), **self.confidence.settings(),
        })

    def _update(self, *_args: object) -> None:
        kind = self.kind.currentData()
        self.algorithm.setEnabled(kind == SessionKind.SORT)
        self.k.setEnabled(kind == SessionKind.SORT and self.algorithm.currentData() == "top-k")
        self.labels.setEnabled(kind == SessionKind.CLASSIFY)
        self.confidence.setEnabled(kind == SessionKind.CONFIDENCE)
        n = self.image_set.currentData()[1]
        if kind == SessionKind.SORT:
            k = self.k.value() if self.algorithm.currentData() == "top-k" else None
            q = estimate_comparisons(n, self.algorithm.currentData(), k)
            text = f"{n} images: about {q} comparisons (fewer when images tie)"
        elif kind == SessionKind.EXHAUSTIVE:
            text = f"{n} images: {n * (n - 1) // 2} comparisons"
        elif kind == SessionKind.CONFIDENCE:
            text = self.confidence.estimate(n)
        else:
            text = f"{n} images: {n} grades"
        self.estimate.setText(text)

    def label_list(self) -> tuple[str, ...]:
        return tuple(x.strip() for x in self.labels.text().split(",") if x.strip())

    def spec(self) -> NewSessionSpec:
        kind = self.kind.currentData()
        confidence = kind == SessionKind.CONFIDENCE
        return NewSessionSpec(
            kind=kind, rater=self.rater.currentText().strip(),
            image_set_id=self.image_set.currentData()[0],
            prompt=self.prompt.text().strip(), algorithm=self.algorithm.currentData(),
            k=self.k.value() if self.algorithm.currentData() == "top-k" else None,
            labels=self.label_list(), name=self.name.text().strip(),
            shared_with=self.confidence.shared_with() if confidence else (),
            stop=self.confidence.stop() if confidence else None,
        )

    def problem(self) -> str | None:
        """Why OK cannot be accepted now, or ``None``."""
        if not self.rater.currentText().strip():
            return "Enter the rater's name."
        if self.image_set.currentData()[1] < 2:
            return "Rating needs at least two images."
        if self.kind.currentData() == SessionKind.CLASSIFY and not 2 <= len(
                self.label_list()) <= 9:
            return "A classify session needs 2 to 9 labels (keys 1–9)."
        if self.kind.currentData() == SessionKind.CONFIDENCE:
            return self.confidence.problem(self.rater.currentText().strip())
        return None

    def accept(self) -> None:
        problem = self.problem()
        if problem:
            QMessageBox.warning(self, "New rating session", problem)
            return
        self.remember()
        super().accept()
