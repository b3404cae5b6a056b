"""The brush and the eraser of the :class:`~slicereview.gui.annotate.draw_tool.DrawTool`:
:class:`BrushGestures`, a part of the tool.

In the tool's *brush* and *eraser* modes a circle of the brush's radius follows the mouse
(drawn in the colour of the certainty it paints, dashed white for the eraser, over a dark halo
so it shows on bright and dark images alike). Press and drag
lays a stroke, shown as a translucent band as wide as the brush; on release the stroke is one
intent, :attr:`BrushGestures.stroke_drawn` ``(path, radius, erase)`` — what it does to the
polygons is :func:`slicereview.engines.strokes.apply_stroke`'s rule, and the page stores it as
one undo step. A click is a single dab. Holding Shift while pressing swaps the two (the brush
erases, the eraser paints).

The radius is in image pixels (so a stroke means the same at every zoom): the action bar's box,
``,`` and ``.`` (×1.25 per step) or Ctrl+wheel over the image change it. The wheel without Ctrl
still zooms; right-drag (window/level), middle-drag and Space+drag (pan) keep their meaning.

The gestures take the tool's mouse events first (their event filter is installed after the
tool's, so Qt calls it first) and only in those two modes; they never write the project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsPathItem, QGraphicsSceneWheelEvent

from slicereview.gui.common.polygon_items import COLOURS

if TYPE_CHECKING:
    from slicereview.gui.annotate.draw_tool import DrawTool

#: Radius of a new brush, image pixels.
DEFAULT_RADIUS = 8.0
#: Smallest and largest radius, image pixels.
RADII = (1.0, 500.0)
#: One step of , . and the Ctrl+wheel multiplies the radius by this.
STEP = 1.25
#: A new stroke point is kept when it is this far (screen pixels) from the last one.
SAMPLE_PX = 0.5

_E = QEvent.Type
_ERASER_COLOUR = QColor(255, 255, 255)


class BrushGestures(QObject):
    """Brush and eraser strokes on ``tool``'s view (see the module docstring)."""

    #: A stroke was laid: ``float64 (N, 2)`` ``(x, y)`` path (N >= 1), radius (image
    #: pixels), whether it erases.
    stroke_drawn = Signal(object, float, bool)
    #: The radius changed (image pixels).
    radius_changed = Signal(float)

    def __init__(self, tool: DrawTool) -> None:
        super().__init__(tool)
        self.tool = tool
        self.radius = DEFAULT_RADIUS
        self.points: list[tuple[float, float]] = []
        self.erasing = False
        self.cursor = QGraphicsEllipseItem()
        self.halo = QGraphicsEllipseItem()  # under the cursor: visible on a bright image
        halo = QPen(QColor(0, 0, 0, 170), 3.5)
        halo.setCosmetic(True)
        self.halo.setPen(halo)
        self.band = QGraphicsPathItem()  # the stroke so far
        for z, item in enumerate((self.band, self.halo, self.cursor)):
            item.setZValue(999 + z)
            item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            tool.viewbox.addItem(item, ignoreBounds=True)
        self.halo.hide()
        self.cursor.hide()
        self._at: QPointF | None = None  # where the cursor is (image coordinates)
        tool.view.graphics.scene().installEventFilter(self)
        tool.view.graphics.installEventFilter(self)

    @property
    def painting(self) -> bool:
        """True while a stroke is laid (the button is down)."""
        return bool(self.points)

    @property
    def active(self) -> bool:
        """Whether the tool is in the brush or the eraser mode."""
        return self.tool.mode.value in ("brush", "eraser")

    # -- radius ------------------------------------------------------------------------------
    def set_radius(self, radius: float) -> None:
        """Use ``radius`` image pixels from now on (clipped to :data:`RADII`)."""
        radius = float(np.clip(radius, *RADII))
        if radius != self.radius:
            self.radius = radius
            self.radius_changed.emit(radius)
        self.show_cursor()

    def step_radius(self, steps: int) -> None:
        """Grow (``steps`` > 0) or shrink the radius by :data:`STEP` per step, at least one
        pixel per step."""
        r = self.radius
        for _ in range(abs(steps)):
            r = max(r + 1, round(r * STEP)) if steps > 0 else min(r - 1, round(r / STEP))
        self.set_radius(r)
        self.tool.message.emit(f"Brush radius {self.radius:.0f} px.")

    # -- what is drawn -----------------------------------------------------------------------
    def _colour(self, erase: bool) -> QColor:
        if erase:
            return _ERASER_COLOUR
        tool = self.tool
        selected = tool.polygon(tool.selected_id)
        return QColor(COLOURS[selected.certainty if selected else tool.draw_certainty])

    def show_cursor(self) -> None:
        """The circle at the mouse (only in the two modes, over an image, when enabled)."""
        tool = self.tool
        shown = (self.active and tool.enabled and tool.view.display is not None
                 and self._at is not None)
        self.cursor.setVisible(shown)
        self.halo.setVisible(shown)
        if not shown or self._at is None:
            return
        erase = (tool.mode.value == "eraser") != self.erasing if self.painting else \
            tool.mode.value == "eraser"
        pen = QPen(self._colour(erase), 1.5)
        pen.setCosmetic(True)
        pen.setStyle(Qt.PenStyle.DashLine if erase else Qt.PenStyle.SolidLine)
        self.cursor.setPen(pen)
        r, at = self.radius, self._at
        for item in (self.halo, self.cursor):
            item.setRect(QRectF(at.x() - r, at.y() - r, 2 * r, 2 * r))

    def _show_band(self) -> None:
        path = QPainterPath()
        if self.points:
            path.moveTo(*self.points[0])
            for x, y in self.points[1:]:
                path.lineTo(x, y)
            if len(self.points) == 1:
                path.lineTo(self.points[0][0] + 1e-3, self.points[0][1])  # a dab
        colour = self._colour(self.erasing != (self.tool.mode.value == "eraser"))
        colour.setAlpha(90)
        pen = QPen(colour, 2 * self.radius)  # in image units: as wide as the brush
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        self.band.setPen(pen)
        self.band.setPath(path)

    # -- strokes -----------------------------------------------------------------------------
    def cancel(self) -> bool:
        """Drop the stroke being laid; whether there was one."""
        had = self.painting
        self.points = []
        self._show_band()
        return had

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if not self.active:
            return False
        t = ev.type()
        if obj is self.tool.view.graphics:
            if t == _E.Leave:
                self._at = None
                self.show_cursor()
            return False
        if t in (_E.GraphicsSceneMousePress, _E.GraphicsSceneMouseDoubleClick):
            return self._press(ev)
        if t == _E.GraphicsSceneMouseMove:
            return self._move(ev)
        if t == _E.GraphicsSceneMouseRelease:
            return self._release(ev)
        if t == _E.GraphicsSceneWheel and isinstance(ev, QGraphicsSceneWheelEvent) and \
                ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.step_radius(1 if ev.delta() > 0 else -1)
            ev.accept()
            return True
        return False

    def _xy(self, ev: Any) -> QPointF:
        return self.tool.viewbox.mapSceneToView(ev.scenePos())

    def _press(self, ev: Any) -> bool:
        tool = self.tool
        if not tool.takes(ev):
            return False
        tool.user_input.emit()
        tool.view.graphics.setFocus(Qt.FocusReason.MouseFocusReason)
        ev.accept()
        self._at = self._xy(ev)
        self.erasing = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self.points = [(self._at.x(), self._at.y())]
        self._show_band()
        self.show_cursor()
        return True

    def _move(self, ev: Any) -> bool:
        self._at = self._xy(ev)
        self.show_cursor()
        if not self.painting:
            return False  # hover: the pixel readout still sees it
        self.tool.user_input.emit()
        last = self.points[-1]
        step = SAMPLE_PX * self.tool.layer.pixel()
        if np.hypot(self._at.x() - last[0], self._at.y() - last[1]) >= step:
            self.points.append((self._at.x(), self._at.y()))
            self._show_band()
        return True

    def _release(self, ev: Any) -> bool:
        if not self.painting or ev.button() != Qt.MouseButton.LeftButton:
            return False
        ev.accept()
        at = self._xy(ev)
        if np.hypot(at.x() - self.points[-1][0], at.y() - self.points[-1][1]) > 0:
            self.points.append((at.x(), at.y()))
        path = np.array(self.points, dtype=np.float64)
        erase = (self.tool.mode.value == "eraser") != self.erasing
        self.cancel()
        self.show_cursor()
        self.stroke_drawn.emit(path, self.radius, erase)
        return True
