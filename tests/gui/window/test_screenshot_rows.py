"""``open --screenshot`` waits for the image list's rows: the list is laid out in batches
(:class:`~slicereview.gui.common.image_list_view.ImageListView`) and paints no row while a
layout runs, so a grab taken after a fixed number of events showed an empty list at 100,000
images (issue 31). The fast test takes the same path with 1,000 images laid out 2 rows a
batch (500 batches, as 100,000 rows are 50 of the real 2,000); the slow one runs the real
100,000-image project. Neither depends on how fast the machine is: the grab is checked for
rows, not timed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage

from slicereview.gui.application import save_screenshot
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project
from tests.benchmarks.scale_project import _add_images, _png_files, project, working_copy


def _list_colours(window: MainWindow, png: Path) -> int:
    """Distinct colours in the image list's viewport on the saved screenshot (an empty list
    is one flat colour; rows bring thumbnails, text and the selection)."""
    viewport = window.browser.list.viewport()
    corner = viewport.mapTo(window, QPoint(0, 0))
    shot = QImage(str(png)).convertToFormat(QImage.Format.Format_RGB888)
    crop = shot.copy(corner.x(), corner.y(), viewport.width(), viewport.height())
    bits = np.frombuffer(crop.constBits(), np.uint8).reshape(crop.height(), crop.bytesPerLine())
    pixels = bits[:, :crop.width() * 3].reshape(-1, 3)
    return len(np.unique(pixels, axis=0))


def _screenshot(qtbot, path: Path, png: Path, batch: int | None = None) -> MainWindow:
    window = MainWindow(remember=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    if batch is not None:
        window.browser.list.setBatchSize(batch)
    assert window.open_project(path)
    assert save_screenshot(window, png) == 0
    return window


def test_screenshot_shows_rows_of_a_list_laid_out_in_many_batches(qtbot, tmp_path):
    path = tmp_path / "p.srproj"
    with Project.create(path) as proj:
        _add_images(proj, _png_files(tmp_path, 1000))
    window = _screenshot(qtbot, path, tmp_path / "shot.png", batch=2)
    assert _list_colours(window, tmp_path / "shot.png") > 50  # (the window closed: the file)


@pytest.mark.slow
def test_screenshot_at_100000_images_shows_the_image_list(qtbot, tmp_path):
    path = working_copy(project(100_000), "screenshot")
    try:
        window = _screenshot(qtbot, path, tmp_path / "shot.png")
        assert _list_colours(window, tmp_path / "shot.png") > 50
        window.close()
    finally:
        path.unlink(missing_ok=True)
