"""The Annotate page's drawing intents turned into undo commands: :class:`PolygonIntents`, a part
of :class:`~slicereview.gui.annotate.page.AnnotatePage`.

Each slot takes one intent of the drawing tool or the classification forms (a polygon drawn,
edited, re-labelled or deleted; new answers) and pushes one command on the annotation's undo
history (``gateway.annotate``); the command writes through to the project at once. A drawn
polygon is stored with the tool that drew it (``manual`` in polygon mode, ``freehand``); an
edit keeps it and marks the polygon edited (:func:`slicereview.app.annotating.edited_polygon`,
applied by :class:`~slicereview.app.commands.EditPolygon`). Another annotator's work is
read-only: its intents do nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from slicereview.app.commands import (
    AddPolygon,
    Command,
    DeletePolygon,
    EditPolygon,
    SetImageClassifications,
)
from slicereview.gui.annotate.draw_tool import Mode
from slicereview.model import Certainty, Polygon, Tool

if TYPE_CHECKING:
    from slicereview.gui.annotate.page import AnnotatePage


class PolygonIntents:
    """Intent slots of ``page`` (see the module docstring)."""

    def __init__(self, page: AnnotatePage) -> None:
        self.page = page
        self.state = page.state
        self.tool = page.tool
        self.annotate = page.gateway.annotate

    def push(self, command: Command) -> bool:
        """Apply ``command`` through the annotation's history (created now if needed)."""
        if not self.state.own:  # another annotator's work is read-only
            return False
        annotation = self.page.ensure_annotation()
        if annotation is None:  # refused, and said why
            return False
        self.page.history_actions.follow(self.annotate.history(annotation.id))
        if self.annotate.execute(annotation.id, command):
            return True
        # The file refused the write: show the stored state again (once the file is readable).
        self.page.gateway.settle(self.page.reload_annotation)
        return False

    def on_drawn(self, vertices: np.ndarray) -> None:
        if not self.state.own:
            return
        annotation = self.page.ensure_annotation()
        if annotation is None:  # refused, and said why
            return
        made_by = Tool.FREEHAND if self.tool.mode is Mode.FREEHAND else Tool.MANUAL
        command = AddPolygon(self.page.gateway.open_project, annotation.id,
                             Polygon(vertices, self.tool.draw_certainty, tool=made_by))
        if self.push(command):
            self.tool.select(command.polygon_id)

    def _edit(self, polygon_id: int, what: str, **changes: Any) -> None:
        before = self.tool.polygon(polygon_id)
        annotation = self.state.annotation
        if before is None or annotation is None:
            return
        self.push(EditPolygon(self.page.gateway.open_project, annotation.id, before,
                              replace(before, **changes), what))

    def on_edited(self, polygon_id: int, vertices: np.ndarray, what: str) -> None:
        self._edit(polygon_id, what, vertices=vertices)

    def on_toggle(self, polygon_id: int) -> None:
        before = self.tool.polygon(polygon_id)
        if before is not None:
            other = (Certainty.UNCERTAIN if before.certainty is Certainty.CERTAIN
                     else Certainty.CERTAIN)
            self._edit(polygon_id, f"Mark {other.value}", certainty=other)

    def on_delete(self, polygon_id: int) -> None:
        polygon = self.tool.polygon(polygon_id)
        annotation = self.state.annotation
        if polygon is not None and annotation is not None:
            self.push(DeletePolygon(self.page.gateway.open_project, annotation.id, polygon))

    def on_polygon_answers(self, answers: dict) -> None:
        self.page.clock.touch()
        if self.tool.selected_id is not None:
            self._edit(self.tool.selected_id, "Classify polygon", classifications=answers)

    def on_image_answers(self, answers: dict) -> None:
        self.page.clock.touch()
        if self.state.key is None or not self.state.own:
            return
        annotation = self.page.ensure_annotation()
        if annotation is not None:
            self.push(SetImageClassifications(self.page.gateway.open_project, annotation.id,
                                              answers))
