"""The assisted tools' mouse gestures on the :class:`~slicereview.gui.annotate.draw_tool.DrawTool`:
:class:`AssistGestures`, a part of the tool that turns clicks, strokes and drags into *assist
prompts* (:class:`slicereview.engines.assist.Prompt`) and shows them.

In the tool's six assisted modes (:data:`ASSIST_MODES`):

* **points**, **wand**, **trace**: a click adds a point; **Shift+click** or a **right click**
  adds a negative one (points only: the wand and trace take positive clicks). A trace's clicks
  are joined in order along the vessel.
* **scribble**: press and drag lays a stroke (a click: a one-point stroke); Shift or the right
  button makes it a background stroke.
* **box**: press and drag a box round the object (a new box replaces the old one); once there
  is a box, clicks add positive and negative corrections.
* **refine**: click a polygon (or enter the mode with one selected) to snap it to the edges.

**Backspace** removes the last assist prompt and **Esc** drops them all (the tool's
``remove_last_vertex`` and ``cancel``); **Enter** asks to accept (:attr:`accept_requested`).
A right-*drag* keeps its window/level meaning, the wheel zooms, Space+drag and the middle
button pan. Positive prompts are drawn in yellow, negative ones in blue with a white ring, over
a dark halo. The gestures never run a tool and never write: :attr:`changed` tells the page's
:class:`~slicereview.gui.annotate.assist_runner.AssistRunner`, which does.

Coordinates: the scene's ``(x, y)`` become the engine's ``(row, col)`` = ``(y, x)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from slicereview.engines import geometry
from slicereview.engines.assist.prompts import Prompt, polygon_prompt

if TYPE_CHECKING:
    from slicereview.gui.annotate.draw_tool import DrawTool

#: The drawing tool's assisted modes, in toolbar order (the engine's tools of the same names).
ASSIST_MODES = ("points", "scribble", "box", "trace", "wand", "refine")
#: Modes whose clicks may be negative.
_NEGATIVE_CLICKS = ("points", "box")
#: A press that moves less than this (screen pixels) before release is a click.
CLICK_PX = 4.0
POSITIVE = QColor(255, 212, 0)
NEGATIVE = QColor(60, 130, 255)
#: The click markers' fill opacity (what is under them stays visible).
_DOT_ALPHA = 150

_E = QEvent.Type


def _rc(xy: QPointF) -> np.ndarray:
    return np.array([[float(xy.y()), float(xy.x())]])


class AssistGestures(QObject):
    """Assist prompts from the mouse in ``tool``'s assisted modes (see the module docstring)."""

    #: The assist prompts changed (:attr:`prompts`, :attr:`target_id`).
    changed = Signal()
    #: Enter: accept the preview.
    accept_requested = Signal()

    def __init__(self, tool: DrawTool) -> None:
        super().__init__(tool)
        self.tool = tool
        self.prompts: list[Prompt] = []
        #: The stored polygon being refined (refine only).
        self.target_id: int | None = None
        self._press: dict[str, Any] | None = None
        vb = tool.viewbox
        self.dots = pg.ScatterPlotItem(size=8, pxMode=True)  # (small: the outline shows)
        # scribbles and the box, over a dark halo (no line joins a trace's clicks: it would
        # hide the thin vessel the preview follows)
        self.halo, self.positive_path, self.negative_path = (QGraphicsPathItem() for _ in "123")
        for item, colour, width in ((self.halo, QColor(0, 0, 0, 170), 4.5),
                                    (self.positive_path, POSITIVE, 2.0),
                                    (self.negative_path, NEGATIVE, 2.0)):
            pen = QPen(colour, width)
            pen.setCosmetic(True)
            item.setPen(pen)
        for z, item in enumerate((self.halo, self.positive_path, self.negative_path, self.dots)):
            item.setZValue(1100 + z)
            item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            vb.addItem(item, ignoreBounds=True)
        tool.view.graphics.scene().installEventFilter(self)

    @property
    def active(self) -> bool:
        """Whether the tool is in an assisted mode."""
        return self.tool.mode.value in ASSIST_MODES

    @property
    def name(self) -> str:
        """The assisted tool in use (``""`` in the other modes)."""
        return self.tool.mode.value if self.active else ""

    def show_cursor(self) -> None:
        """A cross over the image in the assisted modes (where a click lands), else the
        view's own cursor."""
        viewport = self.tool.view.graphics.viewport()
        if self.active:
            viewport.setCursor(Qt.CursorShape.CrossCursor)
        else:
            viewport.unsetCursor()

    # -- the prompts -------------------------------------------------------------------------
    def add(self, prompt: Prompt) -> None:
        self.prompts.append(prompt)
        self._show()
        self.changed.emit()

    def remove_last(self) -> bool:
        """Backspace: drop the last assist prompt; whether there was one."""
        if not self.prompts:
            return False
        self.prompts.pop()
        if not self.prompts:
            self.target_id = None
        self._show()
        self.changed.emit()
        return True

    def cancel(self) -> bool:
        """Esc (or a new mode, image or annotation): drop every assist prompt; whether there
        were any."""
        had = bool(self.prompts) or self._press is not None
        self.prompts, self.target_id, self._press = [], None, None
        self._show()
        if had:
            self.changed.emit()
        return had

    def clear(self) -> None:
        """Forget the prompts after an accept (nothing to tell: the runner accepted)."""
        self.prompts, self.target_id, self._press = [], None, None
        self._show()

    def refine(self, polygon_id: int | None) -> bool:
        """Refine the stored polygon ``polygon_id`` (in refine mode); whether it started."""
        polygon = self.tool.polygon(polygon_id)
        if self.name != "refine" or polygon is None:
            return False
        self.prompts, self.target_id = [polygon_prompt(polygon.vertices)], polygon.id
        self._show()
        self.changed.emit()
        return True

    # -- drawing -----------------------------------------------------------------------------
    def _show(self, extra: QPainterPath | None = None) -> None:
        """Draw the prompts (and ``extra``, the stroke or box being dragged)."""
        spots = []
        paths = {True: QPainterPath(), False: QPainterPath()}
        for p in self.prompts:
            pts = p.points[:, ::-1]  # (x, y)
            path = paths[p.positive]
            if p.kind == "box":
                (x0, y0), (x1, y1) = pts
                path.addRect(QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized())
            elif p.kind == "scribble" and len(pts) > 1:
                path.moveTo(*pts[0])
                for x, y in pts[1:]:
                    path.lineTo(x, y)
            elif p.kind in ("point", "scribble"):
                colour, ring = (POSITIVE, (0, 0, 0)) if p.positive else (NEGATIVE, "w")
                fill = QColor(colour)
                fill.setAlpha(_DOT_ALPHA)
                spots.append({"pos": (pts[0, 0], pts[0, 1]), "brush": pg.mkBrush(fill),
                              "pen": pg.mkPen(ring, width=1.5)})
        if extra is not None:
            paths[not (self._press or {}).get("negative", False)].addPath(extra)
        self.dots.setData(spots)
        both = QPainterPath(paths[True])
        both.addPath(paths[False])
        self.halo.setPath(both)
        self.positive_path.setPath(paths[True])
        self.negative_path.setPath(paths[False])

    # -- mouse -------------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if not self.active:
            return False
        t = ev.type()
        if t == _E.GraphicsSceneMousePress:
            return self._on_press(ev)
        if t == _E.GraphicsSceneMouseMove:
            return self._on_move(ev)
        if t == _E.GraphicsSceneMouseRelease:
            return self._on_release(ev)
        if t == _E.GraphicsSceneMouseDoubleClick:
            return self.tool.takes(ev)  # (no fit, no second prompt: its press came first)
        return False

    def _xy(self, ev: Any) -> QPointF:
        return self.tool.viewbox.mapSceneToView(ev.scenePos())

    def _on_press(self, ev: Any) -> bool:
        tool = self.tool
        right = ev.button() == Qt.MouseButton.RightButton
        if right:  # a right click is a negative prompt; a right drag stays window/level
            if tool.enabled and tool.view.display is not None and \
                    tool.viewbox.sceneBoundingRect().contains(ev.scenePos()):
                self._press = {"at": self._xy(ev), "screen": ev.screenPos(), "negative": True,
                               "right": True, "path": [self._xy(ev)]}
            return False
        if not tool.takes(ev):
            return False
        tool.user_input.emit()
        tool.view.graphics.setFocus(Qt.FocusReason.MouseFocusReason)
        ev.accept()
        shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self._press = {"at": self._xy(ev), "screen": ev.screenPos(), "negative": shift,
                       "right": False, "path": [self._xy(ev)]}
        return True

    def _on_move(self, ev: Any) -> bool:
        press = self._press
        if press is None:
            return False
        if press["right"]:
            return False  # (window/level)
        self.tool.user_input.emit()
        at = self._xy(ev)
        last = press["path"][-1]
        if np.hypot(at.x() - last.x(), at.y() - last.y()) >= 0.5 * self.tool.layer.pixel():
            press["path"].append(at)
        extra = QPainterPath()
        if self.name == "scribble":
            extra.moveTo(press["path"][0])
            for p in press["path"][1:]:
                extra.lineTo(p)
        elif self.name == "box" and self._moved_from(press, ev):
            extra.addRect(QRectF(press["at"], at).normalized())
        self._show(extra)
        return True

    def _on_release(self, ev: Any) -> bool:
        press, self._press = self._press, None
        if press is None:
            return False
        right = ev.button() == Qt.MouseButton.RightButton
        if right != press["right"]:
            self._press = press
            return False
        moved = self._moved_from(press, ev)
        if right and moved:
            return False  # a window/level drag
        if not right:
            ev.accept()
        at = self._xy(ev)
        self._gesture(press, at, moved)
        self._show()
        return not right

    def _moved_from(self, press: dict[str, Any], ev: Any) -> bool:
        d = ev.screenPos() - press["screen"]
        return bool((d.x() ** 2 + d.y() ** 2) ** 0.5 >= CLICK_PX)

    def _gesture(self, press: dict[str, Any], at: QPointF, moved: bool) -> None:
        """Turn one finished press into an assist prompt (or a message)."""
        name, negative, tool = self.name, bool(press["negative"]), self.tool
        if name == "scribble":
            path = [_rc(p) for p in press["path"]]
            if moved and np.hypot(*(path[-1] - _rc(at))[0]) > 0:
                path.append(_rc(at))
            self.add(Prompt("scribble", np.vstack(path), positive=not negative))
        elif name == "box" and moved and not press["right"]:
            box = Prompt("box", np.vstack([_rc(press["at"]), _rc(at)]))
            self.prompts = []
            self.add(box)
        elif name == "box" and not any(p.kind == "box" for p in self.prompts):
            tool.message.emit("Drag a box round the object first; then click to correct it.")
        elif name == "refine":
            xy = (float(at.x()), float(at.y()))
            picked = geometry.pick([p.vertices for p in tool.polygons], xy, tool.tolerance())
            if picked is None:
                tool.message.emit("Click a polygon to snap it to the edges near it.")
                return
            tool.select(tool.polygons[picked].id)
            self.refine(tool.polygons[picked].id)
        elif negative and name not in _NEGATIVE_CLICKS:
            tool.message.emit(f"The {name} tool takes positive clicks only; Backspace removes "
                              "the last click.")
        else:
            self.add(Prompt("point", _rc(press["at"] if not moved else at),
                            positive=not negative))
