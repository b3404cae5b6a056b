"""The image view's right-drag (window/level), double-click (fit), zoom steps and histogram; the
window arithmetic is in :mod:`slicereview.engines.imaging.windowing`."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from slicereview.engines.imaging.display import WindowPreset


class WindowLevelViewBox(pg.ViewBox):
    """A ViewBox whose right-drag calls ``view.drag_window`` instead of zooming, and whose
    double-click calls ``view.fit``."""

    def __init__(self, view) -> None:
        super().__init__(lockAspect=True, invertY=True, enableMenu=False)
        self._view = view
        self._start: WindowPreset | None = None

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            if ev.isStart():
                self._start = self._view.current_window
            if self._start is None:
                return
            delta = ev.screenPos() - ev.buttonDownScreenPos()
            self._view.drag_window(self._start, delta.x(), delta.y(), final=ev.isFinish())
            if ev.isFinish():
                self._start = None
            return
        super().mouseDragEvent(ev, axis)

    def fit_to(self, rows: int, cols: int) -> None:
        """Show the whole ``rows`` × ``cols`` image with a small margin."""
        self.setRange(xRange=(0, cols), yRange=(0, rows), padding=0.02)

    def one_to_one(self) -> bool:
        """Zoom so that one image pixel covers one screen pixel, keeping the view centre;
        False while the view has no size yet."""
        geometry = self.screenGeometry()
        if geometry is None or geometry.width() <= 0:
            return False
        centre, size = self.viewRect().center(), geometry.size()
        hw, hh = size.width() / 2, size.height() / 2
        self.setRange(xRange=(centre.x() - hw, centre.x() + hw),
                      yRange=(centre.y() - hh, centre.y() + hh), padding=0)
        return True

    def mouseDoubleClickEvent(self, ev):
        if ev.button() == Qt.MouseButton.LeftButton:
            self._view.fit()
            ev.accept()
            return
        super().mouseDoubleClickEvent(ev)


class HistogramWidget(pg.HistogramLUTWidget):
    """pyqtgraph's histogram and grey-scale bar with a *value* axis, never narrower than its
    content: the axis widens with its tick labels (``50000`` for a 16-bit mammogram), and a
    fixed minimum width cut off the grey-scale bar and its handles on the right."""

    def __init__(self) -> None:
        super().__init__()
        self.setMinimumWidth(110)
        self.item.axis.setLabel("value")
        self.item.axis.geometryChanged.connect(self._fit)
        self.item.gradient.geometryChanged.connect(self._fit)

    def _fit(self) -> None:
        gradient = self.item.gradient
        need = int(gradient.mapRectToScene(gradient.boundingRect()).right()) + 2
        if need > self.minimumWidth():  # only ever wider: no resize loop
            self.setMinimumWidth(need)
