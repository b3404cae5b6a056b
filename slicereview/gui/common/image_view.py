"""The image view: a pyqtgraph canvas with radiology-style window/level.

Mouse: wheel zooms about the cursor, left-drag pans, right-drag sets window/level (horizontal
= width / contrast, vertical = centre / brightness, as in most PACS viewers; the arithmetic is
in :mod:`slicereview.engines.imaging.windowing`), double-click fits. A histogram beside the
image shows the same window in the image's units. The *Window* box names the window shown: a
preset of the file, the automatic one, or "Custom (C/W)" after a change by hand. Keys are in
:mod:`slicereview.gui.common.shortcuts`.

Speed: the image is handed to pyqtgraph in a fast dtype (``uint8``/``uint16``, see
:func:`fast_display_copy`), levels are set explicitly, and a window/level change only changes
the levels, so a drag never converts the pixel array. Zoomed out, a block-mean reduced copy is
drawn over the full-resolution rectangle (:class:`~.tile_layer.ReducedLevels`); a large image
(:class:`~slicereview.engines.imaging.pyramid.PyramidDisplay`) brings only its screen-sized
level, and zoomed in :class:`~.tile_layer.TileLayer` draws the finer region in view.
Coordinates are always those of the full image.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
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

from slicereview.engines.imaging import pyramid as pyramids
from slicereview.engines.imaging.display import DisplayImage, WindowPreset
from slicereview.engines.imaging.windowing import (
    AUTO_LABEL,
    DataRange,
    block_mean,
    custom_label,
    dragged_window,
    fast_display_copy,
    histogram_curve,
)
from slicereview.gui.common.tile_layer import ReducedLevels, TileLayer
from slicereview.gui.common.widgets import tip
from slicereview.gui.common.window_level import HistogramWidget, WindowLevelViewBox

__all__ = ["ImageView", "block_mean", "fast_display_copy"]


class ImageView(QWidget):
    """Shows one image with zoom, pan, window/level, presets, invert and a pixel readout; feed
    it with :meth:`set_image` (a :class:`~slicereview.engines.imaging.loader.DisplayImage`)."""

    #: ``(center, width)`` after every window change (drags emit on each step).
    window_changed = Signal(float, float)
    #: Text for the status bar: coordinates and pixel value under the cursor.
    cursor_info = Signal(str)
    #: A slice was chosen with the slice slider; carries the slice position (0-based).
    slice_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, show_histogram: bool = True) -> None:
        super().__init__(parent)
        self._display: DisplayImage | None = None
        self._data: np.ndarray | None = None
        self._offset = 0.0
        self._window = WindowPreset.custom(0.5, 1.0)
        self._auto: WindowPreset | None = None
        self._given_auto: WindowPreset | None = None
        self._range = DataRange(0.0, 1.0, False)
        self._user_invert = False

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("k")
        self.viewbox = WindowLevelViewBox(self)
        self.graphics.addItem(self.viewbox)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.viewbox.addItem(self.image_item)
        self.reduced, self._full = ReducedLevels(), (0, 0)  # (full: rows, cols of the image)
        self.tiles = TileLayer(self.viewbox, self.image_item)
        # A settling layout changes the range in bursts: one level update after a burst.
        self._level_timer = QTimer(self)
        self._level_timer.setSingleShot(True)  # (interval 0: when the burst is over)
        self._level_timer.timeout.connect(self._update_level)
        self.viewbox.sigRangeChanged.connect(lambda *_: self._level_timer.start())
        # Not bound to the image item: that would show the shifted display copy's values.
        self.histogram = HistogramWidget()
        self.histogram.setVisible(show_histogram)
        self.histogram.item.sigLevelsChanged.connect(self._on_histogram_levels)
        self.histogram.item.sigLookupTableChanged.connect(self._on_lut_changed)

        self.preset_box = tip(QComboBox(), "Window presets from the file, and an automatic "
                               "window")
        self.preset_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.preset_box.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.preset_box.activated.connect(self._on_preset)
        self.invert_box = tip(QCheckBox("Invert"), "Invert the grey scale (I)")
        self.invert_box.toggled.connect(self.set_inverted)
        self.fit_button = tip(QPushButton("Fit"), "Fit the image to the view (F, double-click)")
        self.fit_button.clicked.connect(self.fit)
        self.one_button = tip(QPushButton("1:1"), "One image pixel per screen pixel (1)")
        self.one_button.clicked.connect(self.actual_size)
        self.window_label = tip(QLabel(), "Current window: centre / width (right-drag to "
                                 "change)")  # gives way in narrow panes; the preset box never
        self.window_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.slice_slider = tip(QSlider(Qt.Orientation.Horizontal), "Slice (Page Up / Page Down)")
        self.slice_slider.valueChanged.connect(self.slice_requested)
        self.slice_label = QLabel()
        self.set_slices(0, 0)
        self.controls = QWidget()  # the window bar (side-by-side panes show it once)
        bar = QHBoxLayout(self.controls)
        bar.setContentsMargins(4, 2, 4, 2)
        for w in (QLabel("Window:"), self.preset_box, self.invert_box, self.fit_button,
                  self.one_button, self.window_label):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(self.slice_label)
        bar.addWidget(self.slice_slider, 1)
        canvas, layout = QHBoxLayout(), QVBoxLayout(self)
        for box in (canvas, layout):
            box.setContentsMargins(0, 0, 0, 0)
        canvas.addWidget(self.graphics, 1)
        canvas.addWidget(self.histogram)
        layout.setSpacing(0)
        layout.addWidget(self.controls)
        layout.addLayout(canvas, 1)
        self.graphics.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.graphics.viewport().installEventFilter(self)

    # -- image -----------------------------------------------------------------------------
    @property
    def display(self) -> DisplayImage | None:
        """The image shown (``None``: none)."""
        return self._display

    def set_image(self, display: DisplayImage, *, keep_view: bool = False,
                  keep_window: bool | None = None, auto: WindowPreset | None = None) -> None:
        """Show ``display``. ``keep_view`` keeps zoom/pan and the window (a volume's slices),
        ``keep_window=False`` only zoom/pan (a new pair); ``auto`` replaces its auto window."""
        self._display = display
        data, self._offset = fast_display_copy(np.asarray(display.data))
        self._data = data
        pyramid = display if isinstance(display, pyramids.PyramidDisplay) else None
        self._full = pyramid.full_shape if pyramid is not None else data.shape[:2]
        self.tiles.set_pyramid(pyramid)
        self.reduced.reset(data, pyramid.scale if pyramid is not None else 1)
        self._range = DataRange.of(np.asarray(display.data))
        keep_window = (keep_view if keep_window is None else keep_window) and \
            self._window.width > 0 and self._auto is not None
        self.image_item.setImage(data, autoLevels=False)
        self.image_item.setRect(0, 0, self._full[1], self._full[0])
        flip_rows, flip_cols = getattr(display, "flips", (False, False))
        self.viewbox.invertY(not flip_rows)  # row 0 at the top unless flipped
        self.viewbox.invertX(bool(flip_cols))
        self._fill_presets(display)
        self.histogram.item.plot.setData(*histogram_curve(np.asarray(display.data)))
        self._given_auto = auto
        if not keep_window:
            self._auto = auto or self._own_auto()
            first = display.presets[0] if display.presets else self._auto
            self.set_window(first.center, first.width)
        else:
            self.set_window(self._window.center, self._window.width)
        self._apply_lut()
        if not keep_view:
            self.fit()
        self._update_level()
        self.cursor_info.emit("")  # the old readout belongs to the old image

    def _update_level(self, *_args: object) -> None:
        """Show the pyramid level with about one image pixel per screen pixel."""
        if self._data is None or not self.isVisible():
            return
        px = self.viewbox.viewPixelSize()
        image_per_screen = max(px[0], px[1]) if px else 1.0
        self.tiles.update(image_per_screen, self.viewbox.viewRect())
        picked = self.reduced.pick(image_per_screen)
        if picked is None:
            return
        level, data = picked
        levels = self.image_item.getLevels()
        self.image_item.setImage(data, autoLevels=False, levels=levels)
        h, w = data.shape[:2]
        self.image_item.setRect(0, 0, w * level, h * level)

    def clear(self) -> None:
        self._display = None
        self._data = None
        self.reduced.reset(None, 1)
        self._auto = None
        self.tiles.set_pyramid(None)
        self.image_item.clear()
        self.histogram.item.plot.setData([], [])
        self.preset_box.clear()
        self.window_label.clear()
        self.cursor_info.emit("")

    def _fill_presets(self, display) -> None:
        self.preset_box.blockSignals(True)
        self.preset_box.clear()
        for preset in display.presets:
            self.preset_box.addItem(f"{preset.name} ({preset.center:g}/{preset.width:g})")
        self.preset_box.addItem(AUTO_LABEL)
        self.preset_box.blockSignals(False)

    def _sync_preset_box(self) -> None:
        """Select the entry naming the window shown; "Custom (C/W)" when none does."""
        if self._display is None:
            return
        presets = [WindowPreset.custom(p.center, p.width) for p in self._display.presets]
        index = next((i for i, p in enumerate(presets) if self._window.close_to(p)), None)
        if index is None and self._window.close_to(self._auto):
            index = len(presets)
        blocker = self.preset_box.blockSignals(True)
        custom = len(presets) + 1
        if index is None:
            if self.preset_box.count() <= custom:
                self.preset_box.addItem("")
            self.preset_box.setItemText(custom, custom_label(self._window))
            index = custom
        elif self.preset_box.count() > custom:
            self.preset_box.removeItem(custom)
        self.preset_box.setCurrentIndex(index)
        self.preset_box.blockSignals(blocker)

    # -- window / level --------------------------------------------------------------------
    @property
    def current_window(self) -> WindowPreset:
        """The window (centre and width) the image is shown with."""
        return self._window

    @property
    def data_range(self) -> DataRange:
        """The value range of the image shown (drag sensitivity and minimum width)."""
        return self._range

    def set_window(self, center: float, width: float) -> None:
        """Set the window in the image's units (width at least the data's minimum width)."""
        width = max(float(width), self._range.minimum_width, 1e-6)
        self._window = WindowPreset.custom(float(center), width)
        lo, hi = self._window.levels()
        blocker = self.histogram.item.blockSignals(True)
        self.histogram.item.setLevels(lo, hi)
        self.histogram.item.blockSignals(blocker)
        self._window_shown()

    def _window_shown(self) -> None:
        lo, hi = self._window.levels()
        self.image_item.setLevels((lo + self._offset, hi + self._offset))
        self.tiles.set_levels(lo, hi)
        self.window_label.setText(f"C {self._window.center:.6g}  W {self._window.width:.6g}")
        self._sync_preset_box()
        self.window_changed.emit(self._window.center, self._window.width)

    def drag_window(self, start: WindowPreset, dx: float, dy: float, *,
                    final: bool = False) -> None:
        """The window from a right-drag of ``(dx, dy)`` screen pixels since ``start``: a drag
        across the whole view changes the width or the centre by the data range (see
        :func:`~slicereview.engines.imaging.windowing.dragged_window`). Right widens, down
        raises the centre (darker).
        """
        size = (self.viewbox.width(), self.viewbox.height())
        window = dragged_window(start, dx, dy, size, self._range)
        self.set_window(window.center, window.width)

    def _own_auto(self) -> WindowPreset:
        assert self._display is not None
        w = self._display.auto_window()
        return WindowPreset.custom(w.center, w.width)

    def auto_window(self) -> None:
        """The automatic window: the volume's when one was given, else this image's."""
        if self._display is not None:
            self._auto = self._given_auto or self._own_auto()
            self.set_window(self._auto.center, self._auto.width)

    def adjust(self, brightness: float = 0.0, contrast: float = 0.0) -> None:
        """Step the window: ``brightness`` +1 brighter / -1 darker, ``contrast`` +1 more / -1 less.

        One step moves the centre by 5 % of the width, or scales the width by 10 %.
        """
        c, w = self._window.center, self._window.width
        self.set_window(c - brightness * 0.05 * w, w * (0.9 ** contrast))

    def _on_preset(self, index: int) -> None:
        if self._display is None:
            return
        if index == len(self._display.presets):
            self.auto_window()
        elif index < len(self._display.presets):
            p = self._display.presets[index]
            self.set_window(p.center, p.width)
        # the "Custom" entry names the window shown; choosing it changes nothing

    def _on_histogram_levels(self, item) -> None:
        lo, hi = item.getLevels()  # the histogram is in the image's units
        if hi - lo < self._range.minimum_width:
            self.set_window((lo + hi) / 2.0, hi - lo)  # clamps, and moves the region back
            return
        self._window = WindowPreset.custom((lo + hi) / 2.0, hi - lo)
        self._window_shown()

    def _on_lut_changed(self, item) -> None:
        gradient = item.gradient
        lut = None if gradient.isLookupTrivial() else gradient.getLookupTable(256, alpha=False)
        self.image_item.setLookupTable(lut)
        self.tiles.set_lookup_table(lut)

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
            self.viewbox.fit_to(*self._full)
            self._update_level()

    def actual_size(self) -> None:
        """Zoom so that one image pixel covers one screen pixel, keeping the view centre."""
        if self._data is not None and self.viewbox.one_to_one():
            self._update_level()

    def zoom(self, factor: float) -> None:
        """Zoom in (``factor`` < 1) or out (> 1) about the view centre."""
        self.viewbox.scaleBy((factor, factor))
        self._update_level()

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
        row, col = int(np.floor(y)), int(np.floor(x))
        if not (0 <= row < self._full[0] and 0 <= col < self._full[1]):
            return None
        value = pyramids.value_at(self._display, row, col)  # (a pyramid's from its file)
        return row, col, value.tolist() if hasattr(value, "tolist") else value

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._level_timer.start()  # once the layout has its final size

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Leave and watched is self.graphics.viewport():
            self.cursor_info.emit("")  # nothing is under the cursor any more
        return super().eventFilter(watched, event)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self._display is None or not self.viewbox.sceneBoundingRect().contains(pos):
            self.cursor_info.emit("")
            return
        point = self.viewbox.mapSceneToView(pos)
        hit = self.value_at(point.x(), point.y())
        if hit is None:
            self.cursor_info.emit("")
            return
        row, col, value = hit
        unit = getattr(self._display, "value_unit", "") or ""
        self.cursor_info.emit(f"x {col}  y {row}   value {value} {unit}".rstrip())
