"""A ranking of many images is shown a page at a time: one page's tiles, image reads and
thumbnails, whatever the session's size (counted, not timed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.app.images.limits import FILE_STAMP, file_stamp
from slicereview.app.rating.sessions import create_session
from slicereview.demo.raters import SimulatedRater, run_sort
from slicereview.gui.rate import ranking_grid
from slicereview.model import NewImage, NewSource
from slicereview.store import Project

N = 450


def _finished_sort(folder: Path) -> tuple[Path, int]:
    png = folder / "one.png"
    PILImage.fromarray((np.arange(24 * 24).reshape(24, 24) % 251).astype(np.uint8)).save(png)
    stamp = {FILE_STAMP: file_stamp(png)}
    path = folder / "p.srproj"
    with Project.create(path) as p:
        ids = [group[0] for group in p.images.add_sources([
            NewSource(str(png), f"{k:064x}", "png", png.stat().st_size,
                      (NewImage(24, 24, info=stamp),)) for k in range(N)])]
        sid = create_session(p, "sort", p.raters.add("r"), p.image_sets.create("all", ids),
                             "big sort", seed=1)
        truth = {i: float(k) for k, i in enumerate(ids)}
        run = run_sort(ids, SimulatedRater(truth, noise=0.0, same_within=0.0, seed=1))
        p.ratings.record_answers(sid, [(a, b, c, 500) for (a, b), c in run.answers.items()])
        p.ratings.set_session_finished(sid)
    return path, sid


def test_the_ranking_grid_pages(open_window, qtbot, tmp_path):
    path, sid = _finished_sort(tmp_path)
    w = open_window(path)
    grid = w.rate_page.grid
    reads = []
    image = w.gateway.image
    w.gateway.image = lambda i: reads.append(i) or image(i)  # type: ignore[method-assign]
    grid.show_session(sid)
    size = ranking_grid.PAGE
    order = [row.image_id for row in w.gateway.rating.run(sid).rows()]
    shown = []
    for page, count in enumerate([size, size, N - 2 * size]):
        assert grid.page == page and grid.grid.count() == count
        assert grid.page_label.text() == f"images {page * size + 1}–{page * size + count} of {N}"
        assert grid.previous_button.isEnabled() == (page > 0)
        shown += [grid.grid.item(i).data(ranking_grid.ID_ROLE) for i in range(count)]
        grid.wait_for_thumbnails()
        if page < 2:
            assert grid.next_button.isEnabled()
            grid.next_button.click()
    assert not grid.next_button.isEnabled() and shown == order
    assert len(reads) == N  # each tile's image read once, when its page was shown
    assert grid.grid.item(0).text().startswith(f"#{2 * size + 1} ")
    grid.previous_button.click()
    assert grid.page == 1 and grid.grid.count() == size
