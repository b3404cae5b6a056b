"""The histogram beside the image shows its grey-scale bar whole.

Under Xvfb the bar and its handles were cut off on the right: the widget had a fixed minimum
width of 110 px while the histogram needed about 138 px once the axis showed a 16-bit
mammogram's "50000"."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from slicereview.gui.window.main_window import MainWindow
from tests.gui.common.test_viewer_window_level import _select, project_file, window  # noqa: F401


def _cut(widget) -> float:
    """How many pixels of the grey-scale bar lie beyond the widget's right edge."""
    gradient = widget.item.gradient
    return gradient.mapRectToScene(gradient.boundingRect()).right() - widget.width()


def test_the_grey_scale_bar_is_not_cut(window: MainWindow, qtbot) -> None:  # noqa: F811
    _select(window, "dicom", 0)  # the mammogram: 16-bit, labels up to 5 digits
    histogram = window.viewer.histogram
    for _ in range(10):
        QApplication.processEvents()
        qtbot.wait(20)
    assert histogram.item.axis.width() > 45  # the wide labels are there
    qtbot.waitUntil(lambda: _cut(histogram) <= 0, timeout=3000)
