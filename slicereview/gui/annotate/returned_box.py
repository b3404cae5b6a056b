"""A returned annotation in the Annotate tab: the reviewer's reason, comments and pins.

When the annotation shown is the acting annotator's own and a reviewer rejected it
(:func:`slicereview.app.review.decisions.returned_annotations`), the panel shows a *Returned by
the reviewer* box: the reason tags and comment, and the pins the annotator is shown (a box or
a point with its comment: those made on this annotation and the image's pins for everyone,
:func:`~slicereview.app.review.decisions.pins_for_annotator`), numbered, listed here and drawn
on the image with the same numbers (dotted magenta outlines, which neither polygon colour
scheme uses). *Revise* starts the next round — a copy of the annotator's polygons and answers
(:func:`~slicereview.app.review.decisions.start_revision`) — and switches to it; the rejected
round stays as it was. An annotation that was not returned shows the image's pins for
everyone alone, in a *Comments for everyone* box.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsRectItem,
    QGroupBox,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
)

from slicereview.model import Review

PIN_COLOUR = QColor(255, 0, 255)


def pin_text(n: int, pin: Review) -> str:
    """``"1. box rows 10–40, cols 5–60: too small"`` (pixel coordinates)."""
    if pin.pin_kind == "box":
        r0, c0, r1, c1 = pin.pin_at
        where = f"box rows {r0:.0f}–{r1:.0f}, cols {c0:.0f}–{c1:.0f}"
    else:
        x, y = pin.pin_at
        where = f"point x {x:.0f}, y {y:.0f}"
    return f"{n}. {where}: {pin.comment or '(no comment)'}"


def pin_items(pins: list[Review]) -> list[QGraphicsItem]:
    """Graphics items (image coordinates) drawing ``pins`` with their numbers."""
    pen = QPen(PIN_COLOUR)
    pen.setCosmetic(True)
    pen.setWidthF(2.0)
    pen.setStyle(Qt.PenStyle.DotLine)
    items: list[QGraphicsItem] = []
    for n, pin in enumerate(pins, 1):
        if pin.pin_kind == "box":
            r0, c0, r1, c1 = pin.pin_at
            shape: QGraphicsRectItem | QGraphicsEllipseItem = QGraphicsRectItem(
                QRectF(c0, r0, c1 - c0, r1 - r0))
            corner = (c0, r0)
        else:
            x, y = pin.pin_at
            shape = QGraphicsEllipseItem(QRectF(x - 3, y - 3, 6, 6))
            corner = (x + 3, y - 3)
        shape.setPen(pen)
        shape.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        label = pg.TextItem(str(n), color=PIN_COLOUR, anchor=(0, 1),
                            fill=pg.mkBrush(0, 0, 0, 160))
        font = QFont()
        font.setBold(True)
        label.setFont(font)
        label.setPos(*corner)
        for item in (shape, label):
            item.setZValue(900)
            items.append(item)
    return items


class ReturnedBox(QGroupBox):
    """The reviewer's reason and pins of a returned annotation, with *Revise*."""

    #: The annotator asked to revise (start the next round).
    revise_requested = Signal()

    def __init__(self) -> None:
        super().__init__("Returned by the reviewer")
        self.setObjectName("returned_box")
        self.reason = QLabel()
        self.reason.setWordWrap(True)
        self.pins = QListWidget()
        self.pins.setMaximumHeight(110)
        self.pins.setWordWrap(True)
        self.revise_button = QPushButton("Revise")
        self.revise_button.setToolTip("Start the next round with a copy of your polygons and "
                                      "answers, and show it")
        self.revise_button.clicked.connect(self.revise_requested)
        col = QVBoxLayout(self)
        col.addWidget(self.reason)
        col.addWidget(self.pins)
        col.addWidget(self.revise_button)
        self.is_returned = False
        self.setVisible(False)

    def show_returned(self, decision: Review | None, pins: list[Review],
                      revision_round: int | None) -> None:
        """Fill the box (``decision`` ``None`` and no pins hide it; ``None`` with pins: the
        image's pins for everyone alone)."""
        #: Whether it shows a returned annotation (not only the image's pins for everyone).
        self.is_returned = decision is not None
        self.setVisible(decision is not None or bool(pins))
        self.pins.clear()
        self.pins.addItems([pin_text(n, p) for n, p in enumerate(pins, 1)])
        self.pins.setVisible(bool(pins))
        self.setTitle("Returned by the reviewer" if decision is not None
                      else "Comments for everyone")
        self.reason.setVisible(decision is not None)
        self.revise_button.setVisible(decision is not None)
        if decision is None:
            return
        tags = ", ".join(decision.tags)
        parts = [f"<b>Rejected</b>{': ' + tags if tags else ''}"]
        if decision.comment:
            parts.append(f"“{decision.comment}”")
        if revision_round is not None:
            parts.append(f"Your revision is round {revision_round}.")
        self.reason.setText("<br>".join(parts))
        self.revise_button.setText("Revise" if revision_round is None
                                   else f"Go to the revision (round {revision_round})")
