"""Small things seen on the way, on real widgets: the Overview tab's per-image table, α never
shown as "-0.00", queue status and decision text never cut, the status bar naming the image
the tab shows, a work package window saying whose package it is (with the reviewer's pins),
and the demo guideline naming the keys the program uses."""

from __future__ import annotations

import dataclasses
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.qa.packages import package, unpack
from slicereview.app.report.owner_report import collect
from slicereview.app.review.queue import QueueRow
from slicereview.demo.annotations import DEMO_GUIDELINE
from slicereview.engines.review.features import ImageFeatures
from slicereview.gui.common.shortcuts import ANNOTATE_ACTIONS, MAIN_ACTIONS
from slicereview.gui.review.queue_panel import ReviewQueuePanel
from slicereview.model import Polygon
from slicereview.store import Project
from tests.app.qa.test_packages import make_project
from tests.app.qa_project import build
from tests.gui.review.review_fixture import build_review_project


def _square(x: float, s: float = 30.0) -> Polygon:
    return Polygon(np.array([[x, 10], [x + s, 10], [x + s, 10 + s], [x, 10 + s]], float))


@pytest.mark.slow  # 9 s at load 8: the Overview computes every measure
def test_overview_lists_every_image_with_both_platform_measures(open_window, qtbot,
                                                                tmp_path: Path) -> None:
    path = build(tmp_path)
    with Project.open(path) as p:
        expected = collect(p)
    w = open_window(path, size=(1400, 900))
    page = w.overview_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    page.sections.setCurrentWidget(page.images)
    table = page.images.table
    headers = [table.horizontalHeaderItem(c).text().replace("\n", " ")
               for c in range(table.columnCount())]
    assert "mean pairwise consensus (Labelbox)" in headers
    assert "mean pairwise mask IoU (Label Studio)" in headers
    assert table.rowCount() == len(expected.per_image) == 16
    first = expected.per_image[0]
    assert table.item(0, 0).text() == first["case"]
    assert table.item(0, 5).text() == f"{first['consensus']:.3f}"
    assert table.item(0, 6).text() == f"{first['mask_iou']:.3f}"
    table.selectRow(3)                          # a row opens its image in the View tab
    assert w.tabs.currentWidget() is w.viewer
    assert w.browser.current_id() == expected.per_image[3]["image_id"]


def _features(alpha: float) -> ImageFeatures:
    base = dict(strict_alpha=alpha, relaxed_alpha=alpha, unsure_share=0.0, unsure_pixels=0,
                area_std=0.0, area_mean=10.0, intra_strict=float("nan"),
                intra_relaxed=float("nan"), n_disagreement=1, n_low=0, n_moderate=0, n_high=0,
                n_boxes=1, wbbox=10.0, box_area=10, image_pixels=100, level="relaxed")
    names = {f.name for f in dataclasses.fields(ImageFeatures)}
    return ImageFeatures(**{k: v for k, v in base.items() if k in names})


def test_queue_alpha_has_no_negative_zero_and_status_is_never_cut(qtbot) -> None:
    panel = ReviewQueuePanel()
    qtbot.addWidget(panel)
    panel.resize(440, 500)                      # the Review tab's default queue width
    panel.show()
    qtbot.waitExposed(panel)
    rows = [QueueRow(k + 1, k + 1, f"C00000{k + 1}", _features(a), 1234.5, status, "why")
            for k, (a, status) in enumerate(((-0.0004, "partly reviewed"),
                                             (-0.2, "not reviewed"), (0.5, "reviewed")))]
    panel.set_rows(rows)
    assert [panel.table.item(r, 2).text() for r in range(3)] == ["0.00", "-0.20", "0.50"]
    fm = panel.table.fontMetrics()
    for r in range(3):
        rect = panel.table.visualItemRect(panel.table.item(r, 6))
        assert rect.width() >= fm.horizontalAdvance(rows[r].status) + 6, rows[r].status
        assert rect.right() <= panel.table.viewport().width()          # in view, not cut


