"""The annotate page's drawing intents turned into undo commands.

:class:`PolygonIntents` is a mixin of :class:`~slicereview.gui.annotate.page.AnnotatePage`
(split out of ``annotate_page.py`` to keep that module short): each slot takes one intent of the
drawing tool or the classification forms (a polygon drawn, edited, re-labelled or deleted; new
answers) and pushes one command on the current annotation's undo stack; the command writes
through the gateway at once. It uses the page's ``tool``, ``gateway``, ``annotation`` and
``undo_group``.
"""

from __future__ import annotations

from dataclasses import replace

from slicereview.app.commands import (
    AddPolygon,
    Command,
    DeletePolygon,
    EditPolygon,
    SetImageClassifications,
)
from slicereview.model import Certainty, Polygon


class PolygonIntents:
    """Intent slots of the annotate page (see the module docstring)."""

    def _push(self, command: Command) -> bool:
        if not self.own:  # another annotator's work is read-only
            return False
        stack = self._stack(self._ensure_annotation().id)
        self.undo_group.setActiveStack(stack)
        if self.gateway.execute(stack, command):
            return True
        # The file refused the write: show the stored state again (once the file is readable).
        self.gateway.settle(self._reload_annotation)
        return False

    def _on_drawn(self, vertices) -> None:
        if not self.own:
            return
        ann = self._ensure_annotation()
        command = AddPolygon(self.gateway.open_project, ann.id,
                             Polygon(vertices, self.tool.draw_certainty))
        if self._push(command):
            self.tool.select(command.polygon_id)

    def _edit(self, polygon_id: int, what: str, **changes: object) -> None:
        before = self.tool.polygon(polygon_id)
        if before is None or self.annotation is None:
            return
        self._push(EditPolygon(self.gateway.open_project, self.annotation.id, before,
                               replace(before, **changes), what))

    def _on_edited(self, polygon_id: int, vertices, what: str) -> None:
        self._edit(polygon_id, what, vertices=vertices)

    def _on_toggle(self, polygon_id: int) -> None:
        before = self.tool.polygon(polygon_id)
        if before is not None:
            other = (Certainty.UNCERTAIN if before.certainty is Certainty.CERTAIN
                     else Certainty.CERTAIN)
            self._edit(polygon_id, f"Mark {other.value}", certainty=other)

    def _on_delete(self, polygon_id: int) -> None:
        polygon = self.tool.polygon(polygon_id)
        if polygon is not None and self.annotation is not None:
            self._push(DeletePolygon(self.gateway.open_project, self.annotation.id, polygon))

    def _on_polygon_answers(self, answers: dict) -> None:
        self.clock.touch()
        if self.tool.selected_id is not None:
            self._edit(self.tool.selected_id, "Classify polygon", classifications=answers)

    def _on_image_answers(self, answers: dict) -> None:
        self.clock.touch()
        if self._key is None or not self.own:
            return
        self._push(SetImageClassifications(self.gateway.open_project,
                                           self._ensure_annotation().id, answers))
