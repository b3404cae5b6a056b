"""The Annotate page's repeats: an annotator's second, blind pass over a share of their batch
(intra-rater agreement, scheduled by the owner in Owner ▸ Phases and batches).

* **when** — repeats are offered once every first pass of the batch is finished ("Done: N of
  N"), never mixed in earlier (:func:`slicereview.app.qa.repeats.repeats_due`): the first mask is
  then as far back as the batch allows. Before that the box says how many will come.
* **where** — the *Repeats* box of the panel lists them (the image list keeps showing the first
  passes' statuses); *Open* (or a double click) selects the image in the image list and shows
  the repeat.
* **blind** — a repeat shows the image with the repeat's own polygons only (none at first),
  never the first pass's; drawing, undo, questions, active time and *Submit* act on the repeat
  annotation (``repeat_of`` set, round = − the first pass's round) through the same commands.
  Leaving the image ends the repeat: coming back to it from the image list shows the first pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.workflow import AnnotateWorkflow
from slicereview.model import Annotation

if TYPE_CHECKING:
    from slicereview.gui.gateway.annotate import AnnotateService


class RepeatsBox(QGroupBox):
    """The list of repeats to do now, with *Open*."""

    #: The image id of the repeat to open.
    open_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Repeats (second, blind pass)", parent)
        self.list = QListWidget()
        self.list.setMaximumHeight(90)
        self.list.itemDoubleClicked.connect(lambda _item: self._open())
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.open_button = QPushButton("Open repeat")
        self.open_button.setToolTip("Annotate this image again, without your first mask")
        self.open_button.clicked.connect(self._open)
        self.list.currentRowChanged.connect(
            lambda row: self.open_button.setEnabled(row >= 0))
        row = QHBoxLayout()
        row.addWidget(self.label, 1)
        row.addWidget(self.open_button)
        col = QVBoxLayout(self)
        col.addWidget(self.list)
        col.addLayout(row)

    def show_repeats(self, due: list[tuple[int, str]], waiting: int, current: int | None
                     ) -> None:
        """``due``: (image id, name) offered now; ``waiting``: repeats not finished at all;
        ``current``: the image whose repeat is open."""
        self.setVisible(bool(due) or waiting > 0 or current is not None)
        ids = [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]
        if ids != [i for i, _ in due]:
            self.list.clear()
            for image_id, name in due:
                item = QListWidgetItem(name)
                item.setData(Qt.ItemDataRole.UserRole, image_id)
                self.list.addItem(item)
            if due:
                self.list.setCurrentRow(0)
        self.open_button.setEnabled(self.list.currentRow() >= 0)
        if current is not None:
            text = "<b>Repeat open</b>: your first mask is hidden."
        elif due:
            text = f"{len(due)} to do after your batch."
        else:
            text = f"{waiting} will come once your batch is done."
        self.label.setText(text)

    def _open(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.open_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))


class AnnotateRepeats(QObject):
    """The repeats: the box (:attr:`box`, placed by the page), opening a repeat, and keeping
    the box current."""

    #: Show image ``image_id`` (its repeat is open now); keep the view when it is on screen.
    load_requested = Signal(int, bool)

    def __init__(self, state: AnnotateState, annotate: AnnotateService,
                 workflow: AnnotateWorkflow) -> None:
        super().__init__()
        self.state = state
        self.annotate = annotate
        self.workflow = workflow
        self.box = RepeatsBox()
        self.box.hide()
        self.box.open_requested.connect(self.open_repeat)

    def open_repeat(self, image_id: int) -> None:
        """Show the acting annotator's repeat of ``image_id`` (blind: its own polygons); the
        page's load writes the time gathered on the image shown before."""
        self.state.repeat_image = image_id
        self.load_requested.emit(image_id, image_id == self.state.image_id)

    def _items(self) -> tuple[list[tuple[int, str]], int]:
        rater = self.state.rater_id
        if not (self.annotate.is_open and self.state.own and rater is not None):
            return [], 0
        due, waiting = self.annotate.repeats_due(rater, self.workflow.batch(),
                                                 self.state.phase, self.state.round)
        return [(a.image_id, self._name(a)) for a in due], waiting

    def _name(self, repeat: Annotation) -> str:
        return self.annotate.image_name(repeat.image_id)

    def show(self) -> None:
        due, waiting = self._items()
        self.box.show_repeats(due, waiting, self.state.repeat_image)
