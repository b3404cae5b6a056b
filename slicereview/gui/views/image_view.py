"""The image view: a pyqtgraph canvas with radiology-style window/level.

Mouse: wheel zooms about the cursor, left-drag pans, right-drag sets window/level (horizontal
= width / contrast, vertical = centre / brightness, as in most PACS viewers), double-click fits.
A histogram/levels control beside the image shows the same window. Keys are in
:mod:`slicereview.gui.actions`.

Speed: the image is handed to pyqtgraph in a fast dtype (``uint8``/``uint16``; signed data is
shifted to ``uint16``, see :func:`fast_display_copy`), levels are set explicitly and never
auto-computed, and a window/level change only changes the levels (pyqtgraph folds them into one
lookup table), so a drag never converts the pixel array. When zoomed out, the view shows a
block-mean reduced copy (a small pyramid: 1/2, 1/4, 1/8, built once per image on demand) drawn
over the full-resolution rectangle, so a redraw touches about as many pixels as the screen
has instead of all 13 M of a mammogram; coordinates stay those of the full image.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

#: How far one screen pixel of right-drag moves the window, as a fraction of the current width.
WL_SENSITIVITY = 0.005
_AUTO = "Auto (1–99.5 %)"


@dataclass(frozen=True)
class Window:
    """A display window in the image's own (modality) units."""

    center: float
    width: float

    @property
    def levels(self) -> tuple[float, float]:
        return self.center - self.width / 2.0, self.center + self.width / 2.0


