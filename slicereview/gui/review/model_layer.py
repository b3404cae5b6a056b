"""The model's layer of the Review tab: the outline of a model's prediction drawn as its own
layer over the image (a toggle, *Model outline*, key **O**), and the boxes the model found
that no annotator marked and those the annotators marked that the model missed, listed beside
it (a click zooms to one), with the model against the majority and STAPLE (Dice, HD95).
Which model: the queue's *Model* box (the one ``model-disagreement`` ranks by).

The values come from :func:`slicereview.app.review.model_view.model_on_image`, computed off
the GUI thread (STAPLE and HD95 take a moment on a mammogram). The outline is drawn in
magenta, dash-dotted, thicker than the annotators' lines: no Okabe–Ito annotator colour is
magenta, so it never reads as a person's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsPathItem,
    QGroupBox,
    QLabel,
    QListWidget,
    QVBoxLayout,
)

from slicereview.gui.common.background import Tasks
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.polygon_items import qpolygonf

#: The model's colour: magenta, apart from every annotator's.
MODEL_COLOUR = "#FF00FF"


def _fmt(value: float, digits: int = 2) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


class ModelLayer:
    """The toggle, the summary, the box list and the outline on ``view``; ``models``: the
    queue panel's model box; ``load(location, image, annotations, model)`` computes the
    values (the review service's ``load_model_view``)."""

    def __init__(self, view: ImageView, models: QComboBox,
                 load: Callable[[Any, int, tuple[int, ...], int], Any]) -> None:
        self.view = view
        self.models = models
        self.load = load
        self.toggle = QCheckBox("Model outline (O)")
        self.toggle.setToolTip("Draw the model's prediction (the queue's Model box) as its own "
                               "layer, and list the boxes only it or only the annotators found")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.boxes = QListWidget()
        self.boxes.setMaximumHeight(120)
        self.boxes.setToolTip("Boxes the model found that no annotator marked, and the "
                              "reverse (click: zoom to it)")
        self.boxes.currentRowChanged.connect(self.go_to)
        #: The summary and the box list, for the decisions panel.
        self.group = QGroupBox("Model")
        column = QVBoxLayout(self.group)
        column.addWidget(self.summary)
        column.addWidget(self.boxes)
        self.item = QGraphicsPathItem()
        pen = QPen(QColor(MODEL_COLOUR), 3.0, Qt.PenStyle.DashDotLine)
        pen.setCosmetic(True)
        self.item.setPen(pen)
        self.item.setZValue(8)
        self.item.setVisible(False)
        view.viewbox.addItem(self.item)
        self.tasks = Tasks()
        self.tasks.done.connect(self._on_done)
        self.tasks.failed.connect(lambda _k, m: self.summary.setText(
            f"The model could not be compared: {m}"))
        self.toggle.toggled.connect(lambda _on: self.redraw())
        models.currentIndexChanged.connect(lambda _i: self.redraw())
        self._key: tuple | None = None
        self.found: list[tuple[str, tuple[int, int, int, int]]] = []
        self.values: Any = None

    def set_review(self, location: Any, image_id: int | None,
                   annotation_ids: tuple[int, ...]) -> None:
        """Follow the image shown (``None``: none) of the project at ``location`` (the
        worker opens its own connection)."""
        self._key = None if location is None or image_id is None else (
            location, image_id, tuple(annotation_ids))
        self.redraw()

    def redraw(self) -> None:
        self.tasks.forget()
        self.item.setVisible(False)
        self.boxes.clear()
        self.found = []
        self.values = None
        model = self.models.currentData()
        if not self.toggle.isChecked() or self._key is None:
            self.summary.setText("")
            return
        if model is None:
            self.summary.setText("No model in this project (predictions import, or Owner ▸ "
                                 "Models…).")
            return
        self.summary.setText("Model: computing…")
        self.tasks.submit(("model", *self._key, model), self.load, *self._key, int(model))

    def _on_done(self, _key: object, result: Any) -> None:
        self.values = result
        if result is None:
            self.summary.setText(f"{self.models.currentText()} did not predict this image.")
            return
        path = QPainterPath()
        for polygon in result.polygons:
            path.addPolygon(qpolygonf(polygon.vertices))
            path.closeSubpath()
        self.item.setPath(path)
        self.item.setVisible(True)
        self.found = ([("model only", b) for b in result.model_only]
                      + [("people only", b) for b in result.people_only])
        for who, (r0, c0, r1, c1) in self.found:
            self.boxes.addItem(f"{who}  {c1 - c0}×{r1 - r0} px at ({r0}, {c0})")
            self.boxes.item(self.boxes.count() - 1).setToolTip(
                "found by the model, marked by no annotator" if who == "model only"
                else "marked by annotators, missed by the model")
        m, s = result.majority, result.staple
        hd95 = (f"HD95 {_fmt(m.hd95, 1)} px" if not math.isnan(m.hd95)
                else "HD95 undefined (one of the two is empty)")
        self.summary.setText(
            f"{result.label} vs majority: Dice {_fmt(m.dice)}, {hd95}; vs STAPLE: Dice "
            f"{_fmt(s.dice)}. Boxes only the model found: {len(result.model_only)}; marked "
            f"by annotators, missed by the model: {len(result.people_only)}.")

    def go_to(self, index: int) -> None:
        """Zoom to box ``index`` of the list, with a margin around it."""
        if not 0 <= index < len(self.found):
            return
        r0, c0, r1, c1 = self.found[index][1]
        margin = max(16.0, 0.6 * max(r1 - r0, c1 - c0))
        self.view.viewbox.setRange(xRange=(c0 - margin, c1 + margin),
                                   yRange=(r0 - margin, r1 + margin), padding=0)

    def hold_hidden(self, held: bool) -> None:
        self.item.setVisible(not held and self.values is not None and self.toggle.isChecked())
