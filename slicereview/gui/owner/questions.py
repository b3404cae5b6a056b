"""Owner ▸ Questions…: the project's classification questions, defined by the task owner.

The list (left) holds every question in the order annotators see them; retired ones are
greyed and marked *retired*. **Up** / **Down** reorder, **Retire** stops asking the selected
question (the answers stored under its key stay; **Restore** asks it again), **New question**
empties the form. The form (right): *Key* (the name answers are stored under; fixed once
created), *Title*, *Asked* — once per image (global) or for each polygon —, *Kind* (radio,
checklist, free text, dropdown) and *Choices*, one per line, a dropdown's nested choices
indented under their parent. **Import…** / **Export…** read and write the JSON of
``slicereview questions import|export``. Every change is written at once through the
application layer (:mod:`slicereview.app.qa.questions`), whose refusals (a choice twice, an
answered question's kind) are shown in one sentence.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.qa.questions import choices_text, parse_choices
from slicereview.gui.common import file_dialogs
from slicereview.gui.gateway.owner import OwnerService

SCOPES = (("image", "once per image (global)"), ("polygon", "for each polygon"))
KINDS = (("radio", "one choice (radio)"), ("checklist", "any choices (checklist)"),
         ("text", "free text"), ("dropdown", "dropdown (choices may nest)"))


class QuestionsDialog(QDialog):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Classification questions")
        self.owner = owner
        self.editing: int | None = None
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._on_row)
        self.up_button, self.down_button = QPushButton("Up"), QPushButton("Down")
        self.retire_button = QPushButton("Retire")
        self.new_button = QPushButton("New question")
        self.import_button, self.export_button = QPushButton("Import…"), QPushButton("Export…")
        self.up_button.clicked.connect(lambda: self.move_question(-1))
        self.down_button.clicked.connect(lambda: self.move_question(+1))
        self.retire_button.clicked.connect(self.toggle_retired)
        self.new_button.clicked.connect(self.start_new)
        self.import_button.clicked.connect(self.on_import)
        self.export_button.clicked.connect(self.on_export)
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("e.g. density (answers are stored under it)")
        self.title_edit = QLineEdit()
        self.scope_box, self.kind_box = QComboBox(), QComboBox()
        for box, items in ((self.scope_box, SCOPES), (self.kind_box, KINDS)):
            for key, text in items:
                box.addItem(text, key)
        self.kind_box.currentIndexChanged.connect(self._on_kind)
        self.choices_edit = QPlainTextEdit()
        self.choices_edit.setPlaceholderText("One choice per line; indent a dropdown's nested "
                                             "choices under their parent:\nCalcification\n"
                                             "  Punctate\n  Vascular\nMass")
        self.answered_label = QLabel()
        self.answered_label.setWordWrap(True)
        self.save_button = QPushButton("Add question")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        self._layout()
        self.refresh()
        self.start_new()
        self.resize(900, 560)

    def _layout(self) -> None:
        moves = QHBoxLayout()
        for b in (self.up_button, self.down_button, self.retire_button):
            moves.addWidget(b)
        files = QHBoxLayout()
        for b in (self.new_button, self.import_button, self.export_button):
            files.addWidget(b)
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        left.addLayout(moves)
        left.addLayout(files)
        form = QFormLayout()
        form.addRow("Key:", self.key_edit)
        form.addRow("Title:", self.title_edit)
        form.addRow("Asked:", self.scope_box)
        form.addRow("Kind:", self.kind_box)
        form.addRow("Choices:", self.choices_edit)
        right = QVBoxLayout()
        right.addLayout(form, 1)
        right.addWidget(self.answered_label)
        right.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignRight)
        right.addWidget(self.message)
        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addLayout(right, 3)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(close)

    # -- reading ---------------------------------------------------------------------------
    def refresh(self, select: int | None = None) -> None:
        """Re-read the questions; select ``select`` (an id) when given."""
        blocker = self.list.blockSignals(True)
        self.list.clear()
        for q in self.owner.questions():
            scope = "image" if q.scope == "image" else "per polygon"
            item = QListWidgetItem(f"{q.title}  [{q.name}; {scope}, {q.kind}]"
                                   + ("  — retired" if q.retired else ""))
            item.setData(Qt.ItemDataRole.UserRole, q.id)
            if q.retired:
                item.setForeground(QBrush(QColor("#888888")))
            self.list.addItem(item)
        self.list.blockSignals(blocker)
        if select is not None:
            for row in range(self.list.count()):
                if self.list.item(row).data(Qt.ItemDataRole.UserRole) == select:
                    self.list.setCurrentRow(row)

    def _question(self, question_id: int):
        return next(q for q in self.owner.questions() if q.id == question_id)

    def _on_row(self, row: int) -> None:
        if row >= 0:
            self.edit(int(self.list.item(row).data(Qt.ItemDataRole.UserRole)))

    def _on_kind(self) -> None:
        self.choices_edit.setEnabled(self.kind_box.currentData() != "text")

    def start_new(self) -> None:
        self.editing = None
        self.list.clearSelection()
        for w in (self.key_edit, self.title_edit):
            w.clear()
        self.key_edit.setEnabled(True)
        self.choices_edit.clear()
        self.scope_box.setCurrentIndex(0)
        self.kind_box.setCurrentIndex(0)
        self.save_button.setText("Add question")
        self.answered_label.setText("")
        self.retire_button.setText("Retire")
        self.message.clear()

    def edit(self, question_id: int) -> None:
        q = self._question(question_id)
        self.editing = question_id
        self.key_edit.setText(q.name)
        self.key_edit.setEnabled(False)  # answers are stored under it
        self.title_edit.setText(q.title)
        self.scope_box.setCurrentIndex(self.scope_box.findData(q.scope))
        self.kind_box.setCurrentIndex(self.kind_box.findData(q.kind))
        self.choices_edit.setPlainText(choices_text(q.options))
        n = self.owner.question_answers(q)
        what = "annotation" if q.scope == "image" else "polygon"
        self.answered_label.setText(
            f"{n} {what}{'s' * (n != 1)} answer it" + (": its scope and kind stay (retire it "
                                                       "and add a new one to ask something "
                                                       "else)." if n else "."))
        self.retire_button.setText("Restore" if q.retired else "Retire")
        self.save_button.setText("Save changes")
        self.message.clear()

    # -- writing ---------------------------------------------------------------------------
    def _run(self, action: str, *args, **kwargs):
        try:
            result = self.owner.edit_questions(action, *args, **kwargs)
        except (ValueError, KeyError, OSError) as exc:
            self.message.setText(str(exc.args[0] if isinstance(exc, KeyError) else exc))
            return None
        self.message.clear()
        return result if result is not None else True

    def save(self) -> int | None:
        """Add the question in the form (or save the one selected); its id, ``None`` when
        refused (the reason is shown)."""
        kind = self.kind_box.currentData()
        choices = [] if kind == "text" else parse_choices(self.choices_edit.toPlainText())
        if self.editing is None:
            new = self._run("add_question", self.key_edit.text(), self.title_edit.text(), kind,
                            self.scope_box.currentData(), choices)
            if new is None:
                return None
            self.refresh(select=new)
            return int(new)
        if self._run("edit_question", self.editing, title=self.title_edit.text(), kind=kind,
                     scope=self.scope_box.currentData(), choices=choices) is None:
            return None
        self.refresh(select=self.editing)
        return self.editing

    def move_question(self, step: int) -> None:
        """Move the selected question ``step`` places up (−) or down (+)."""
        row = self.list.currentRow()
        if row < 0 or not 0 <= row + step < self.list.count():
            return
        question_id = int(self.list.item(row).data(Qt.ItemDataRole.UserRole))
        if self._run("move_question", question_id, row + step):
            self.refresh(select=question_id)

    def toggle_retired(self) -> None:
        if self.editing is None:
            return
        retired = self._question(self.editing).retired
        if self._run("restore_question" if retired else "retire_question", self.editing):
            self.refresh(select=self.editing)

    def on_import(self) -> None:
        path = file_dialogs.open_file(self, "Import questions", "questions",
                                      "Questions (*.json);;All files (*)",
                                      self.owner.gateway.folder)
        if path is not None:
            report = self._run("read_questions", path)
            if report is not None:
                self.refresh()
                self.start_new()
                self.answered_label.setText(f"Imported: {report.text}.")

    def on_export(self) -> None:
        path = file_dialogs.save_file(self, "Export questions", "questions", "questions.json",
                                      "Questions (*.json)", self.owner.gateway.folder)
        if path is not None:
            self._run("write_questions", path)
