"""Graphics items for annotation polygons, in image coordinates on a pyqtgraph ViewBox.

Polygons are plain ``QGraphicsPathItem`` s (pyqtgraph's ``PolyLineROI`` makes one graphics item
per handle and gets slow past ~150 vertices: docs/design.md, "Qt and pyqtgraph"). A path is built
from the ``float64 (N, 2)`` ``(x, y)`` vertex array in one copy through a ``QPolygonF`` whose memory
numpy writes directly, so rebuilding a 2,000-vertex outline during a drag costs well under a
millisecond. Vertex handles of the selected polygon are one item that paints every handle in
screen pixels with a single ``drawPoints`` call.

Colours (docs/design.md, "Glossary"): certain is red, uncertain is green — or, in the colour-blind
safe scheme (View menu, remembered), Okabe–Ito [OkabeIto2008] orange and sky blue
(:func:`set_scheme`).
Certainty never rests on colour alone: certain outlines are solid, uncertain ones dashed.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem

from slicereview.model import Certainty

#: Colour schemes: certain, uncertain.
SCHEMES = {
    "standard": (QColor(255, 40, 40), QColor(40, 230, 70)),
    "colour-blind safe": (QColor(230, 159, 0), QColor(86, 180, 233)),  # Okabe–Ito
}
#: Outline colours by certainty (the scheme in use; changed in place by :func:`set_scheme`).
COLOURS = {Certainty.CERTAIN: SCHEMES["standard"][0],
           Certainty.UNCERTAIN: SCHEMES["standard"][1]}
#: Outline style by certainty: the cue that does not depend on colour.
STYLES = {Certainty.CERTAIN: Qt.PenStyle.SolidLine, Certainty.UNCERTAIN: Qt.PenStyle.DashLine}


def set_scheme(name: str) -> None:
    """Use colour scheme ``name`` (a key of :data:`SCHEMES`) for every polygon drawn from now
    on (call ``restyle()`` on the layers already shown)."""
    certain, uncertain = SCHEMES[name]
    COLOURS[Certainty.CERTAIN] = certain
    COLOURS[Certainty.UNCERTAIN] = uncertain


def colour_name(certainty: Certainty) -> str:
    """``#rrggbb`` of a certainty in the scheme in use (for rich text)."""
    return COLOURS[Certainty(certainty)].name()
#: Outline width in screen pixels (cosmetic pens keep it whatever the zoom).
PEN_PX = 1.5
SELECTED_PEN_PX = 2.5
#: Edge length of a vertex handle in screen pixels.
HANDLE_PX = 6
#: Slack (screen pixels) around a polygon's path that repaints cover: the pen is cosmetic, so
#: its width is in screen pixels, not in the item's image units.
PAD_PX = 4.0


def qpolygonf(vertices: np.ndarray) -> QPolygonF:
    """A ``QPolygonF`` holding ``vertices`` ``(N, 2)`` (one memory copy, no Python loop)."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    poly = pg.functions.create_qpolygonf(len(v))
    if len(v):
        pg.functions.ndarray_from_qpolygonf(poly)[:] = v
    return poly


def vertices_path(vertices: np.ndarray, closed: bool = True) -> QPainterPath:
    """A painter path through ``vertices`` ``(N, 2)``; ``closed`` joins the last to the first."""
    path = QPainterPath()
    if len(vertices):
        path.addPolygon(qpolygonf(vertices))
        if closed:
            path.closeSubpath()
    return path


def _pen(colour: QColor, width: float, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    pen = QPen(colour)
    pen.setWidthF(width)
    pen.setCosmetic(True)
    pen.setStyle(style)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    return pen


class _PaddedPathItem(QGraphicsPathItem):
    """A path item whose bounding box is padded by ``pad`` image units (room for a cosmetic
    pen) and whose Qt shape is empty: hit-testing is done in numpy
    (:mod:`slicereview.engines.geometry`), which keeps Qt from stroking a long outline on every
    hover event."""

    pad: float = 0.0

    def set_pad(self, pad: float) -> None:
        if pad != self.pad:
            self.prepareGeometryChange()
            self.pad = pad

    def boundingRect(self) -> QRectF:
        p = self.pad
        return self.path().controlPointRect().adjusted(-p, -p, p, p)

    def shape(self) -> QPainterPath:
        return QPainterPath()


class PolygonItem(_PaddedPathItem):
    """One annotation polygon: outline in its certainty's colour, translucent fill."""

    def __init__(self, polygon_id: int | None, vertices: np.ndarray,
                 certainty: Certainty = Certainty.CERTAIN) -> None:
        super().__init__()
        self.polygon_id = polygon_id
        self.vertices = np.asarray(vertices, dtype=np.float64)
        self.certainty = Certainty(certainty)
        self.pad = 1.0  # image units; set from the zoom by the tool (see PAD_PX)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)
        self.setPath(vertices_path(self.vertices))

    def set_vertices(self, vertices: np.ndarray) -> None:
        """Redraw with new vertices (the array is kept, not copied: callers own it)."""
        self.vertices = vertices
        self.setPath(vertices_path(vertices))

    def set_style(self, *, selected: bool, fill_alpha: float, outline_only: bool) -> None:
        colour = COLOURS[self.certainty]
        self.setPen(_pen(colour, SELECTED_PEN_PX if selected else PEN_PX,
                         STYLES[self.certainty]))
        fill = QColor(colour)
        fill.setAlphaF(0.0 if outline_only else max(0.0, min(1.0, fill_alpha)))
        self.setBrush(QBrush(fill) if fill.alpha() else QBrush(Qt.BrushStyle.NoBrush))



