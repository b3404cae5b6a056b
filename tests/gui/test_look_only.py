"""Opening a project in the main window and only looking changes no one's work.

Issue: annotation timestamps (``annotations.updated_at``) were seen to change after a project
was merely opened and closed. The rows of every table holding people's work are read with
plain ``sqlite3`` (every column) before and after the real main window opens the project, shows
each tab (View, Annotate, Rate, Review, Overview), selects a few images, switches tabs and
closes; the rows must be identical.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from slicereview.app.images.importing import import_paths
from slicereview.gui.annotate.status import TIME_COMMIT_MS
from slicereview.model import AnnotationStatus, Certainty, Polygon
from slicereview.store import Project

WORK = ("annotations", "polygons", "answers", "grades", "reviews", "sessions")


def _rows(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in WORK}
    finally:
        conn.close()


def _look_around(qtbot, w, skip_ahead) -> None:
    """Every tab, three images in each, a long look at each: every active-time clock is moved
    on past the time at which a page stores what its clock counted (instead of waiting that
    long), and the pages' periodic ticks run."""
    ids = w.browser.image_ids()
    clocks = [w.annotate_page.clock, w.rate_page.compare.clock, w.review_page.clock]
    for index in range(w.tabs.count()):
        w.tabs.setCurrentIndex(index)
        w.activateWindow()
        for image_id in ids[:3]:
            w.browser.select(image_id)
            qtbot.waitUntil(lambda i=image_id: w.browser.current_id() == i)
            w.annotate_page.clock.touch()  # someone moved the mouse: the clock would run
            for clock in clocks:
                skip_ahead(clock, TIME_COMMIT_MS + 1000)
            w.annotate_page.tick()
            w.review_page._tick()
            qtbot.wait(20)  # (events of the selection)
        w.tabs.setCurrentIndex(0)
    w.close()


def _hand_made(tmp_path: Path) -> Path:
    from skimage import io

    files = []
    for k in range(3):
        f = tmp_path / f"im{k}.png"
        io.imsave(f, (np.random.default_rng(k).random((96, 128)) * 4000).astype(np.uint16),
                  check_contrast=False)
        files.append(f)
    path = tmp_path / "look.srproj"
    with Project.create(path) as project:
        import_paths(project, files)
        alice = project.raters.add("alice")
        for image in project.images.all():
            ann = project.annotations.for_image(alice, image.id).id
            project.polygons.add(ann, Polygon(np.array([[5.0, 5.0], [40.0, 5.0], [40.0, 30.0]]),
                                             Certainty.CERTAIN))
            project.annotations.add_active_time(ann, 1234)
            project.annotations.set_status(ann, AnnotationStatus.SUBMITTED)
    return path


def test_looking_at_a_hand_made_project_changes_no_work(qtbot, open_window, tmp_path: Path,
                                                        skip_ahead):
    path = _hand_made(tmp_path)
    before = _rows(path)
    assert len(before["annotations"]) == 3
    w = open_window(path)
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.annotation is not None)  # alice's, shown
    assert w.annotate_page.own  # her own submitted work, editable: the clock may run
    _look_around(qtbot, w, skip_ahead)
    assert _rows(path) == before


def test_looking_at_the_demo_changes_no_work(qtbot, open_window, demo_project: Path,
                                            skip_ahead):
    before = _rows(demo_project)
    assert before["annotations"] and before["answers"] and before["reviews"]
    w = open_window(demo_project)
    _look_around(qtbot, w, skip_ahead)
    assert _rows(demo_project) == before
