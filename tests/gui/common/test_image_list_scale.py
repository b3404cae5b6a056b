"""The image list reads what is on screen, not the project: opening a project of 3,000 images
does the same work per image as one of 150 (calls counted, not timed), and scrolling reads and
asks thumbnails for the rows that come into sight."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PySide6.QtCore import Qt

from slicereview.app.images.limits import FILE_STAMP, file_stamp
from slicereview.gui.common import image_rows
from slicereview.model import NewImage, NewSource
from slicereview.store import Project
from slicereview.store import images as store_images


def _project(folder: Path, n: int) -> Path:
    """``n`` images of one real PNG (each its own source) and one source whose file is gone."""
    folder.mkdir()
    png = folder / "one.png"
    PILImage.fromarray((np.arange(32 * 32).reshape(32, 32) % 251).astype(np.uint8)).save(png)
    stamp = {FILE_STAMP: file_stamp(png)}  # the file is the one imported (not hashed again)
    files = [NewSource(str(png), f"{k:064x}", "png", png.stat().st_size,
                       (NewImage(32, 32, info=stamp),)) for k in range(n)]
    files.append(NewSource(str(folder / "gone.png"), "f" * 64, "png", 10, (NewImage(8, 8),)))
    path = folder / "p.srproj"
    with Project.create(path) as p:
        p.images.add_sources(files)
    return path


def _open_and_count(open_window, qtbot, monkeypatch, path: Path) -> dict[str, int]:
    built, sources = [], []
    make, source = store_images._image, store_images.Source
    monkeypatch.setattr(store_images, "_image", lambda row: built.append(1) or make(row))
    monkeypatch.setattr(store_images, "Source", lambda *a: sources.append(1) or source(*a))
    w = open_window(path, (1000, 700))
    qtbot.waitUntil(lambda: "1 image file(s) not found" in w.statusBar().currentMessage(),
                    timeout=20000)
    assert w.browser.wait_for_thumbnails(60000)
    qtbot.wait(50)
    counts = {"images built": len(built), "sources built": len(sources),
              "rows read": w.browser.model.rows_read,
              "thumbnails": w.browser.thumbnails_requested}
    w.close()
    return counts


def test_opening_reads_the_screen_not_the_project(open_window, qtbot, monkeypatch, tmp_path):
    small = _open_and_count(open_window, qtbot, monkeypatch, _project(tmp_path / "s", 150))
    large = _open_and_count(open_window, qtbot, monkeypatch, _project(tmp_path / "l", 3000))
    # What is read at open: the first page (the rows in sight) and the page of the last row
    # (Qt asks for it), whatever the project's size; the same thumbnails.
    # Nor every source (where each image is read from is asked per image shown: reading every
    # source took 3 s of a 100,000-image project's open).
    for counts in (small, large):
        assert counts["rows read"] <= 2 * image_rows.PAGE
        assert counts["images built"] <= counts["rows read"] + 2
        assert counts["sources built"] <= counts["rows read"]
    assert large["thumbnails"] == small["thumbnails"] and 0 < small["thumbnails"] <= 20


@pytest.mark.parametrize("n", [3000])
def test_scrolling_reads_the_rows_in_sight(open_window, qtbot, tmp_path, n):
    w = open_window(_project(tmp_path / "p", n), (1000, 700))
    browser = w.browser
    assert browser.wait_for_thumbnails(60000)
    assert browser.failures() == {} and browser.thumbnail_ids()
    first = browser.thumbnails_requested
    end = browser.model.index(browser.model.rowCount() - 1)
    qtbot.waitUntil(lambda: browser.list.visualRect(end).isValid(), timeout=10000)  # laid out
    browser.list.scrollToBottom()
    qtbot.waitUntil(lambda: browser.model.rows_read > image_rows.PAGE, timeout=5000)
    last = browser.image_ids()[-2]  # the last image with a file
    qtbot.waitUntil(lambda: last in browser.thumbnail_ids(), timeout=60000)
    # The first page, the last two, and at most one passed while scrolling: not 30 pages.
    assert browser.model.rows_read <= 4 * image_rows.PAGE
    assert browser.thumbnails_requested <= 3 * first + 10
    # Filters narrow the index; stepping and selecting work on what is shown.
    browser.filter_edit.setText("gone")
    assert browser.image_ids() == [w.gateway.image_ids()[-1]]
    assert "(missing file)" in browser.row_text(browser.image_ids()[0])
    browser.filter_edit.clear()
    assert len(browser.image_ids()) == n + 1
    browser.select(browser.image_ids()[10])
    browser.step(+1)
    assert browser.current_id() == browser.image_ids()[11]


def test_end_shows_the_last_row_before_the_layout_reached_it(open_window, qtbot, tmp_path):
    # Under Xvfb, End in a 100,000-image list made the last image the current one but showed
    # rows 1,989-2,000: Qt had laid out one batch of rows, and the jump landed at its end.
    w = open_window(_project(tmp_path / "p", 3 * image_rows.PAGE * 20), (1000, 700))
    view = w.browser.list
    last = w.browser.model.index(w.browser.model.rowCount() - 1)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.currentIndex() == last and not view.laid_out(last)  # (the case in question)
    qtbot.waitUntil(lambda: view.laid_out(last), timeout=20000)
    qtbot.waitUntil(lambda: view.viewport().rect().contains(view.visualRect(last)),
                    timeout=5000)
    # A row chosen while the layout runs is not pulled back to the earlier jump.
    view.setCurrentIndex(w.browser.model.index(3))
    qtbot.wait(100)
    assert view.viewport().rect().intersects(view.visualRect(w.browser.model.index(3)))


def test_thumbnails_and_statuses_do_not_lay_the_list_out_again(open_window, qtbot, monkeypatch,
                                                               tmp_path):
    # Qt's list view lays out every row again on a model reset or a row's dataChanged: at
    # 20,000 rows 1-1.5 s with the list blank, once per thumbnail that arrived and once per
    # status change. Counted here: none after the list was first laid out.
    from slicereview.gui.common.image_list_view import ImageListView

    layouts = []
    lay_out = ImageListView.doItemsLayout
    monkeypatch.setattr(ImageListView, "doItemsLayout",
                        lambda self: layouts.append(1) or lay_out(self))
    w = open_window(_project(tmp_path / "p", 3000), (1000, 700))
    browser, view = w.browser, w.browser.list
    end = browser.model.index(browser.model.rowCount() - 1)
    qtbot.waitUntil(lambda: view.laid_out(end), timeout=20000)
    qtbot.wait(100)
    before, resets = len(layouts), []
    browser.model.modelReset.connect(lambda: resets.append(1))
    assert browser.wait_for_thumbnails(60000) and browser.thumbnail_ids()
    browser.set_statuses({i: "submitted" for i in browser.image_ids()[:5]})
    browser.set_statuses({i: "in progress" for i in browser.image_ids()[:5]})
    qtbot.wait(100)
    assert len(layouts) == before and resets == []
    assert "in progress" in browser.row_text(browser.image_ids()[0])
