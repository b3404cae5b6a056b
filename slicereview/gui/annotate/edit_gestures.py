"""Edit-mode gestures of the :class:`~slicereview.gui.annotate.draw_tool.DrawTool`.

Press on a vertex (move it; Shift: delete it), Ctrl+press or double-click on an edge (insert a
vertex) and press inside a polygon (select and move it). A mixin of ``DrawTool``, split out of
``draw_tool.py`` to keep that module short: it uses the tool's state (``_drag``, ``items``,
``handles``, the selection) and emits the tool's signals; it never writes the project.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from slicereview.engines import geometry
from slicereview.gui.common.polygon_items import COLOURS
from slicereview.model import Polygon


class EditGestures:
    """Edit-mode helpers mixed into ``DrawTool`` (see the module docstring)."""

    def _press_edit(self, ev, xy: np.ndarray) -> None:
        tol, mods = self._tol(), ev.modifiers()
        selected = self.polygon(self.selected_id)
        if selected is not None:
            v = selected.vertices
            k = geometry.hit_vertex(v, xy, tol)
            if k is not None and mods & Qt.KeyboardModifier.ShiftModifier:
                self._drag = None
                self._delete_vertex(selected, k)
                return
            if k is not None:
                self._drag.update(kind="vertex", id=selected.id, index=k, vertices=v.copy(),
                                  what="Move vertex")
                return
            if mods & Qt.KeyboardModifier.ControlModifier and self._start_insert(selected, xy):
                return
        picked = geometry.pick([p.vertices for p in self.polygons], xy, tol)
        if picked is None:
            self.select(None)
            self._drag = None
            return
        polygon = self.polygons[picked]
        self.select(polygon.id)
        self._drag.update(kind="move", id=polygon.id, vertices=polygon.vertices.copy())

    def _start_insert(self, polygon: Polygon, xy: np.ndarray) -> bool:
        edge, distance, foot = geometry.nearest_edge(polygon.vertices, xy)
        if distance > self._tol():
            return False
        v = geometry.insert_vertex(polygon.vertices, edge, foot)
        self.items[polygon.id].set_vertices(v)
        self._drag = {"kind": "vertex", "id": polygon.id, "index": edge + 1, "vertices": v,
                      "what": "Insert vertex", "moved": True, "start": foot,
                      "screen": None}
        self._show_drag_handles(v)
        return True

    def _delete_vertex(self, polygon: Polygon, index: int) -> None:
        try:
            v = geometry.delete_vertex(polygon.vertices, index)
        except ValueError:
            self.message.emit("A polygon keeps at least 3 vertices; press Delete to delete "
                              "the whole polygon.")
            return
        self.polygon_edited.emit(polygon.id, v, "Delete vertex")

    def _show_drag_handles(self, v: np.ndarray) -> None:
        item = self.items.get(self.selected_id)
        if item is not None:
            self.handles.set_vertices(v, COLOURS[item.certainty])
