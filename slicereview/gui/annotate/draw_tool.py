"""The drawing tool: polygon, freehand, edit, brush, eraser, assisted modes on an ImageView.

The tool turns mouse events into *intents* carrying core values (vertex arrays, polygon ids);
the annotate page turns intents into undo commands (:mod:`slicereview.gui.gateway.undo`), which
write through the session. The tool never changes the project itself, and during a drag it moves
only graphics items: one intent is emitted on release (docs/design.md, "Data paths").

Mouse (left button; events reach the tool through an event filter on the view's scene):

* **Polygon**: click adds a vertex; click the first vertex, double-click or press Enter to close;
  Backspace removes the last vertex, Esc cancels.
* **Freehand**: press and drag lays a stroke, simplified on release into a polygon
  (:func:`slicereview.engines.geometry.simplify` [DouglasPeucker1973], one screen pixel) and
  shown closed at once while it is written (:mod:`.hand_over`).
* **Edit**: click a polygon to select it; drag inside it to move it; drag a vertex of the
  selected polygon to move the vertex; Ctrl+click (or double-click) on an edge inserts a vertex
  (keep dragging to place it); Shift+click a vertex deletes it.

The wheel (zoom), right-drag (window/level) and middle-drag (pan) keep their viewer meaning;
Space+left-drag pans. Hit tolerances are in screen pixels (``geometry.image_tolerance``).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent

from slicereview.engines import geometry
from slicereview.gui.annotate import hand_over
from slicereview.gui.annotate.assist_gestures import AssistGestures
from slicereview.gui.annotate.brush import BrushGestures
from slicereview.gui.annotate.edit_gestures import EditGestures
from slicereview.gui.annotate.polygon_layer import PolygonLayer
from slicereview.gui.annotate.tool_modes import CLICK_PX, HIT_PX, Mode
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.polygon_items import COLOURS, PolygonItem
from slicereview.model import Certainty, Polygon

_E = QEvent.Type

class DrawTool(QObject):
    """Polygon drawing and editing on ``view`` (an :class:`ImageView`)."""

    #: A new polygon was drawn: ``float64 (N, 2)`` ``(x, y)`` vertices, N >= 3.
    polygon_drawn = Signal(object)
    #: A stored polygon got new vertices: (polygon id, ``float64 (N, 2)``, what was done).
    polygon_edited = Signal(int, object, str)
    delete_requested = Signal(int)
    certainty_toggle_requested = Signal(int)
    #: Polygon id, or -1 when nothing is selected.
    selection_changed = Signal(int)
    message = Signal(str)
    #: Any mouse input over the image (for the active-time clock).
    user_input = Signal()

    def __init__(self, view: ImageView) -> None:
        super().__init__(view)
        self.view = view
        self.viewbox = view.viewbox
        self.mode = Mode.POLYGON
        self.enabled = True
        self.draw_certainty = Certainty.CERTAIN
        self.layer = PolygonLayer(self.viewbox)
        self.preview, self.handles = self.layer.preview, self.layer.handles
        self._points: list[tuple[float, float]] = []  # unfinished polygon or stroke
        self._cursor: np.ndarray | None = None
        #: The press being dragged: its kind ("click", "stroke", "vertex", "move", "double"),
        #: where it started and what it moves; ``None`` when no button is down.
        self.drag: dict | None = None
        self._space = False
        self.edit = EditGestures(self)
        view.graphics.scene().installEventFilter(self)
        view.graphics.installEventFilter(self)
        self.brush = BrushGestures(self)  # (after the filter above: it sees events first)
        self.assist = AssistGestures(self)

    # -- content (delegated to the layer) --------------------------------------------------
    @property
    def polygons(self) -> list[Polygon]:
        return self.layer.polygons

    @property
    def items(self) -> dict[int, PolygonItem]:
        return self.layer.items

    @property
    def selected_id(self) -> int | None:
        return self.layer.selected_id

    @property
    def fill_alpha(self) -> float:
        return self.layer.fill_alpha

    def set_polygons(self, polygons: list[Polygon]) -> None:
        """Show ``polygons`` (drawing order, each with its stored id); a drag in progress ends."""
        self.drag = None
        self.layer.set_polygons(polygons)
        self._show_handles()

    def clear(self) -> None:
        self.cancel()
        self.set_polygons([])

    def polygon(self, polygon_id: int | None) -> Polygon | None:
        return self.layer.polygon(polygon_id)

    @property
    def dragging(self) -> bool:
        """True while a press is being dragged (a vertex, a polygon, a stroke)."""
        return self.drag is not None or self.brush.painting

    @property
    def drawing(self) -> bool:
        """True while a polygon is being drawn (vertices placed, not yet closed)."""
        return bool(self._points) and self.mode is Mode.POLYGON

    @property
    def unfinished(self) -> np.ndarray:
        return np.array(self._points, dtype=np.float64).reshape(-1, 2)

    # -- modes and display -----------------------------------------------------------------
    def set_mode(self, mode: Mode | str) -> None:
        """Switch tools; an unfinished polygon is dropped, the selection stays."""
        self._drop_unfinished()
        self.mode = Mode(mode)
        self.brush.show_cursor()
        self.assist.show_cursor()
        self.assist.refine(self.selected_id)  # (refine starts on the selected polygon)

    def set_enabled(self, enabled: bool) -> None:
        if not enabled:
            self._drop_unfinished()
        self.enabled = enabled
        self.brush.show_cursor()

    def select(self, polygon_id: int | None) -> None:
        if polygon_id is not None and polygon_id not in self.items:
            polygon_id = None
        if polygon_id != self.layer.selected_id:
            self.layer.selected_id = polygon_id
            self.layer.restyle()
            self._show_handles()
            self.brush.show_cursor()  # (the colour of what it paints)
            self.selection_changed.emit(-1 if polygon_id is None else polygon_id)

    def restyle(self) -> None:
        """Draw again in the current colour scheme (View ▸ Colour-blind safe colours)."""
        self.layer.restyle()
        self._show_handles()  # handles take the selected polygon's colour

    def set_fill_alpha(self, alpha: float) -> None:
        self.layer.set_fill_alpha(alpha)

    def set_overlay_visible(self, visible: bool) -> None:
        self.layer.set_overlay_visible(visible)
        self._show_handles()

    def set_outline_only(self, outline_only: bool) -> None:
        self.layer.set_outline_only(outline_only)

    def _show_handles(self) -> None:
        item = self.items.get(self.selected_id) if self.selected_id is not None else None
        if self._points and self.mode is Mode.POLYGON:
            close = self._near_first(self._cursor) if self._cursor is not None else False
            self.handles.set_vertices(self.unfinished, COLOURS[self.draw_certainty],
                                      first_px=12 if close else 0)
        elif item is not None and self.layer.overlay_visible:
            self.handles.set_vertices(item.vertices, COLOURS[item.certainty])
        else:
            self.handles.set_vertices(np.zeros((0, 2)))

    # -- keyboard intents (called by the page's actions) -----------------------------------
    def finish(self) -> bool:
        """Close the unfinished polygon (Enter); False when it has fewer than 3 vertices. In an
        assisted mode: ask to accept the preview."""
        if self.assist.active:
            self.assist.accept_requested.emit()
            return bool(self.assist.prompts)
        if not self._points:
            return False
        v = geometry.remove_duplicates(self.unfinished)
        if len(v) < geometry.MIN_VERTICES:
            self.message.emit("A polygon needs at least 3 vertices.")
            return False
        hand_over.hand_over(self, v)
        return True

    def remove_last_vertex(self) -> None:
        if self.assist.remove_last():
            return
        if self._points:
            self._points.pop()
            self._refresh_preview()

    def cancel(self) -> None:
        """Esc: drop the unfinished polygon or stroke; with nothing unfinished, deselect."""
        if not self._drop_unfinished():
            self.select(None)

    def _drop_unfinished(self) -> bool:
        if self.brush.cancel() or self.assist.cancel():
            return True
        if not (self._points or self.drag):
            return False
        self._points = []
        if self.drag and self.drag["id"] is not None:
            self.layer.reset_item(self.drag["id"])  # put a half-dragged polygon back
        self.drag = None
        self._refresh_preview()
        return True

    def toggle_certainty(self) -> None:
        """U: toggle the selected polygon, else the certainty new polygons are drawn with."""
        if self.selected_id is not None and not self._points:
            self.certainty_toggle_requested.emit(self.selected_id)
            return
        self.draw_certainty = (Certainty.UNCERTAIN if self.draw_certainty is Certainty.CERTAIN
                               else Certainty.CERTAIN)
        self._refresh_preview()
        self.brush.show_cursor()
        self.message.emit(f"New polygons are drawn {self.draw_certainty.value}.")

    def delete_selected(self) -> None:
        if self.selected_id is not None and not self._points:
            self.delete_requested.emit(self.selected_id)

    # -- mouse -----------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        t = ev.type()
        if obj is self.view.graphics:
            if t in (_E.KeyPress, _E.KeyRelease) and isinstance(ev, QKeyEvent) \
                    and ev.key() == Qt.Key.Key_Space:
                if not ev.isAutoRepeat():
                    self._space = t == _E.KeyPress
            elif t == _E.FocusOut:
                self._space = False
            return False
        if t == _E.GraphicsSceneMouseMove:
            return self._on_move(ev)
        if t == _E.GraphicsSceneMousePress:
            return self._on_press(ev)
        if t == _E.GraphicsSceneMouseRelease:
            return self._on_release(ev)
        if t == _E.GraphicsSceneMouseDoubleClick:
            return self._on_double_click(ev)
        return False

    def takes(self, ev) -> bool:
        """Whether a left-button press belongs to the tool (not to panning or the viewer)."""
        return (self.enabled and self.view.display is not None
                and ev.button() == Qt.MouseButton.LeftButton and not self._space
                and self.viewbox.sceneBoundingRect().contains(ev.scenePos()))

    def _xy(self, ev) -> np.ndarray:
        p = self.viewbox.mapSceneToView(ev.scenePos())
        return np.array([p.x(), p.y()], dtype=np.float64)

    def _pixel(self) -> float:
        return self.layer.pixel()

    def tolerance(self) -> float:
        """The hit tolerance in image pixels (:data:`HIT_PX` screen pixels)."""
        return geometry.image_tolerance(HIT_PX, 1.0 / self._pixel())

    def _on_press(self, ev) -> bool:
        self.user_input.emit()
        if not self.takes(ev):
            return False
        self.view.graphics.setFocus(Qt.FocusReason.MouseFocusReason)
        ev.accept()
        xy = self._xy(ev)
        self.drag = {"kind": "click", "start": xy, "screen": ev.screenPos(), "id": None,
                      "moved": False}
        if self.mode is Mode.FREEHAND:
            self._points = [tuple(xy)]
            self.drag["kind"] = "stroke"
        elif self.mode is Mode.EDIT:
            self.edit.press(ev, xy, self.drag)
        return True

    def _on_move(self, ev) -> bool:
        xy = self._xy(ev)
        drag = self.drag
        if drag is None:
            if self.mode is Mode.POLYGON and self._points:
                self._cursor = xy
                self._refresh_preview()
            if ev.buttons() == Qt.MouseButton.NoButton:
                self.user_input.emit()
            return False  # hover: the viewer's pixel readout still sees it
        self.user_input.emit()
        if drag["screen"] is not None and not drag["moved"]:
            d = ev.screenPos() - drag["screen"]
            drag["moved"] = (d.x() ** 2 + d.y() ** 2) ** 0.5 >= CLICK_PX
        if drag["kind"] == "stroke":
            last = np.array(self._points[-1])
            if np.hypot(*(xy - last)) >= 0.5 * self._pixel():
                self._points.append(tuple(xy))
                self._refresh_preview(closed_stroke=True)
        elif drag["kind"] == "vertex" and drag["moved"]:
            v = drag["vertices"]
            v[drag["index"]] = xy  # the working copy; the stored polygon is untouched
            self.items[drag["id"]].set_vertices(v)
            self.edit.show_drag_handles(v)
        elif drag["kind"] == "move" and drag["moved"]:
            d = xy - drag["start"]
            self.items[drag["id"]].setPos(float(d[0]), float(d[1]))  # no path rebuild
            self.handles.setPos(float(d[0]), float(d[1]))
        return True

    def _on_release(self, ev) -> bool:
        drag = self.drag
        if drag is None or ev.button() != Qt.MouseButton.LeftButton:
            return False
        self.drag = None
        ev.accept()
        xy = self._xy(ev)
        kind = drag["kind"]
        if kind == "click" and not drag["moved"] and self.mode is Mode.POLYGON:
            self._click_polygon(drag["start"])
        elif kind == "stroke":
            hand_over.finish_stroke(self)
        elif kind == "vertex" and drag["moved"]:
            v = drag["vertices"]
            v[drag["index"]] = xy
            self.polygon_edited.emit(drag["id"], v.copy(), drag["what"])
        elif kind == "move" and drag["moved"]:
            d = xy - drag["start"]
            self.handles.setPos(0, 0)
            self.polygon_edited.emit(drag["id"], geometry.translate(drag["vertices"], *d),
                                     "Move polygon")
        return True

    def _on_double_click(self, ev) -> bool:
        if not self.takes(ev):
            return False
        ev.accept()
        xy = self._xy(ev)
        # The second press of a double-click arrives here instead of as a press; its release
        # must not add another vertex.
        self.drag = {"kind": "double", "start": xy, "screen": None, "id": None,
                      "moved": False}
        if self.mode is Mode.POLYGON and self._points:
            self.finish()
        elif self.mode is Mode.EDIT:
            selected = self.polygon(self.selected_id)
            if selected is not None and self.edit.start_insert(selected, xy):
                return True
        return True

    def _click_polygon(self, xy: np.ndarray) -> None:
        if len(self._points) >= geometry.MIN_VERTICES and self._near_first(xy):
            self.finish()
            return
        self._points.append((float(xy[0]), float(xy[1])))
        self._cursor = xy
        self._refresh_preview()

    def _near_first(self, xy: np.ndarray | None) -> bool:
        if xy is None or len(self._points) < geometry.MIN_VERTICES:
            return False
        return bool(np.hypot(*(np.asarray(xy) - self._points[0])) <= self.tolerance())

    def _refresh_preview(self, closed_stroke: bool = False) -> None:
        v = self.unfinished
        cursor = self._cursor if self.mode is Mode.POLYGON else None
        if closed_stroke and len(v):
            cursor = v[0]  # show the stroke closing back to its start
        self.preview.show_outline(v, cursor if len(v) else None, self.draw_certainty)
        self._show_handles()
