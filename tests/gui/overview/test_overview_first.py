"""The Overview's first table comes before the report (issue 31: the Overview took about 12 s to
show anything at load 7). The acceptance table and the low-agreement counts are read by a thread
worker in milliseconds while the process worker computes the rest; the table then holds the
same rows as the report. Checked by order (the rows arrive while the report is still being
computed), not by a clock: the time is in docs/performance.md."""

from __future__ import annotations

from pathlib import Path

from slicereview.app.report.owner_report import collect
from slicereview.gui.overview import tables
from slicereview.store import Project
from tests.app.qa_project import build


def _cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() if table.item(r, c) else ""
             for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_the_acceptance_table_shows_before_the_report(open_window, qtbot,
                                                      tmp_path: Path) -> None:
    path = build(tmp_path)
    with Project.open(path) as p:
        expected = collect(p)
    w = open_window(path, size=(1400, 900))
    page = w.overview_page
    early: list[bool] = []
    page.acceptance.model().rowsInserted.connect(
        lambda *_: early.append(page.data is None and page._worker is not None))
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.acceptance.rowCount() > 0, timeout=60000)
    assert early and early[0]  # filled while the report was still being computed
    first = _cells(page.acceptance)
    assert page.flags.text() == tables.flags_text(expected.flags)
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    assert _cells(page.acceptance) == first  # the report's own rows are the same