def test_decision_with_its_reason_is_not_cut(open_window, qtbot, tmp_path: Path) -> None:
    path = build_review_project(tmp_path)
    with Project.open(path) as p:
        rev = p.raters.add("rev", "reviewer")
        first = p.annotations.all(status="submitted")[0]
        from slicereview.app.review.decisions import decide

        for a in p.annotations.all(image_id=first.image_id, status="submitted"):
            decide(p, rev, a.id, "reject", ["missed finding", "outline too loose"],
                   "the faint spot at the top left is missing")
    w = open_window(path, (1500, 900))
    w.tabs.setCurrentWidget(w.review_page)
    page = w.review_page
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=30000)
    k = next(i for i, r in enumerate(page.state.rows) if r.image_id == first.image_id)
    page.show_position(k)
    table = page.panel.annotators
    table.selectRow(0)
    item = table.item(0, 2)
    rect = table.visualItemRect(item)
    assert table.fontMetrics().horizontalAdvance(item.text()) + 6 <= rect.width()  # "rejected"
    label = page.panel.decision_label                    # the full decision, word-wrapped
    assert label.text().endswith("rejected — missed finding, outline too loose — “the faint "
                                 "spot at the top left is missing”")
    assert label.wordWrap() and label.isVisible()


def test_status_bar_names_the_image_the_tab_shows(open_window, qtbot, tmp_path: Path) -> None:
    path = build_review_project(tmp_path)
    with Project.open(path) as p:                  # the first image leaves the queue
        first = p.images.all()[0]
        for a in p.annotations.all(image_id=first.id):
            p.annotations.set_status(a.id, "in_progress")
    w = open_window(path, (1500, 900))
    assert w.image_label.text().startswith(first.case_id)             # View tab
    w.tabs.setCurrentWidget(w.review_page)
    page = w.review_page
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=30000)
    shown = page.state.rows[page.state.position].case_id
    assert shown != first.case_id and w.image_label.text().startswith(shown)
    page.next_image()
    assert w.image_label.text().startswith(page.state.rows[page.state.position].case_id)
    w.tabs.setCurrentWidget(w.viewer)
    assert w.image_label.text().startswith(first.case_id)


def test_package_window_says_whose_it_is_and_shows_the_pins(open_window, qtbot,
                                                            tmp_path: Path) -> None:
    path = make_project(tmp_path / "src")
    with Project.open(path) as p:
        name = p.name
        out = package(p, "ann", tmp_path / "ann.zip", batch="b1")
    with zipfile.ZipFile(out) as zf:
        assert "project.srproj" in zf.namelist()
    project = unpack(out)
    w = open_window(project)
    assert w.windowTitle() == f"Work package of ann (project {name}) — slicereview"
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    ann = next(r.id for r in w.gateway.annotate.annotators() if r.name == "ann")
    page.select_you(ann)
    page.select_annotator(ann)
    w.browser.select(1)
    qtbot.waitUntil(lambda: page.image_id == 1)
    assert page.returned.isVisibleTo(page)
    assert [page.returned.pins.item(k).text() for k in range(page.returned.pins.count())] == [
        "1. point x 3, y 3: pin"]


@pytest.mark.parametrize("text", [DEMO_GUIDELINE])
def test_demo_guideline_names_the_keys_the_program_uses(text: str) -> None:
    keys = {}
    for rows in [*MAIN_ACTIONS.values(), ANNOTATE_ACTIONS]:
        for name, _menu, shortcut, _tip in rows:
            for one in (shortcut if isinstance(shortcut, list) else [shortcut]):
                if isinstance(one, str) and one:
                    keys[one] = name
    named = re.findall(r"key ([A-Z])\b", text)
    assert named, "the guideline names the certainty key"
    for key in named:
        assert keys.get(key) == "toggle_certainty", f"key {key} is {keys.get(key)}"
