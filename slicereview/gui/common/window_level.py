"""The image view's right-drag (window/level) and double-click (fit); the arithmetic is in
:mod:`slicereview.engines.imaging.windowing`."""

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
                self._start = self._view.window
            if self._start is None:
                return
            delta = ev.screenPos() - ev.buttonDownScreenPos()
            self._view.drag_window(self._start, delta.x(), delta.y(), final=ev.isFinish())
            if ev.isFinish():
                self._start = None
            return
        super().mouseDragEvent(ev, axis)

    def mouseDoubleClickEvent(self, ev):
        if ev.button() == Qt.MouseButton.LeftButton:
            self._view.fit()
            ev.accept()
            return
        super().mouseDoubleClickEvent(ev)
