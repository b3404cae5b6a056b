"""Small icons of the Annotate tab's drawing tools, painted in code (no image files, no icon
theme needed): :func:`tool_icon`.

Each tool's picture is a function of :data:`PAINTERS` that draws on a 24 × 24 canvas with a
pen in the program's light grey; a tool without one gets an empty icon (its button then shows
its text only). Add a painter here with a new tool.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

SIZE = 24
INK = QColor(222, 224, 228)


def _polygon(p: QPainter) -> None:
    points = [QPointF(4, 17), QPointF(9, 4), QPointF(20, 7), QPointF(18, 19), QPointF(10, 15)]
    p.drawPolygon(QPolygonF(points))
    p.setBrush(QBrush(INK))
    for point in points:
        p.drawEllipse(point, 1.8, 1.8)


def _freehand(p: QPainter) -> None:
    path = QPainterPath(QPointF(5, 14))
    path.cubicTo(2, 4, 14, 1, 19, 7)
    path.cubicTo(23, 12, 17, 21, 11, 19)
    path.cubicTo(7, 18, 8, 15, 5, 14)
    p.drawPath(path)


def _edit(p: QPainter) -> None:  # an arrow pointer
    p.setBrush(QBrush(INK))
    p.drawPolygon(QPolygonF([QPointF(6, 3), QPointF(6, 19), QPointF(10, 15), QPointF(13, 21),
                             QPointF(15, 20), QPointF(12, 14), QPointF(18, 14)]))


def _brush(p: QPainter) -> None:  # a round dab with its stroke
    pen = QPen(INK, 6.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    path = QPainterPath(QPointF(5, 18))
    path.cubicTo(8, 8, 14, 20, 18, 7)
    p.drawPath(path)


def _eraser(p: QPainter) -> None:  # a round dab outlined, with a cut through it
    p.drawEllipse(QRectF(5, 5, 14, 14))
    p.drawLine(QPointF(7, 17), QPointF(17, 7))


def _points(p: QPainter) -> None:  # an outline round a click, a negative click outside
    p.drawEllipse(QRectF(3, 4, 14, 13))
    p.setBrush(QBrush(INK))
    p.drawEllipse(QPointF(10, 10.5), 2.2, 2.2)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawEllipse(QPointF(19.5, 19), 2.2, 2.2)


def _scribble(p: QPainter) -> None:  # a wavy stroke inside an outline
    p.drawEllipse(QRectF(3, 4, 18, 16))
    path = QPainterPath(QPointF(7, 13))
    path.cubicTo(9, 7, 11, 17, 13, 11)
    path.cubicTo(14, 8, 16, 13, 17, 10)
    p.setPen(QPen(INK, 2.2, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawPath(path)


def _box(p: QPainter) -> None:  # a dashed box round a blob
    pen = QPen(INK, 1.4, Qt.PenStyle.DashLine)
    p.setPen(pen)
    p.drawRect(QRectF(3, 4, 18, 16))
    p.setPen(QPen(INK, 1.6))
    p.drawEllipse(QRectF(7, 8, 10, 8))


def _trace(p: QPainter) -> None:  # a tube through three clicks
    path = QPainterPath(QPointF(3, 19))
    path.cubicTo(8, 8, 14, 18, 21, 5)
    p.setPen(QPen(INK, 5.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawPath(path)
    p.setPen(QPen(QColor(40, 40, 40), 2.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawPath(path)


def _wand(p: QPainter) -> None:  # a wand with a spark
    p.setPen(QPen(INK, 2.4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawLine(QPointF(4, 20), QPointF(14, 10))
    p.setPen(QPen(INK, 1.4))
    for dx, dy in ((0, -5), (0, 5), (-5, 0), (5, 0)):
        p.drawLine(QPointF(17, 7), QPointF(17 + dx, 7 + dy))


def _refine(p: QPainter) -> None:  # a rough outline with a smooth one snapped inside it
    p.setPen(QPen(INK, 1.0, Qt.PenStyle.DotLine))
    p.drawPolygon(QPolygonF([QPointF(3, 12), QPointF(8, 3), QPointF(17, 4), QPointF(21, 13),
                             QPointF(15, 21), QPointF(6, 20)]))
    p.setPen(QPen(INK, 1.8))
    p.drawEllipse(QRectF(6, 6, 12, 12))


#: Painters by tool name (the tool actions' names in ``ANNOTATE_ACTIONS``).
PAINTERS: dict[str, Callable[[QPainter], None]] = {
    "polygon": _polygon, "freehand": _freehand, "edit": _edit, "brush": _brush,
    "eraser": _eraser, "points": _points, "scribble": _scribble, "box": _box,
    "trace": _trace, "wand": _wand, "refine": _refine,
}


def tool_icon(name: str) -> QIcon:
    """The icon of tool ``name`` (an empty icon when it has no painter), drawn at twice its
    size for high-density screens.

    >>> from PySide6.QtWidgets import QApplication
    >>> app = QApplication.instance() or QApplication([])
    >>> tool_icon("brush").isNull(), tool_icon("no such tool").isNull()
    (False, True)
    """
    painter = PAINTERS.get(name)
    if painter is None:
        return QIcon()
    pixmap = QPixmap(2 * SIZE, 2 * SIZE)
    pixmap.setDevicePixelRatio(2.0)
    pixmap.fill(Qt.GlobalColor.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QPen(INK, 1.6))
    p.setBrush(Qt.BrushStyle.NoBrush)
    painter(p)
    p.end()
    return QIcon(pixmap)
