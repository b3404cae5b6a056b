"""The Overview's per-image tables are paged: opening the tab builds one page of rows whatever
the project's size (rows counted, not timed, on two projects), Next and Previous walk the
rest in the report's order, and a row still shows its image in the View tab."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.limits import FILE_STAMP, file_stamp
from slicereview.app.report import images as report_images
from slicereview.gui.overview import paged
from slicereview.model import NewImage, NewSource, Polygon
from slicereview.store import Project

SMALL, LARGE = 30, 90


def _project(folder: Path, n: int) -> Path:
    """``n`` images, each annotated (a square, the second annotator's shifted) by two."""
    folder.mkdir()
    png = folder / "one.png"
    PILImage.fromarray((np.arange(24 * 24).reshape(24, 24) % 251).astype(np.uint8)).save(png)
    stamp = {FILE_STAMP: file_stamp(png)}
    path = folder / "p.srproj"
    rng = np.random.default_rng(n)
    with Project.create(path) as p:
        ids = [group[0] for group in p.images.add_sources([
            NewSource(str(png), f"{k:064x}", "png", png.stat().st_size,
                      (NewImage(24, 24, info=stamp),)) for k in range(n)])]
        raters = [p.raters.add(name) for name in ("a", "b")]
        with p.transaction():
            for image in ids:
                for k, rater in enumerate(raters):
                    x = 4.0 + k * rng.integers(0, 6)
                    square = np.array([[x, 4.0], [x + 10, 4.0], [x + 10, 14.0], [x, 14.0]])
                    ann = p.annotations.for_image(rater, image)
                    p.polygons.replace(ann.id, [Polygon(square)])
                    p.annotations.set_status(ann.id, "submitted")
    return path


def _open(open_window, qtbot, path: Path):
    w = open_window(path, size=(1200, 800))
    page = w.overview_page
    w.tabs.setCurrentWidget(page)            # first show starts the worker
    qtbot.waitUntil(lambda: page.data is not None, timeout=120000)
    return w, page


@pytest.mark.slow  # two reports in a worker, ~15 s
def test_opening_builds_one_page_of_rows(open_window, qtbot, monkeypatch, tmp_path):
    monkeypatch.setattr(paged, "PAGE", 20)
    made = []
    cells = report_images.image_cells
    monkeypatch.setattr("slicereview.gui.overview.images.image_cells",
                        lambda row: made.append(1) or cells(row))
    counts = {}
    for n in (SMALL, LARGE):
        made.clear()
        w, page = _open(open_window, qtbot, _project(tmp_path / f"p{n}", n))
        pages = page.images.image_pages
        assert len(page.data.per_image) == n
        counts[n] = (len(made), pages.built, page.images.table.rowCount())
        # the bar says where we are; Next walks the rest in the report's order
        assert pages.page_label.text() == f"image selections 1–20 of {n}"
        assert pages.next_button.isVisibleTo(pages) and not pages.previous_button.isEnabled()
        seen = []
        while True:
            table = page.images.table
            seen += [table.item(r, 0).text() for r in range(table.rowCount())]
            if not pages.next_button.isEnabled():
                break
            pages.next_button.click()
        assert seen == [r["case"] for r in page.data.per_image]
        assert pages.built == n and pages.page == -(-n // 20) - 1
        pages.previous_button.click()
        assert pages.page == -(-n // 20) - 2 and page.images.table.rowCount() == 20
        # selecting a row of this page shows its image in the View tab
        with qtbot.waitSignal(page.image_requested, timeout=5000) as shown:
            page.images.table.selectRow(3)
        expected = page.data.per_image[pages.page * 20 + 3]["image_id"]
        assert shown.args == [expected]
        page.on_project_changed()           # forgetting the report empties the pages
        assert page.images.table.rowCount() == 0 and not pages.next_button.isVisibleTo(pages)
        w.close()
    # opening built one page of rows at either size (3 × the rows would be 90 at LARGE)
    assert counts[SMALL] == counts[LARGE] == (20, 20, 20)
