"""Consensus layers of the Review tab: the majority-vote mask and the STAPLE mask.

A box (``consensus: off / majority / STAPLE``, key **K** cycles it) draws the consensus of the
annotators shown as a translucent white layer over the image, at the tab's level (relaxed:
certain or uncertain pixels count as marked; strict: certain only). Majority vote is a pixel
count (computed at once); STAPLE (SimpleITK's ``STAPLEImageFilter``, through
:meth:`slicereview.app.review.image.ReviewImage.staple`) runs off the GUI thread, and each
annotator's estimated sensitivity and specificity is shown beside the box (its tooltip lists them by
name). The numbers come from :mod:`slicereview.engines.agreement.consensus_masks`, which also
feeds ``slicereview export --consensus``.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QLabel

from slicereview.app.report.formatting import fixed
from slicereview.app.review.image import ReviewImage
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.image_view import ImageView

MODES = ("off", "majority", "STAPLE")
#: The level a consensus is computed at (the engines' ``level``).
Level = Literal["strict", "relaxed"]
#: Consensus pixels: white at 45 % opacity (distinct from every annotator colour).
_LUT = np.array([[0, 0, 0, 0], [255, 255, 255, 115]], dtype=np.uint8)


def _fmt(value: float) -> str:
    return "—" if math.isnan(value) else fixed(value, 2)


class ConsensusLayer:
    """The box, the summary label and the layer on ``view``."""

    def __init__(self, view: ImageView) -> None:
        self.view = view
        self.box = QComboBox()
        self.box.addItems([f"consensus: {m}" for m in MODES])
        self.box.setToolTip("Majority vote or STAPLE mask of the annotators (K cycles)")
        self.summary = QLabel()
        self.layer = pg.ImageItem(axisOrder="row-major")
        self.layer.setZValue(6)
        self.layer.setVisible(False)
        view.viewbox.addItem(self.layer)
        self.tasks = Tasks()
        self.tasks.done.connect(self._on_staple)
        self.tasks.failed.connect(self._on_failed)
        self.box.currentIndexChanged.connect(lambda _i: self.redraw())
        self._review: ReviewImage | None = None
        self._names: list[str] = []
        self._level: Level = "relaxed"

    @property
    def mode(self) -> str:
        return MODES[self.box.currentIndex()]

    def cycle(self) -> None:
        self.box.setCurrentIndex((self.box.currentIndex() + 1) % len(MODES))

    def set_review(self, review: ReviewImage | None, level: str) -> None:
        """Follow the image shown (``None``: no image)."""
        self._review = review
        self._names = [] if review is None else [w.name for w in review.annotators]
        self._level = "strict" if level == "strict" else "relaxed"
        self.redraw()

    def redraw(self) -> None:
        self.tasks.forget()
        self.summary.clear()
        self.summary.setToolTip("")
        review = self._review
        if self.mode == "off" or review is None or review.labels.shape[0] == 0:
            self.layer.setVisible(False)
            return
        if self.mode == "majority":
            mask = review.majority(self._level)
            self.summary.setText(f"majority of {review.labels.shape[0]} ({self._level}): "
                                 f"{int(mask.sum())} px")
            self._show(mask)
            return
        self.summary.setText("STAPLE: computing…")
        self.layer.setVisible(False)
        self.tasks.submit("staple", review.staple, self._level)

    def hold_hidden(self, held: bool) -> None:
        self.layer.setVisible(not held and self.mode != "off" and self._review is not None)

    def _show(self, mask: np.ndarray) -> None:
        self.layer.setImage(mask.astype(np.uint8), autoLevels=False, levels=(0, 1), lut=_LUT)
        self.layer.setRect(0, 0, mask.shape[1], mask.shape[0])
        self.layer.setVisible(True)

    def _on_staple(self, _key: object, result: Any) -> None:
        if self.mode != "STAPLE":
            return
        self._show(np.asarray(result.mask))
        pairs = list(zip(result.sensitivity, result.specificity, strict=True))
        self.summary.setText("STAPLE sens./spec.: " + ", ".join(
            f"{_fmt(se)}/{_fmt(sp)}" for se, sp in pairs))
        self.summary.setToolTip("STAPLE estimates (SimpleITK), per annotator:\n" + "\n".join(
            f"{name}: sensitivity {_fmt(se)}, specificity {_fmt(sp)}"
            for name, (se, sp) in zip(self._names, pairs, strict=False)))

    def _on_failed(self, _key: object, message: str) -> None:
        self.summary.setText(f"STAPLE could not be computed: {message}")
