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


#: Painters by tool name (the tool actions' names in ``ANNOTATE_ACTIONS``).
PAINTERS: dict[str, Callable[[QPainter], None]] = {
    "polygon": _polygon, "freehand": _freehand, "edit": _edit, "brush": _brush,
    "eraser": _eraser,
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
