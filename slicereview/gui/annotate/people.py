"""Who annotates and whose work is shown: the Annotate page's "You are" and "Showing", with
the phase and round (:class:`AnnotatorChoice`, a part of the Annotate page).

*You are* is the acting annotator (people only, remembered in the user settings); *Showing*
is whose annotation is on screen. On a server, an annotator's login is that annotator: both
boxes name only them (the database shows that login no one else's work). Only your own
annotation is editable and gathers active time; anyone else's is shown read-only
(see :mod:`slicereview.gui.annotate.page`).

The part owns the panel's four context boxes: it writes what they say into the state
(:meth:`AnnotateState.set_context <slicereview.gui.annotate.state.AnnotateState.set_context>`)
and says so with :attr:`AnnotatorChoice.context_changed` (show that annotation) and
:attr:`AnnotatorChoice.acting_changed` (who may edit changed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QInputDialog

from slicereview.gui.annotate.panel import AnnotatePanel
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.common.settings import acting_annotator, remember_acting_annotator
from slicereview.model import Role

if TYPE_CHECKING:
    from slicereview.gui.gateway.annotate import AnnotateService

NAME_ROLE = Qt.ItemDataRole.UserRole + 7


class AnnotatorChoice(QObject):
    """The annotator, phase and round boxes of ``panel`` (see the module docstring)."""

    #: Showing, phase or round changed (or the list was filled): show that annotation.
    context_changed = Signal()
    #: "You are" changed (after showing your own work): who may edit changed.
    acting_changed = Signal()

    def __init__(self, state: AnnotateState, annotate: AnnotateService, panel: AnnotatePanel
                 ) -> None:
        super().__init__()
        self.state = state
        self.panel = panel
        self.annotate = annotate
        #: ``(id, name)`` of the annotators listed (to notice new ones).
        self.seen: list[tuple[int, str]] = []
        panel.annotator_box.currentIndexChanged.connect(self._on_context)
        panel.you_box.currentIndexChanged.connect(self.on_you_changed)
        panel.phase_box.currentIndexChanged.connect(self._on_context)
        panel.round_box.valueChanged.connect(self._on_context)
        panel.new_annotator_button.clicked.connect(self.ask_new)

    @staticmethod
    def _id(data: object) -> int | None:
        return data if isinstance(data, int) else None  # (the boxes hold rater ids)

    def shown_id(self) -> int | None:
        """The annotator whose work the "Showing" box names."""
        return self._id(self.panel.annotator_box.currentData())

    def acting_id(self) -> int | None:
        """The annotator the "You are" box names."""
        return self._id(self.panel.you_box.currentData())

    def sync_context(self) -> None:
        """Take who is shown, who you are, the phase and the round from the boxes."""
        p = self.panel
        self.state.set_context(self.shown_id(), self.acting_id(), p.phase_box.currentText(),
                               p.round_box.value())

    def _on_context(self, *_args: object) -> None:
        self.sync_context()
        self.context_changed.emit()

    def on_you_changed(self, *_args: object) -> None:
        self.sync_context()
        rater_id = self.acting_id()
        if rater_id is not None:
            remember_acting_annotator(self.panel.you_box.currentData(NAME_ROLE))
            self.select_annotator(rater_id)  # show your own work
        self.acting_changed.emit()

    def select_you(self, rater_id: int) -> None:
        index = self.panel.you_box.findData(rater_id)
        if index >= 0:
            self.panel.you_box.setCurrentIndex(index)

    def select_annotator(self, rater_id: int) -> None:
        index = self.panel.annotator_box.findData(rater_id)
        if index >= 0:
            self.panel.annotator_box.setCurrentIndex(index)

    def fill(self) -> None:
        """List the project's annotators, keeping who is shown and who you are."""
        box, you = self.panel.annotator_box, self.panel.you_box
        current, me = self.shown_id(), self.acting_id()
        raters = self.annotate.annotators()
        self.seen = [(r.id, r.name) for r in raters]
        login = self.annotate.logged_in()
        if login is not None and login.role is Role.ANNOTATOR:
            # an annotator's login reads and writes only their own work: you are that person,
            # and no one else's (empty, to this login) annotations are offered
            raters, me, current = [login], login.id, login.id
        self.panel.new_annotator_button.setEnabled(login is None or login.role is not
                                                   Role.ANNOTATOR)
        for b in (box, you):
            b.blockSignals(True)
            b.clear()
        for rater in raters:
            simulated = rater.simulated and "simulated" not in rater.name.lower()
            box.addItem(rater.name + (" (simulated)" if simulated else ""), rater.id)
            if not rater.simulated:  # a person cannot be a simulated annotator
                you.addItem(rater.name, rater.id)
                you.setItemData(you.count() - 1, rater.name, NAME_ROLE)
        if me is None:
            remembered = acting_annotator()
            me = next((r.id for r in raters if r.name == remembered and not r.simulated), None)
        index = you.findData(me) if me is not None else -1
        you.setCurrentIndex(index if index >= 0 else (0 if you.count() else -1))
        if current is None:
            current = self.acting_id()
        index = box.findData(current) if current is not None else -1
        box.setCurrentIndex(index if index >= 0 else (0 if box.count() else -1))
        for b in (box, you):
            b.blockSignals(False)
        self._on_context()

    def create(self, name: str) -> int:
        """Add an annotator by name and make it the current one."""
        rater_id = self.annotate.add_annotator(name)
        self.select_you(rater_id)  # a new name is the person at the keyboard
        self.select_annotator(rater_id)
        return rater_id

    def ask_new(self) -> None:
        name, ok = QInputDialog.getText(self.panel, "New annotator", "Name:")
        if ok and name.strip():
            try:
                self.create(name)
            except Exception as exc:  # e.g. the name belongs to a reviewer
                self.panel.message_label.setText(str(exc))