class HandlesItem(QGraphicsItem):
    """Square vertex handles of fixed screen size, for the selected or unfinished polygon.

    The first vertex can be drawn larger (``first_px``) to show where a polygon closes.
    """

    def __init__(self) -> None:
        super().__init__()
        self.vertices = np.zeros((0, 2))
        self.colour = QColor(255, 255, 255)
        self.first_px = 0
        self.pad = 1.0
        self._rect = QRectF()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(1001)

    def set_vertices(self, vertices: np.ndarray, colour: QColor | None = None,
                     first_px: int = 0) -> None:
        self.prepareGeometryChange()
        self.vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
        if colour is not None:
            self.colour = colour
        self.first_px = first_px
        self._update_rect()
        self.update()

    def set_pad(self, pad: float) -> None:
        if pad != self.pad:
            self.prepareGeometryChange()
            self.pad = pad
            self._update_rect()

    def _update_rect(self) -> None:
        if len(self.vertices) == 0:
            self._rect = QRectF()
            return
        (x0, y0), (x1, y1) = self.vertices.min(axis=0), self.vertices.max(axis=0)
        p = self.pad * max(HANDLE_PX, self.first_px)
        self._rect = QRectF(x0 - p, y0 - p, x1 - x0 + 2 * p, y1 - y0 + 2 * p)

    def boundingRect(self) -> QRectF:
        return self._rect

    def shape(self) -> QPainterPath:
        return QPainterPath()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if len(self.vertices) == 0:
            return
        # Map to device pixels once, then draw every handle as a square point of fixed size.
        t = painter.transform()
        v = self.vertices
        dev = np.c_[t.m11() * v[:, 0] + t.m21() * v[:, 1] + t.dx(),
                    t.m12() * v[:, 0] + t.m22() * v[:, 1] + t.dy()]
        painter.save()
        painter.resetTransform()
        pen = QPen(QColor(0, 0, 0))
        pen.setCapStyle(Qt.PenCapStyle.SquareCap)
        points = qpolygonf(dev)
        # Vertices closer on screen than a handle (a freehand outline zoomed out) get small
        # dots: full handles would hide the outline.
        spacing = np.hypot(*np.diff(dev, axis=0).T) if len(dev) > 1 else np.array([np.inf])
        dense = float(np.median(spacing)) < 1.5 * HANDLE_PX
        if not dense:
            pen.setWidthF(HANDLE_PX)
            painter.setPen(pen)
            painter.drawPoints(points)
        pen.setColor(self.colour.lighter(150) if dense else self.colour)
        pen.setWidthF(3 if dense else HANDLE_PX - 2)
        painter.setPen(pen)
        painter.drawPoints(points)
        if self.first_px:
            pen.setWidthF(self.first_px)
            pen.setColor(QColor(255, 255, 0))
            painter.setPen(pen)
            painter.drawPoint(dev[0, 0], dev[0, 1])
        painter.restore()


class PreviewItem(_PaddedPathItem):
    """The polygon being drawn: its open outline plus a dashed segment to the cursor."""

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(1000)
        self.pad = 1.0

    def show_outline(self, vertices: np.ndarray, cursor: np.ndarray | None,
                     certainty: Certainty) -> None:
        path = vertices_path(vertices, closed=False)
        if cursor is not None and len(vertices):
            path.moveTo(float(vertices[-1, 0]), float(vertices[-1, 1]))
            path.lineTo(float(cursor[0]), float(cursor[1]))
        certainty = Certainty(certainty)
        self.setPen(_pen(COLOURS[certainty], SELECTED_PEN_PX, STYLES[certainty]))
        self.setPath(path)

