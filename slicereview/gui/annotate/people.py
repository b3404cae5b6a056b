"""Who annotates and whose work is shown: the Annotate page's "You are" and "Showing".

*You are* is the acting annotator (people only, remembered in the user settings); *Showing*
is whose annotation is on screen. Only your own annotation is editable and gathers active time;
anyone else's is shown read-only (see :mod:`slicereview.gui.annotate.page`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog

from slicereview.gui.common.settings import acting_annotator, remember_acting_annotator

NAME_ROLE = Qt.ItemDataRole.UserRole + 7


class AnnotatorChoice:
    """Mixin of :class:`~slicereview.gui.annotate.page.AnnotatePage` (uses its panel,
    gateway, ``rater_id``, ``_on_context`` and ``_set_context_enabled``)."""

    @property
    def acting_id(self) -> int | None:
        """The annotator using the program ("You are")."""
        data = self.panel.you_box.currentData()
        return int(data) if data is not None else None

    @property
    def own(self) -> bool:
        """Whether the annotation shown is the acting annotator's (editable)."""
        return self.rater_id is not None and self.rater_id == self.acting_id

    def _on_you_changed(self, *_args: object) -> None:
        rater_id = self.acting_id
        if rater_id is not None:
            remember_acting_annotator(self.panel.you_box.currentData(NAME_ROLE))
            self.select_annotator(rater_id)  # show your own work
        self._set_context_enabled()

    def select_you(self, rater_id: int) -> None:
        index = self.panel.you_box.findData(rater_id)
        if index >= 0:
            self.panel.you_box.setCurrentIndex(index)

    def _fill_annotators(self) -> None:
        box, you = self.panel.annotator_box, self.panel.you_box
        current, me = self.rater_id, self.acting_id
        raters = self.gateway.annotators()
        self._annotators_seen = [(r.id, r.name) for r in raters]
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
            current = self.acting_id
        index = box.findData(current) if current is not None else -1
        box.setCurrentIndex(index if index >= 0 else (0 if box.count() else -1))
        for b in (box, you):
            b.blockSignals(False)
        self._on_context()

    def select_annotator(self, rater_id: int) -> None:
        index = self.panel.annotator_box.findData(rater_id)
        if index >= 0:
            self.panel.annotator_box.setCurrentIndex(index)

    def create_annotator(self, name: str) -> int:
        """Add an annotator by name and make it the current one."""
        rater_id = self.gateway.add_annotator(name)
        self.select_you(rater_id)  # a new name is the person at the keyboard
        self.select_annotator(rater_id)
        return rater_id

    def _ask_new_annotator(self) -> None:
        name, ok = QInputDialog.getText(self, "New annotator", "Name:")
        if ok and name.strip():
            try:
                self.create_annotator(name)
            except Exception as exc:  # e.g. the name belongs to a reviewer
                self.panel.message_label.setText(str(exc))

    def _on_changed_elsewhere(self) -> None:
        """Another instance committed: show its annotators and this image's record as stored.
        Never in the middle of drawing or a drag (that would drop the unfinished polygon): the
        first tick after it catches up."""
        self._stale = True
        if not self.gateway.is_open or self.tool._drag is not None or self.tool.drawing:
            return
        self._stale = False
        self._batches.clear()
        names = [(r.id, r.name) for r in self.gateway.annotators()]
        if names != self._annotators_seen:
            self._annotators_seen = names
            self._fill_annotators()  # (reloads the annotation shown)
        elif self.image_id is not None:
            self._reload_annotation()
