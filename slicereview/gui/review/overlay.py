"""The review overlays drawn on an :class:`~slicereview.gui.common.image_view.ImageView`: every
annotator's outlines, the agreement heat map, the boxes in their band's colour, and pins.

* **Annotators** get one colour each from the Okabe–Ito set [OkabeIto2008] (distinguishable with the
  common colour-vision deficiencies), in annotation-id order; *certain* polygons are drawn solid,
  *uncertain* ones dashed. All of one annotator's polygons of one certainty are one
  ``QGraphicsPathItem`` (no ROI objects: docs/design.md, "Qt and pyqtgraph"), so an image with
  hundreds of polygons is a handful of items.
* **Heat map** — per pixel how many annotators marked it: hue by the number of votes
  (viridis-like, dark blue = one annotator .. yellow = all), opacity by how many of them were
  *certain* (all certain: opaque-ish; all uncertain: faint). Strict counts certain votes only.
* **Boxes** — the agreement boxes as rectangles in their band's colour with their α.
* **Pins** — the reviewer's comments, a box outline or a cross at the point.

Everything is a child of the view's ViewBox in image coordinates; cosmetic pens keep line
widths in screen pixels at any zoom.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem

from slicereview.app.report.formatting import fixed
from slicereview.app.review.image import ReviewImage
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.polygon_items import qpolygonf

#: [OkabeIto2008] colours, without black: one per annotator, cycling after seven.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
#: Box colours by agreement band (α ≤ 0.1, ≤ 0.667, ≤ 0.8, > 0.8).
BAND_COLOURS = {"disagreement": "#FF3B30", "low": "#FF9500", "moderate": "#FFE14D",
                "high": "#34C759"}
#: Heat-map hues for 1 .. R votes (viridis stops).
_VIRIDIS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98],
                     [253, 231, 37]], dtype=float)
PEN_PX = 2.0


def annotator_colour(index: int) -> QColor:
    """The colour of the ``index``-th annotator of an image (Okabe–Ito, cycling)."""
    return QColor(OKABE_ITO[index % len(OKABE_ITO)])


def band_colour(band: str) -> QColor:
    return QColor(BAND_COLOURS.get(band, "#BBBBBB"))


def vote_colour(votes: int, raters: int) -> QColor:
    """Hue of ``votes`` of ``raters`` votes on the heat map (opaque)."""
    t = 0.0 if raters <= 1 else (votes - 1) / (raters - 1)
    pos = t * (len(_VIRIDIS) - 1)
    k = min(int(pos), len(_VIRIDIS) - 2)
    rgb = _VIRIDIS[k] + (pos - k) * (_VIRIDIS[k + 1] - _VIRIDIS[k])
    return QColor(*(int(round(v)) for v in rgb))


def heat_lut(raters: int) -> np.ndarray:
    """``uint8 (N, 4)`` RGBA table of the heat-map index ``marked * (R + 1) + certain``.

    >>> lut = heat_lut(3)
    >>> lut.shape, int(lut[0, 3]), int(lut[3 * 4 + 3, 3]) > int(lut[3 * 4 + 0, 3])
    ((16, 4), 0, True)
    """
    n = raters + 1
    lut = np.zeros((n * n, 4), dtype=np.uint8)
    for marked in range(1, n):
        colour = vote_colour(marked, raters)
        for certain in range(0, marked + 1):
            alpha = 70 + 120 * certain / marked
            lut[marked * n + certain] = (colour.red(), colour.green(), colour.blue(), alpha)
    return lut


def _pen(colour: QColor, style: Qt.PenStyle = Qt.PenStyle.SolidLine,
         width: float = PEN_PX) -> QPen:
    pen = QPen(colour)
    pen.setWidthF(width)
    pen.setCosmetic(True)
    pen.setStyle(style)
    return pen


class ReviewOverlay:
    """Draws a :class:`ReviewImage` on ``view``; ``annotators`` limits it to some of them
    (side-by-side panes show one annotator each)."""

    def __init__(self, view: ImageView, annotators: list[int] | None = None) -> None:
        self.view = view
        self.only = annotators
        self.review: ReviewImage | None = None
        self.hidden: set[int] = set()
        self.held = False
        self.heat_mode = "off"
        self.level = "relaxed"
        self._outlines: dict[int, list[QGraphicsPathItem]] = {}
        self._heat = pg.ImageItem(axisOrder="row-major")
        self._heat.setZValue(5)
        self._heat.setVisible(False)
        view.viewbox.addItem(self._heat)
        self._boxes: list[QGraphicsRectItem] = []
        self._labels: list[pg.TextItem] = []
        self._pins: list[QGraphicsPathItem] = []
        self._current_box: QGraphicsRectItem | None = None

    # -- building --------------------------------------------------------------------------
    def clear(self) -> None:
        box = self.view.viewbox
        for items in self._outlines.values():
            for item in items:
                box.removeItem(item)
        for item in [*self._boxes, *self._labels, *self._pins]:
            box.removeItem(item)
        if self._current_box is not None:
            box.removeItem(self._current_box)
        self._outlines, self._boxes, self._labels, self._pins = {}, [], [], []
        self._current_box = None
        self._heat.clear()
        self._heat.setVisible(False)
        self.review = None

    def set_review(self, review: ReviewImage | None, level: str = "relaxed") -> None:
        """Draw ``review`` (``None`` clears); ``level`` picks the boxes and heat map."""
        self.clear()
        self.review, self.level = review, level
        if review is None:
            return
        for k, work in enumerate(review.annotators):
            if self.only is not None and k not in self.only:
                continue
            colour = annotator_colour(k)
            items = []
            for certain, style in ((True, Qt.PenStyle.SolidLine), (False, Qt.PenStyle.DashLine)):
                path = QPainterPath()
                for p in work.polygons:
                    if (str(p.certainty) == "certain") == certain and len(p.vertices) >= 2:
                        path.addPolygon(qpolygonf(p.vertices))
                        path.closeSubpath()
                item = QGraphicsPathItem(path)
                item.setPen(_pen(colour, style))
                item.setZValue(20)
                item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
                self.view.viewbox.addItem(item)
                items.append(item)
            self._outlines[k] = items
        self._draw_boxes()
        self._draw_pins()
        self._draw_heat()
        self._apply_visibility()

    def _draw_boxes(self) -> None:
        assert self.review is not None
        for b in self.review.boxes(self.level):
            r0, c0, r1, c1 = b.box
            item = QGraphicsRectItem(QRectF(c0, r0, c1 - c0, r1 - r0))
            item.setPen(_pen(band_colour(b.band), Qt.PenStyle.SolidLine, 1.5))
            item.setZValue(30)
            self.view.viewbox.addItem(item)
            self._boxes.append(item)
            text = "α n/a" if math.isnan(b.alpha) else f"α {fixed(b.alpha, 2)}"
            label = pg.TextItem(text, color=band_colour(b.band), anchor=(0, 1),
                                fill=pg.mkBrush(0, 0, 0, 150))
            label.setPos(c0, r0)
            label.setZValue(31)
            self.view.viewbox.addItem(label)
            self._labels.append(label)

    def _draw_pins(self) -> None:
        assert self.review is not None
        for pin in self.review.pins:
            path = QPainterPath()
            if pin.pin_kind == "box":
                r0, c0, r1, c1 = pin.pin_at
                path.addRect(QRectF(c0, r0, c1 - c0, r1 - r0))
            else:
                x, y = pin.pin_at
                size = max(self.review.shape) / 40
                path.moveTo(x - size, y)
                path.lineTo(x + size, y)
                path.moveTo(x, y - size)
                path.lineTo(x, y + size)
            item = QGraphicsPathItem(path)
            item.setPen(_pen(QColor("#FFFFFF"), Qt.PenStyle.DashDotLine, 2.5))
            item.setZValue(40)
            item.setToolTip(pin.comment or ", ".join(pin.tags))
            self.view.viewbox.addItem(item)
            self._pins.append(item)

    def _draw_heat(self) -> None:
        review = self.review
        if review is None or self.heat_mode == "off":
            self._heat.setVisible(False)
            return
        raters = len(review.annotators)
        n = raters + 1
        certain = review.certain_votes.astype(np.int32)
        marked = certain if self.heat_mode == "strict" else review.marked_votes.astype(np.int32)
        index = (marked * n + certain).astype(np.uint16 if n * n > 255 else np.uint8)
        self._heat.setImage(index, autoLevels=False, levels=(0, n * n - 1),
                            lut=heat_lut(raters))
        self._heat.setRect(0, 0, review.shape[1], review.shape[0])
        self._heat.setVisible(not self.held)

    # -- showing ---------------------------------------------------------------------------
    def set_heat_mode(self, mode: str) -> None:
        """``"off"``, ``"strict"`` (certain votes) or ``"relaxed"`` (all votes)."""
        self.heat_mode = mode
        self._draw_heat()

    def set_annotator_visible(self, index: int, visible: bool) -> None:
        (self.hidden.discard if visible else self.hidden.add)(index)
        self._apply_visibility()

    def hold_hidden(self, held: bool) -> None:
        """While a key is held every overlay is hidden (see the image alone)."""
        self.held = held
        self._apply_visibility()

    def visible_annotators(self) -> list[int]:
        return [k for k in self._outlines if k not in self.hidden and not self.held]

    def _apply_visibility(self) -> None:
        for k, items in self._outlines.items():
            for item in items:
                item.setVisible(not self.held and k not in self.hidden)
        for item in [*self._boxes, *self._labels, *self._pins]:
            item.setVisible(not self.held)
        if self._current_box is not None:
            self._current_box.setVisible(not self.held)
        self._heat.setVisible(not self.held and self.heat_mode != "off"
                              and self.review is not None)

    def mark_box(self, box: tuple[int, int, int, int] | None) -> None:
        """Outline the current box (the one walked to with Tab) in white."""
        if self._current_box is not None:
            self.view.viewbox.removeItem(self._current_box)
            self._current_box = None
        if box is None:
            return
        r0, c0, r1, c1 = box
        item = QGraphicsRectItem(QRectF(c0, r0, c1 - c0, r1 - r0))
        item.setPen(_pen(QColor("#FFFFFF"), Qt.PenStyle.DashLine, 3.0))
        item.setZValue(35)
        item.setVisible(not self.held)
        self.view.viewbox.addItem(item)
        self._current_box = item

    def hover_text(self, x: float, y: float) -> str:
        """``"k of R: names"`` for the pixel under image point ``(x, y)`` (heat map on)."""
        review = self.review
        if review is None:
            return ""
        voters = review.voters(int(math.floor(y)), int(math.floor(x)))
        if self.heat_mode == "strict":
            voters = [v for v in voters if v[1]]
        names = ", ".join(name if certain else f"{name} (uncertain)" for name, certain in voters)
        votes = "certain votes" if self.heat_mode == "strict" else "marked"
        return f"{len(voters)} of {len(review.annotators)} {votes}" + (f": {names}" if names
                                                                       else "")
