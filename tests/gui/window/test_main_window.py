"""The main window and viewer, driven with qtbot on real images in a real project file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from PySide6.QtCore import QPoint, QPointF, Qt

from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging.importer import parse_slices
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    """A project with a 16-bit PNG, an MR DICOM with a window, and a NIfTI volume (5 slices)."""
    from skimage import io

    images = tmp_path / "images"
    images.mkdir()
    ramp = (np.arange(64 * 80, dtype=np.uint16).reshape(64, 80) * 10)
    io.imsave(images / "ramp16.png", ramp, check_contrast=False)
    mr = pydicom.dcmread(get_testdata_file("MR_small.dcm"))  # window 600/1600 in its header
    mr.save_as(images / "mr.dcm")
    import nibabel.testing

    anatomical = Path(nibabel.testing.data_path) / "anatomical.nii"
    (images / "anatomical.nii").write_bytes(anatomical.read_bytes())
    path = tmp_path / "study.srproj"
    with Project.create(path) as project:
        import_paths(project, [images / "ramp16.png", images / "mr.dcm"])
        report = import_paths(project, [images / "anatomical.nii"],
                              slices=parse_slices("range:10:15"))
        assert report.added_images == 5
    return path


@pytest.fixture
def window(open_window, project_file: Path) -> MainWindow:
    return open_window(project_file, (1200, 800))


def _view_center(w: MainWindow) -> QPoint:
    view = w.viewer.graphics
    return view.viewport().rect().center()


def test_opens_project_lists_images_and_shows_first(window: MainWindow, qtbot) -> None:
    assert window.stack.currentWidget() is window.tabs
    assert len(window.browser.image_ids()) == 7
    assert window.viewer.display is not None
    assert window.viewer.display.data.shape == (64, 80)
    assert "C000001" in window.image_label.text()
    assert window.windowTitle().startswith("study")


def test_opening_another_project_shows_its_first_image(window: MainWindow,
                                                        tmp_path: Path) -> None:
    """File ▸ Open over an open project (seen under Xvfb: the viewer stayed empty and the status
    bar kept the old image's description): the new project's first image is shown."""
    from skimage import io

    other = tmp_path / "other"
    other.mkdir()
    io.imsave(other / "disc.png", (np.hypot(*np.mgrid[-40:40, -50:50]) < 30).astype(np.uint8)
              * 200, check_contrast=False)
    path = other / "other.srproj"
    with Project.create(path, name="other") as project:
        import_paths(project, [other / "disc.png"])
    window.browser.select(window.browser.image_ids()[1])  # not the first image of the old one
    assert window.open_project(path)
    assert window.windowTitle().startswith("other")
    assert window.browser.image_ids() == [window.gateway.images()[0].id]
    assert window.viewer.display is not None and window.viewer.display.data.shape == (80, 100)
    assert "PNG 100×80" in window.image_label.text()


def test_right_drag_changes_window_and_levels(window: MainWindow, qtbot) -> None:
    before = window.viewer.current_window
    levels_before = window.viewer.image_item.getLevels()
    vp = window.viewer.graphics.viewport()
    start = _view_center(window)
    qtbot.mousePress(vp, Qt.MouseButton.RightButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(vp, start + QPoint(step * 20, step * 10))
    qtbot.mouseRelease(vp, Qt.MouseButton.RightButton, pos=start + QPoint(100, 50))
    after = window.viewer.current_window
    assert after.width > before.width  # dragged right: wider window
    assert after.center > before.center  # dragged down: higher centre
    levels_after = window.viewer.image_item.getLevels()
    assert not np.allclose(levels_before, levels_after)
    lo, hi = after.levels()
    assert np.allclose(levels_after, (lo, hi))
    # the histogram control shows the same window
    assert np.allclose(window.viewer.histogram.item.getLevels(), (lo, hi))


def test_histogram_levels_drive_the_window(window: MainWindow) -> None:
    window.viewer.histogram.item.setLevels(100.0, 300.0)
    assert window.viewer.current_window.center == pytest.approx(200.0)
    assert window.viewer.current_window.width == pytest.approx(200.0)


def test_wheel_zooms_and_fit_restores(window: MainWindow, qtbot) -> None:
    vb = window.viewer.viewbox
    fitted = vb.viewRect()
    window.viewer.zoom(0.5)
    zoomed = vb.viewRect()
    assert zoomed.width() < fitted.width() * 0.6
    qtbot.keyClick(window, Qt.Key.Key_F)
    refit = vb.viewRect()
    assert refit.width() == pytest.approx(fitted.width(), rel=0.05)


def test_switching_images_and_presets(window: MainWindow, qtbot) -> None:
    ids = window.browser.image_ids()
    window.browser.select(ids[1])  # the MR: its file window is the first preset
    display = window.viewer.display
    assert display.presets, "MR_small.dcm has a window in its header"
    p = display.presets[0]
    assert window.viewer.current_window.center == pytest.approx(p.center)
    assert window.viewer.current_window.width == pytest.approx(p.width)
    assert window.viewer.preset_box.count() == len(display.presets) + 1
    window.viewer.preset_box.setCurrentIndex(window.viewer.preset_box.count() - 1)
    window.viewer.preset_box.activated.emit(window.viewer.preset_box.count() - 1)
    auto = display.auto_window()
    assert window.viewer.current_window.center == pytest.approx(auto.center)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert window.browser.current_id() == ids[2]


def test_slice_scrolling_through_a_volume(window: MainWindow, qtbot) -> None:
    ids = window.browser.image_ids()
    window.browser.select(ids[2])
    assert window.viewer.slice_slider.isVisible()
    assert window.viewer.slice_slider.maximum() == 4
    window.viewer.step_slice(+1)
    assert window.browser.current_id() == ids[3]
    assert "Slice 2/5" in window.viewer.slice_label.text()


def test_invert_and_pixel_readout(window: MainWindow, qtbot) -> None:
    assert not window.viewer.inverted
    qtbot.keyClick(window, Qt.Key.Key_I)
    assert window.viewer.inverted
    row, col, value = window.viewer.value_at(3.5, 2.5)
    assert (row, col) == (2, 3)
    assert value == (2 * 80 + 3) * 10
    messages = []
    window.viewer.cursor_info.connect(messages.append)
    scene_pos = window.viewer.viewbox.mapViewToScene(QPointF(3.5, 2.5))
    window.viewer._on_mouse_moved(scene_pos)
    assert messages and "value 1630" in messages[-1]


def test_filter_hides_images(window: MainWindow, qtbot) -> None:
    qtbot.keyClicks(window.browser.filter_edit, "mr.dcm")
    assert len(window.browser.image_ids()) == 1
    window.browser.filter_edit.clear()
    window.browser.format_box.setCurrentText("nifti")
    assert len(window.browser.image_ids()) == 5


def test_screenshot_is_not_blank(window: MainWindow, tmp_path: Path) -> None:
    from skimage import io

    window.browser.wait_for_thumbnails()
    pixmap = window.grab()
    out = tmp_path / "shot.png"
    assert pixmap.save(str(out))
    shot = io.imread(out)
    assert shot.shape[0] > 500 and shot[..., :3].std() > 10


def test_unreadable_image_is_reported_not_fatal(window: MainWindow, project_file: Path) -> None:
    (project_file.parent / "images" / "ramp16.png").write_bytes(b"not a png any more")
    window.gateway.cache.clear()
    ids = window.browser.image_ids()
    window.browser.select(ids[1])
    window.browser.select(ids[0])
    assert "cannot show this image" in window.image_label.text()


def test_close_and_start_page(window: MainWindow, qtbot) -> None:
    window.gateway.close()
    assert window.stack.currentWidget() is window.start_page
    assert window.start_page.recent.count() >= 1
    assert not window.actions_["import_files"].isEnabled()


def test_image_list_hidden_while_rating(window: MainWindow) -> None:
    rate = next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == "Rate")
    window.tabs.setCurrentIndex(rate)
    assert not window.browser_dock.isVisible()  # file names would bias the rater
    window.tabs.setCurrentIndex(0)
    assert window.browser_dock.isVisible()


def test_pages_are_built_on_first_need_and_start_on_the_open_project(
        window: MainWindow, qtbot) -> None:
    """Start-up builds no job page; the first visit builds it on the open project."""
    pages = window.pages
    tabs = (pages.annotate_tab, pages.rate_tab, pages.review_tab, pages.overview_tab)
    assert not any(tab.built for tab in tabs)
    window.browser.select(window.browser.image_ids()[1])  # the MR image, before Annotate exists
    annotate = next(i for i in range(window.tabs.count())
                    if window.tabs.tabText(i) == "Annotate")
    window.tabs.setCurrentIndex(annotate)
    assert window.pages.annotate_tab.built
    page = window.annotate_page
    assert window.tabs.currentWidget() is page
    qtbot.waitUntil(lambda: page.view.display is not None)
    assert page.view.display.data.shape == window.viewer.display.data.shape  # the MR image
    window.tabs.setCurrentWidget(window.review_page)  # a page itself selects its tab
    assert window.tabs.currentWidget() is window.review_page
    assert window.tabs.indexOf(window.review_page) == window.tabs.currentIndex()
    assert not window.browser_dock.isVisible()  # the Review tab hides the image list
    assert not window.pages.rate_tab.built and not window.pages.overview_tab.built


def test_the_first_image_thumbnail_comes_from_the_viewer_pixels(
        open_window, tmp_path: Path, monkeypatch) -> None:
    """A project of one image starts no decoding child: the thumbnail of the image on show
    is made from the pixels the viewer decoded."""
    from skimage import io

    from slicereview.engines.imaging import isolated

    png = tmp_path / "one.png"
    io.imsave(png, (np.arange(90 * 120).reshape(90, 120) % 251).astype(np.uint8),
              check_contrast=False)
    path = tmp_path / "one.srproj"
    with Project.create(path) as project:
        import_paths(project, [png])

    def no_child(*_args, **_kwargs):
        raise AssertionError("the decoding child was asked for a thumbnail")

    monkeypatch.setattr(isolated, "thumbnail", no_child)
    monkeypatch.setattr(isolated, "prestart", no_child)
    w = open_window(path, (900, 600))
    assert w.browser.wait_for_thumbnails(10000)
    [image_id] = w.browser.image_ids()
    assert w.browser.failures() == {}
    assert image_id in w.browser.thumbnail_ids()


@pytest.mark.slow  # 7 s at load 8: `open --screenshot` in a child process, then a window
def test_a_screenshot_leaves_the_user_settings_alone(project_file: Path, tmp_path: Path,
                                                      monkeypatch, qtbot) -> None:
    """``open --screenshot`` (a rendering for documents and CI) neither adds a recent project
    nor stores its window size as the user's layout; an interactive window does both."""
    import os
    import subprocess
    import sys

    from slicereview.gui.common import settings as user_settings

    monkeypatch.setenv("SLICEREVIEW_CONFIG_DIR", str(tmp_path / "config"))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    shot = tmp_path / "shot.png"
    subprocess.run([sys.executable, "-m", "slicereview", "open", str(project_file),
                    "--screenshot", str(shot), "--size", "640x480"], env=env, check=True,
                   capture_output=True, timeout=120)
    assert shot.is_file()
    assert user_settings.recent_projects() == []
    assert user_settings.settings().value("main_window/geometry") is None
    w = MainWindow()
    qtbot.addWidget(w)
    assert w.open_project(project_file)
    assert user_settings.recent_projects() == [project_file.absolute()]
