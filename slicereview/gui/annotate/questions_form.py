"""A form for the project's classification questions (radio, checklist, free text, dropdown).

Answers are a JSON-able dict keyed by question name, the format the store keeps
(:meth:`~slicereview.store.annotations.Annotations.set_image_classifications`) and the
consensus scores read (:mod:`slicereview.engines.agreement.consensus`):

* radio: the chosen option (``str``), missing when nothing is chosen;
* checklist: the list of ticked options, in option order;
* text: the text (``str``), missing when empty;
* dropdown: the path of chosen options from the top of the tree, e.g. ``["Calcification",
  "Vascular"]``. Options are strings or ``{"value": str, "children": [...]}`` nodes.

:attr:`QuestionsForm.answers_changed` fires on every change a user makes (typing is gathered
for half a second first; :meth:`QuestionsForm.flush` sends pending typing at once), never when
answers are set from the project.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.model import Question

_NONE = "—"


def _node(option: object) -> tuple[str, list]:
    if isinstance(option, dict):
        return str(option.get("value", "")), list(option.get("children") or [])
    return str(option), []


class _Dropdown(QWidget):
    """Cascading combo boxes for a nested option tree."""

    changed = Signal()

    def __init__(self, options: list) -> None:
        super().__init__()
        self.options = options
        self.combos: list[QComboBox] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.set_path([])

    def path(self) -> list[str]:
        return [c.currentText() for c in self.combos if c.currentIndex() > 0]

    def set_path(self, path: list[str]) -> None:
        for combo in self.combos:
            self._layout.removeWidget(combo)
            combo.deleteLater()
        self.combos = []
        level, depth = self.options, 0
        while level:
            combo = QComboBox()
            combo.addItem(_NONE)
            combo.addItems([_node(o)[0] for o in level])
            self._layout.addWidget(combo)
            self.combos.append(combo)
            values = [_node(o)[0] for o in level]
            chosen = path[depth] if depth < len(path) and path[depth] in values else None
            if chosen is None:
                combo.currentIndexChanged.connect(self._on_changed)
                break
            combo.setCurrentIndex(values.index(chosen) + 1)
            combo.currentIndexChanged.connect(self._on_changed)
            level, depth = _node(level[values.index(chosen)])[1], depth + 1

    def _on_changed(self) -> None:
        # Keep the choices above and including the changed combo; rebuild what hangs below.
        path = []
        sender = self.sender()
        for combo in self.combos:
            if combo.currentIndex() <= 0:
                break
            path.append(combo.currentText())
            if combo is sender:
                break
        self.set_path(path)
        self.changed.emit()


class QuestionsForm(QWidget):
    """Widgets for a list of questions; read and set the answers as a dict."""

    answers_changed = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.questions: list[Question] = []
        self._widgets: dict[str, QButtonGroup | list[QCheckBox] | _Dropdown | QLineEdit] = {}
        self._form = QFormLayout(self)
        self._form.setContentsMargins(0, 0, 0, 0)
        # Titles above their answers: the form sits in a narrow side panel.
        self._form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(500)
        self._typing.timeout.connect(self._emit)

    def set_questions(self, questions: list[Question]) -> None:
        self._typing.stop()
        while self._form.rowCount():
            self._form.removeRow(0)
        self._widgets = {}
        self.questions = list(questions)
        for q in self.questions:
            widget = self._make(q)
            label = QLabel(q.title or q.name)
            label.setWordWrap(True)
            self._form.addRow(label, widget)

    def _make(self, q: Question) -> QWidget:
        if q.kind == "radio":
            box, group = QWidget(), QButtonGroup(self)
            short = len(q.options) <= 3 and sum(len(str(o)) for o in q.options) <= 24
            layout = QHBoxLayout(box) if short else QVBoxLayout(box)
            layout.setContentsMargins(0, 0, 0, 0)
            for k, option in enumerate(q.options):
                button = QRadioButton(str(option))
                group.addButton(button, k)
                layout.addWidget(button)
            group.idClicked.connect(self._emit)
            self._widgets[q.name] = group
            return box
        if q.kind == "checklist":
            box = QWidget()
            boxes: list[QCheckBox] = []
            layout = QVBoxLayout(box)
            layout.setContentsMargins(0, 0, 0, 0)
            for option in q.options:
                check = QCheckBox(str(option))
                check.clicked.connect(self._emit)
                layout.addWidget(check)
                boxes.append(check)
            self._widgets[q.name] = boxes
            return box
        if q.kind == "dropdown":
            dropdown = _Dropdown(q.options)
            dropdown.changed.connect(self._emit)
            self._widgets[q.name] = dropdown
            return dropdown
        edit = QLineEdit()
        edit.textEdited.connect(self._typing.start)
        edit.editingFinished.connect(self.flush)
        self._widgets[q.name] = edit
        return edit

    def answers(self) -> dict:
        out: dict = {}
        for q in self.questions:
            w = self._widgets[q.name]
            if isinstance(w, QButtonGroup):
                k = w.checkedId()
                if k >= 0:
                    out[q.name] = str(q.options[k])
            elif isinstance(w, list):
                out[q.name] = [b.text() for b in w if b.isChecked()]
            elif isinstance(w, _Dropdown):
                if w.path():
                    out[q.name] = w.path()
            elif w.text().strip():
                out[q.name] = w.text().strip()
        return out

    def set_answers(self, answers: dict) -> None:
        """Show stored ``answers`` (unknown names are ignored) without emitting a change."""
        self._typing.stop()
        blockers = [QSignalBlocker(self)]
        for q in self.questions:
            w, value = self._widgets[q.name], answers.get(q.name)
            if isinstance(w, QButtonGroup):
                w.setExclusive(False)
                for k, button in enumerate(w.buttons()):
                    button.setChecked(value is not None and str(q.options[k]) == str(value))
                w.setExclusive(True)
            elif isinstance(w, list):
                chosen = {str(x) for x in (value or [])}
                for b in w:
                    b.setChecked(b.text() in chosen)
            elif isinstance(w, _Dropdown):
                w.blockSignals(True)
                w.set_path([str(x) for x in (value or [])])
                w.blockSignals(False)
            else:
                w.setText("" if value is None else str(value))
        del blockers

    def flush(self) -> None:
        """Send pending typing now (before the image changes)."""
        if self._typing.isActive():
            self._typing.stop()
            self._emit()

    def _emit(self, *_args: object) -> None:
        self._typing.stop()
        self.answers_changed.emit(self.answers())