def block_mean(data: np.ndarray, factor: int) -> np.ndarray:
    """``(H // f, W // f)`` block means of ``(H, W)`` (or ``(H, W, 3)``) data, same dtype.

    The last rows/columns that do not fill a block are dropped; callers draw the result over
    ``factor`` times its size, so the picture is at most ``factor - 1`` pixels short.
    """
    h, w = (data.shape[0] // factor) * factor, (data.shape[1] // factor) * factor
    cropped = data[:h, :w]
    shape = (h // factor, factor, w // factor, factor) + data.shape[2:]
    reduced = cropped.reshape(shape).mean(axis=(1, 3), dtype=np.float32)
    if np.issubdtype(data.dtype, np.integer):
        reduced = np.rint(reduced)
    return reduced.astype(data.dtype)


def fast_display_copy(data: np.ndarray) -> tuple[np.ndarray, float]:
    """Return ``(display, offset)`` with ``display = data + offset`` in a fast pyqtgraph dtype.

    pyqtgraph has fast paths for ``uint8`` and ``uint16`` (one combined lookup table) and slow
    ones for signed integers and floats. Signed integer data that fits is shifted into ``uint16``;
    other data is returned as it is (``offset`` 0). Levels given to pyqtgraph must add ``offset``.
    """
    if data.dtype in (np.uint8, np.uint16) or data.ndim == 3:
        return data, 0.0
    if np.issubdtype(data.dtype, np.integer):
        lo, hi = int(data.min()), int(data.max())
        if hi - lo < 65536:
            return (data.astype(np.int32) - lo).astype(np.uint16), float(-lo)
    return data, 0.0


class _ViewBox(pg.ViewBox):
    """A ViewBox whose right-drag sets window/level instead of zooming."""

    def __init__(self, view: ImageView) -> None:
        super().__init__(lockAspect=True, invertY=True, enableMenu=False)
        self._view = view
        self._start: Window | None = None

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


class ImageView(QWidget):
    """Shows one image with zoom, pan, window/level, presets, invert and a pixel readout.

    Feed it with :meth:`set_image` (a :class:`~slicereview.engines.imaging.loader.DisplayImage`).
    """

    #: ``(center, width)`` after every window change (drags emit on each step).
    window_changed = Signal(float, float)
    #: Text for the status bar: coordinates and pixel value under the cursor.
    cursor_info = Signal(str)
    #: A slice was chosen with the slice slider; carries the slice position (0-based).
    slice_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, show_histogram: bool = True) -> None:
        super().__init__(parent)
        self._display = None
        self._data: np.ndarray | None = None
        self._offset = 0.0
        self._window = Window(0.5, 1.0)
        self._user_invert = False

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("k")
        self.viewbox = _ViewBox(self)
        self.graphics.addItem(self.viewbox)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.viewbox.addItem(self.image_item)
        self._pyramid: dict[int, np.ndarray] = {}
        self._level = 1
        self.viewbox.sigRangeChanged.connect(self._update_level)
        self.histogram = pg.HistogramLUTWidget(image=self.image_item)
        self.histogram.setMinimumWidth(110)
        self.histogram.setVisible(show_histogram)
        self.histogram.item.sigLevelsChanged.connect(self._on_histogram_levels)

        self.preset_box = QComboBox()
        self.preset_box.setToolTip("Window presets from the file, and an automatic window")
        self.preset_box.activated.connect(self._on_preset)
        self.invert_box = QCheckBox("Invert")
        self.invert_box.setToolTip("Invert the grey scale (I)")
        self.invert_box.toggled.connect(self.set_inverted)
        self.fit_button = QPushButton("Fit")
        self.fit_button.setToolTip("Fit the image to the view (F, or double-click)")
        self.fit_button.clicked.connect(self.fit)
        self.one_button = QPushButton("1:1")
        self.one_button.setToolTip("One image pixel per screen pixel (1)")
        self.one_button.clicked.connect(self.actual_size)
        self.window_label = QLabel()
        self.window_label.setToolTip("Current window: centre / width (right-drag to change)")
        self.slice_slider = QSlider(Qt.Orientation.Horizontal)
        self.slice_slider.setToolTip("Slice (Page Up / Page Down)")
        self.slice_slider.valueChanged.connect(self.slice_requested)
        self.slice_label = QLabel()
        self.set_slices(0, 0)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        for w in (QLabel("Window:"), self.preset_box, self.invert_box, self.fit_button,
                  self.one_button, self.window_label):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(self.slice_label)
        bar.addWidget(self.slice_slider, 1)
        canvas = QHBoxLayout()
        canvas.setContentsMargins(0, 0, 0, 0)
        canvas.addWidget(self.graphics, 1)
        canvas.addWidget(self.histogram)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addLayout(canvas, 1)
        self.graphics.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)

    # -- image -----------------------------------------------------------------------------
    @property
    def display(self):
        return self._display

    def set_image(self, display, *, keep_view: bool = False) -> None:
        """Show ``display`` (a DisplayImage). ``keep_view`` keeps zoom/pan and the window."""
        self._display = display
        data, self._offset = fast_display_copy(np.asarray(display.data))
        self._data = data
        self._pyramid = {1: data}
        self._level = 1
        keep_window = keep_view and self._window.width > 0
        self.image_item.setImage(data, autoLevels=False)
        self.image_item.setRect(0, 0, data.shape[1], data.shape[0])
        flip_rows, flip_cols = getattr(display, "flips", (False, False))
        self.viewbox.invertY(not flip_rows)  # row 0 at the top unless flipped
        self.viewbox.invertX(bool(flip_cols))
        self._fill_presets(display)
        if not keep_window:
            first = display.presets[0] if display.presets else display.auto_window()
            self.set_window(first.center, first.width)
            self.preset_box.setCurrentIndex(0)
        else:
            self.set_window(self._window.center, self._window.width)
        self._apply_lut()
        if not keep_view:
            self.fit()
        self._update_level()

    def _update_level(self, *_args: object) -> None:
        """Show the pyramid level that has about one image pixel per screen pixel."""
        if self._data is None:
            return
        px = self.viewbox.viewPixelSize()
        image_per_screen = max(px[0], px[1]) if px else 1.0
        level = 1
        while level < 8 and image_per_screen >= 2 * level:
            level *= 2
        if level == self._level:
            return
        if level not in self._pyramid:
            self._pyramid[level] = block_mean(self._data, level)
        self._level = level
        levels = self.image_item.getLevels()
        self.image_item.setImage(self._pyramid[level], autoLevels=False, levels=levels)
        h, w = self._pyramid[level].shape[:2]
        self.image_item.setRect(0, 0, w * level, h * level)

    def clear(self) -> None:
        self._display = None
        self._data = None
        self._pyramid = {}
        self.image_item.clear()
        self.preset_box.clear()
        self.window_label.clear()

    def _fill_presets(self, display) -> None:
        self.preset_box.blockSignals(True)
        self.preset_box.clear()
        for preset in display.presets:
            self.preset_box.addItem(f"{preset.name} ({preset.center:g}/{preset.width:g})")
        self.preset_box.addItem(_AUTO)
        self.preset_box.blockSignals(False)

    # -- window / level --------------------------------------------------------------------
    @property
    def window(self) -> Window:
        return self._window

    def set_window(self, center: float, width: float) -> None:
        """Set the window in the image's units (width is clamped to a small positive value)."""
        width = max(float(width), 1e-6)
        self._window = Window(float(center), width)
        lo, hi = self._window.levels
        blocker = self.histogram.item.blockSignals(True)
        self.histogram.item.setLevels(lo + self._offset, hi + self._offset)
        self.histogram.item.blockSignals(blocker)
        self.image_item.setLevels((lo + self._offset, hi + self._offset))
        self.window_label.setText(f"C {center:.6g}  W {width:.6g}")
        self.window_changed.emit(self._window.center, self._window.width)

    def drag_window(self, start: Window, dx: float, dy: float, *, final: bool = False) -> None:
        """Window from a right-drag of ``(dx, dy)`` screen pixels since ``start``.

        Right widens (less contrast), down raises the centre (darker), as in common PACS.
        """
        scale = max(start.width, 1.0) * WL_SENSITIVITY
        self.set_window(start.center + dy * scale, start.width + dx * scale)

    def auto_window(self) -> None:
        if self._display is not None:
            w = self._display.auto_window()
            self.set_window(w.center, w.width)
            self.preset_box.setCurrentIndex(self.preset_box.count() - 1)

    def adjust(self, brightness: float = 0.0, contrast: float = 0.0) -> None:
        """Step the window: ``brightness`` +1 brighter / -1 darker, ``contrast`` +1 more / -1 less.

        One step moves the centre by 5 % of the width, or scales the width by 10 %.
        """
        c, w = self._window.center, self._window.width
        self.set_window(c - brightness * 0.05 * w, w * (0.9 ** contrast))

    def _on_preset(self, index: int) -> None:
        if self._display is None:
            return
        if index >= len(self._display.presets):
            self.auto_window()
        else:
            p = self._display.presets[index]
            self.set_window(p.center, p.width)

    def _on_histogram_levels(self, item) -> None:
        lo, hi = item.getLevels()
        lo, hi = lo - self._offset, hi - self._offset
        self._window = Window((lo + hi) / 2.0, max(hi - lo, 1e-6))
        self.window_label.setText(f"C {self._window.center:.6g}  W {self._window.width:.6g}")
        self.window_changed.emit(self._window.center, self._window.width)

    # -- invert ----------------------------------------------------------------------------
    @property
    def inverted(self) -> bool:
        """Whether the grey scale is shown inverted (MONOCHROME1 XOR the user's toggle)."""
        base = bool(getattr(self._display, "invert", False))
        return base != self._user_invert

    def set_inverted(self, user_invert: bool) -> None:
        self._user_invert = bool(user_invert)
        blocker = self.invert_box.blockSignals(True)
        self.invert_box.setChecked(self._user_invert)
        self.invert_box.blockSignals(blocker)
        self._apply_lut()

    def _apply_lut(self) -> None:
        # Inversion happens after windowing (DICOM MONOCHROME1 rule): reverse the grey ramp.
        gradient = self.histogram.item.gradient
        if self.inverted:
            gradient.restoreState({"mode": "rgb", "ticks": [(0.0, (255, 255, 255, 255)),
                                                            (1.0, (0, 0, 0, 255))]})
        else:
            gradient.loadPreset("grey")

    # -- zoom ------------------------------------------------------------------------------
    def fit(self) -> None:
        if self._data is not None:
            h, w = self._data.shape[:2]
            self.viewbox.setRange(xRange=(0, w), yRange=(0, h), padding=0.02)

    def actual_size(self) -> None:
        """Zoom so that one image pixel covers one screen pixel, keeping the view centre."""
        if self._data is None:
            return
        rect = self.viewbox.viewRect()
        size = self.viewbox.screenGeometry().size() if self.viewbox.screenGeometry() else None
        if size is None or size.width() <= 0:
            return
        cx, cy = rect.center().x(), rect.center().y()
        hw, hh = size.width() / 2.0, size.height() / 2.0
        self.viewbox.setRange(xRange=(cx - hw, cx + hw), yRange=(cy - hh, cy + hh), padding=0)

    def zoom(self, factor: float) -> None:
        """Zoom in (``factor`` < 1) or out (> 1) about the view centre."""
        self.viewbox.scaleBy((factor, factor))

    # -- slices ----------------------------------------------------------------------------
    def set_slices(self, count: int, current: int) -> None:
        """Show the slice slider for a volume of ``count`` slices (hidden when ``count`` < 2)."""
        blocker = self.slice_slider.blockSignals(True)
        self.slice_slider.setRange(0, max(count - 1, 0))
        self.slice_slider.setValue(current)
        self.slice_slider.blockSignals(blocker)
        visible = count > 1
        self.slice_slider.setVisible(visible)
        self.slice_label.setVisible(visible)
        self.slice_label.setText(f"Slice {current + 1}/{count}" if visible else "")

    def step_slice(self, step: int) -> None:
        if self.slice_slider.isVisible():
            self.slice_slider.setValue(self.slice_slider.value() + step)

    # -- readout ---------------------------------------------------------------------------
    def value_at(self, x: float, y: float) -> tuple[int, int, object] | None:
        """``(row, col, value)`` of the pixel covering image point ``(x, y)``, or ``None``."""
        if self._display is None:
            return None
        data = np.asarray(self._display.data)
        row, col = int(np.floor(y)), int(np.floor(x))
        if not (0 <= row < data.shape[0] and 0 <= col < data.shape[1]):
            return None
        value = data[row, col]
        return row, col, value.tolist() if hasattr(value, "tolist") else value

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self._display is None or not self.viewbox.sceneBoundingRect().contains(pos):
            return
        point = self.viewbox.mapSceneToView(pos)
        hit = self.value_at(point.x(), point.y())
        if hit is None:
            self.cursor_info.emit("")
            return
        row, col, value = hit
        unit = getattr(self._display, "value_unit", "") or ""
        self.cursor_info.emit(f"x {col}  y {row}   value {value} {unit}".rstrip())
