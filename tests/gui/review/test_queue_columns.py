"""The review queue's columns are never cut and the table never scrolls sideways: the status,
rank, α and score columns keep their contents' width, the case column gives way and elides
(docs/review.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from slicereview.gui.review.queue_panel import CASE_MIN_WIDTH
from tests.gui.review.review_fixture import build_review_project


def test_status_is_whole_and_the_case_gives_way(open_window, qtbot, tmp_path: Path) -> None:
    w = open_window(build_review_project(tmp_path), size=(1300, 850))
    w.tabs.setCurrentWidget(w.review_page)
    page = w.review_page
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=20000)
    panel = page.queue_panel
    long_id = "patient-0001-left-craniocaudal-screening-2019-visit-3"
    rows = [dataclasses.replace(r, case_id=long_id if k == 0 else r.case_id,
                                status="partly reviewed" if k == 1 else r.status)
            for k, r in enumerate(panel.rows)]
    panel.set_rows(rows)
    splitter = panel.parentWidget()
    splitter.setSizes([1, 2000, 1])            # the queue as narrow as it may get
    qtbot.wait(50)
    table = panel.table
    widths = [table.columnWidth(c) for c in range(table.columnCount())]
    assert sum(widths) <= table.viewport().width() + 1, widths   # nothing scrolled off
    assert not table.horizontalScrollBar().isVisible()
    metrics = table.fontMetrics()
    status_needed = metrics.horizontalAdvance("partly reviewed")
    assert widths[6] >= status_needed, (widths, status_needed)     # "partly reviewe…" no more
    assert widths[5] >= metrics.horizontalAdvance(table.item(0, 5).text())
    case_needed = metrics.horizontalAdvance(long_id)
    assert CASE_MIN_WIDTH - 2 <= widths[1] < case_needed           # the case id is elided
    assert table.item(0, 1).toolTip().startswith(long_id)          # and whole in the tooltip
