"""Edit-mode gestures of the :class:`~slicereview.gui.annotate.draw_tool.DrawTool`.

Press on a vertex (move it; Shift: delete it), Ctrl+press or double-click on an edge (insert a
vertex) and press inside a polygon (select and move it). :class:`EditGestures` is a part of the
tool: it reads and sets the tool's drag and selection, emits the tool's signals, and never
writes the project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Qt

from slicereview.engines import geometry
from slicereview.gui.common.polygon_items import COLOURS
from slicereview.model import Polygon

if TYPE_CHECKING:
    from slicereview.gui.annotate.draw_tool import DrawTool


class EditGestures:
    """The edit mode of ``tool`` (see the module docstring)."""

    def __init__(self, tool: DrawTool) -> None:
        self.tool = tool

    def press(self, ev: Any, at: np.ndarray, drag: dict) -> None:
        """A left press in edit mode at image point ``at``; ``drag`` is the tool's new drag
        (updated in place, or dropped)."""
        tool = self.tool
        xy = (float(at[0]), float(at[1]))
        tol, mods = tool.tolerance(), ev.modifiers()
        selected = tool.polygon(tool.selected_id)
        if selected is not None:
            v = selected.vertices
            k = geometry.hit_vertex(v, xy, tol)
            if k is not None and mods & Qt.KeyboardModifier.ShiftModifier:
                tool.drag = None
                self._delete_vertex(selected, k)
                return
            if k is not None:
                drag.update(kind="vertex", id=selected.id, index=k, vertices=v.copy(),
                            what="Move vertex")
                return
            if mods & Qt.KeyboardModifier.ControlModifier and self.start_insert(selected, xy):
                return
        picked = geometry.pick([p.vertices for p in tool.polygons], xy, tol)
        if picked is None:
            tool.select(None)
            tool.drag = None
            return
        polygon = tool.polygons[picked]
        tool.select(polygon.id)
        drag.update(kind="move", id=polygon.id, vertices=polygon.vertices.copy())

    def start_insert(self, polygon: Polygon, at: np.ndarray | tuple[float, float]) -> bool:
        """Insert a vertex on the edge of ``polygon`` near ``at`` and start dragging it."""
        tool = self.tool
        edge, distance, foot = geometry.nearest_edge(polygon.vertices,
                                                     (float(at[0]), float(at[1])))
        if distance > tool.tolerance() or polygon.id is None:
            return False
        v = geometry.insert_vertex(polygon.vertices, edge, (float(foot[0]), float(foot[1])))
        tool.items[polygon.id].set_vertices(v)
        tool.drag = {"kind": "vertex", "id": polygon.id, "index": edge + 1, "vertices": v,
                     "what": "Insert vertex", "moved": True, "start": foot, "screen": None}
        self.show_drag_handles(v)
        return True

    def _delete_vertex(self, polygon: Polygon, index: int) -> None:
        try:
            v = geometry.delete_vertex(polygon.vertices, index)
        except ValueError:
            self.tool.message.emit("A polygon keeps at least 3 vertices; press Delete to "
                                   "delete the whole polygon.")
            return
        self.tool.polygon_edited.emit(polygon.id, v, "Delete vertex")

    def show_drag_handles(self, v: np.ndarray) -> None:
        tool = self.tool
        item = tool.items.get(tool.selected_id) if tool.selected_id is not None else None
        if item is not None:
            tool.handles.set_vertices(v, COLOURS[item.certainty])
