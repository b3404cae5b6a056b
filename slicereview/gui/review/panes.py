"""Side-by-side review: one pane per annotator, with zoom, pan and window linked.

Each pane is an :class:`~slicereview.gui.common.image_view.ImageView` with a
:class:`~.overlay.ReviewOverlay` limited to one annotator (boxes and pins in every pane). Zoom and
pan are linked through pyqtgraph's ViewBox X/Y links to the first pane; window/level is copied from
whichever pane changed to the others under a ``QSignalBlocker`` (as
:mod:`slicereview.gui.rate.compare_view` links its two sides).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from slicereview.app.review.image import ReviewImage
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.review.overlay import OKABE_ITO, ReviewOverlay


def shares(width: int, queue_needs: int) -> list[int]:
    """The Review tab's widths of the queue, the image and the panel for a page ``width`` px
    wide: the queue and the panel a quarter each (the queue no narrower than it needs, the
    panel than 350 px; neither wider than 440 and 420 px), the image the rest. At 1264 px the
    image had a strip of ~300 px beside a 440 px queue.

    >>> shares(1264, 330), shares(1904, 330)
    ([330, 584, 350], [440, 1044, 420])
    """
    queue = min(440, max(queue_needs, width // 4))
    panel = min(420, max(350, width // 4))
    return [queue, max(1, width - queue - panel), panel]


class _Pane(QWidget):
    def __init__(self, index: int) -> None:
        super().__init__()
        self.title = QLabel()
        self.view = ImageView(show_histogram=False)
        self.overlay = ReviewOverlay(self.view, [index])
        # The window is linked across panes: its bar once, in the first pane, so that the panes
        # of five annotators fit a 1,600 px screen (each bar wants ~360 px).
        self.view.controls.setVisible(index == 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(1, 1, 1, 1)
        layout.setSpacing(0)
        layout.addWidget(self.title)
        layout.addWidget(self.view, 1)


class SideBySide(QWidget):
    """A grid of linked panes, one per annotator of the image shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.panes: list[_Pane] = []
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(2)

    def _pane(self, index: int) -> _Pane:
        while len(self.panes) <= index:
            pane = _Pane(len(self.panes))
            if self.panes:
                pane.view.viewbox.setXLink(self.panes[0].view.viewbox)
                pane.view.viewbox.setYLink(self.panes[0].view.viewbox)
            pane.view.window_changed.connect(lambda *_a, v=pane.view: self._copy_window(v))
            self.panes.append(pane)
        return self.panes[index]

    def image_views(self) -> list[ImageView]:
        return [p.view for p in self.panes if p.isVisible()]

    def show_review(self, display, review: ReviewImage | None, level: str,
                    keep_view: bool) -> None:
        """Show ``display`` in one pane per annotator of ``review`` (no heat map: a pane
        shows one annotator, the heat map all of them)."""
        count = len(review.annotators) if review is not None else 1
        columns = max(1, math.ceil(math.sqrt(count)))
        for pane in self.panes:
            self.grid.removeWidget(pane)
            pane.hide()
        for k in range(count):
            pane = self._pane(k)
            self.grid.addWidget(pane, k // columns, k % columns)
            pane.show()
            name = review.annotators[k].name if review is not None else ""
            colour = OKABE_ITO[k % len(OKABE_ITO)]
            pane.title.setText(f"<b style='color:{colour}'>■ {name}</b>")
            blocker = QSignalBlocker(pane.view)
            pane.view.set_image(display, keep_view=keep_view and k > 0)
            blocker.unblock()
            pane.overlay.heat_mode = "off"  # one annotator per pane: outlines only
            pane.overlay.set_review(review, level)
        if self.panes and not keep_view:
            self.panes[0].view.fit()

    def overlays(self) -> list[ReviewOverlay]:
        return [p.overlay for p in self.panes if p.isVisible()]

    def _copy_window(self, source: ImageView) -> None:
        for pane in self.panes:
            if pane.view is not source and pane.view.display is not None:
                blocker = QSignalBlocker(pane.view)
                pane.view.set_window(source.current_window.center, source.current_window.width)
                blocker.unblock()
