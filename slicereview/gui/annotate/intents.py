"""The Annotate page's drawing intents turned into undo commands: :class:`PolygonIntents`, a part
of the Annotate page.

Each slot takes one intent of the drawing tool or the classification forms (a polygon drawn,
edited, re-labelled or deleted; a brush or eraser stroke; new answers) and pushes one command
through the
:class:`~slicereview.gui.annotate.writer.AnnotationWriter` on the annotation's undo history
(``gateway.annotate``); the command writes through to the project at once. A drawn
polygon is stored with the tool that drew it (``manual`` in polygon mode, ``freehand``); an
edit keeps it and marks the polygon edited (:func:`slicereview.app.annotating.edited_polygon`,
applied by :class:`~slicereview.app.commands.EditPolygon`). Another annotator's work is
read-only: its intents do nothing.

A stroke is one :class:`~slicereview.app.commands.ChangePolygons` ("Paint" or "Erase"): what it
does to the polygons is :func:`slicereview.engines.strokes.apply_stroke`'s rule (the selected
polygon, or a new one of the certainty new polygons get; erasing with none selected, or away
from the selected one, takes from every polygon under the stroke), its outline within one
image pixel, and within one screen pixel when zoomed in. A stroke that changes nothing is said
in the panel and stores nothing; a polygon painted with none selected is selected, so the next
strokes add to it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from slicereview.app.commands import (
    AddPolygon,
    ChangePolygons,
    Command,
    DeletePolygon,
    EditPolygon,
    SetImageClassifications,
)
from slicereview.gui.annotate.draw_tool import DrawTool, Mode
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.writer import AnnotationWriter
from slicereview.gui.common.active_time import IdleClock
from slicereview.model import Certainty, Polygon, Tool

if TYPE_CHECKING:
    from slicereview.gui.gateway.annotate import AnnotateService


class PolygonIntents:
    """Intent slots of the drawing ``tool`` and the forms (see the module docstring)."""

    def __init__(self, state: AnnotateState, tool: DrawTool, writer: AnnotationWriter,
                 annotate: AnnotateService, clock: IdleClock) -> None:
        self.state = state
        self.tool = tool
        self.writer = writer
        self.annotate = annotate
        self.clock = clock

    def push(self, command: Command) -> bool:
        """Apply ``command`` through the annotation's history (created now if needed)."""
        return self.writer.push(command)

    def on_drawn(self, vertices: np.ndarray) -> None:
        if not self.state.own:
            return
        annotation = self.writer.ensure_annotation()
        if annotation is None:  # refused, and said why
            return
        made_by = Tool.FREEHAND if self.tool.mode is Mode.FREEHAND else Tool.MANUAL
        command = AddPolygon(self.annotate.open_project, annotation.id,
                             Polygon(vertices, self.tool.draw_certainty, tool=made_by))
        if self.push(command):
            self.tool.select(command.polygon_id)

    def _edit(self, polygon_id: int, what: str, **changes: Any) -> None:
        before = self.tool.polygon(polygon_id)
        annotation = self.state.annotation
        if before is None or annotation is None:
            return
        self.push(EditPolygon(self.annotate.open_project, annotation.id, before,
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
            self.push(DeletePolygon(self.annotate.open_project, annotation.id, polygon))

    def on_stroke(self, path: np.ndarray, radius: float, erase: bool) -> None:
        """A brush (``erase`` False) or eraser stroke along ``path`` with ``radius``."""
        if not self.state.own:
            return
        from slicereview.engines.strokes import apply_stroke  # (shapely: on first use)

        tool = self.tool
        def stroke(selected: int | None) -> Any:
            return apply_stroke(tool.polygons, path, radius, erase=erase, selected=selected,
                                certainty=tool.draw_certainty,
                                tolerance=min(1.0, tool.layer.pixel()))

        result = stroke(tool.selected_id)
        if erase and not result.changed and tool.selected_id is not None:
            result = stroke(None)  # not over the selected polygon: from those under it
        if not result.changed:
            tool.message.emit("Nothing to erase here." if erase else
                              "Stroke too small for a polygon." if tool.selected_id is None
                              else "Nothing to add: the stroke is inside the selected polygon.")
            return
        annotation = self.writer.ensure_annotation()
        if annotation is None:  # refused, and said why
            return
        command = ChangePolygons(self.annotate.open_project, annotation.id, result.before,
                                 result.after, "Erase" if erase else "Paint")
        if self.push(command) and not erase and tool.selected_id is None:
            tool.select(command.added_ids[0])  # the next strokes add to it

    def on_polygon_answers(self, answers: dict) -> None:
        self.clock.touch()
        if self.tool.selected_id is not None:
            self._edit(self.tool.selected_id, "Classify polygon", classifications=answers)

    def on_image_answers(self, answers: dict) -> None:
        self.clock.touch()
        if self.state.key is None or not self.state.own:
            return
        annotation = self.writer.ensure_annotation()
        if annotation is not None:
            self.push(SetImageClassifications(self.annotate.open_project, annotation.id,
                                              answers))
