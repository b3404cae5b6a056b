"""The Overview tab: the report computed in a worker, tables with the report's values, a matrix
cell listing where a pair disagrees, the View tab showing a chosen image, the HTML file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog

from slicereview.app.report.owner_report import _fmt, collect, render, render_steps
from slicereview.app.report.pairs import pair_disagreements
from slicereview.store import Project
from tests.app.qa_project import build


@pytest.fixture(scope="module")
def qa_path(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("qa-gui"))


def _cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() if table.item(r, c) else ""
             for c in range(table.columnCount())] for r in range(table.rowCount())]


@pytest.mark.slow  # 7 s
def test_overview_tab_shows_the_report(open_window, qtbot, qa_path: Path, tmp_path: Path,
                                       monkeypatch, screenshots) -> None:
    with Project.open(qa_path) as p:
        expected = collect(p)
        names = {r.id: r.name for r in p.raters.all()}
    w = open_window(qa_path, size=(1400, 900))
    page = w.overview_page
    with qtbot.waitSignal(page.progress.valueChanged, timeout=30000, raising=False):
        w.tabs.setCurrentWidget(page)            # first show starts the worker
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    assert not page.progress.isVisible() and page.save_button.isEnabled()

    acceptance = _cells(page.acceptance)
    assert [row[:2] for row in acceptance] == [[r.phase, r.group] for r in expected.acceptance]
    assert [row[9] for row in acceptance] == [_fmt(100 * r.ratio, 0)
                                              for r in expected.acceptance]
    assert [row[6] for row in acceptance] == [_fmt(r.test.p) for r in expected.acceptance]
    quality = {row[0]: row for row in _cells(page.quality)}
    for q in expected.quality:
        assert quality[q["rater"]][3] == _fmt(q["dice"])
        assert quality[q["rater"]][8] == _fmt(q["loo"])
    onboarding = _cells(page.onboarding)
    assert len(onboarding) == 5 and any("kept to compare the groups" in r[8] for r in onboarding)
    assert page.phase_box.count() == len(expected.evaluations)
    assert page.questions.table.rowCount() == 1
    from slicereview.app.report.formatting import tool_cells

    assert _cells(page.tools) == [tool_cells(r) for r in expected.tools] and expected.tools

    # the matrix: a cell holds the pair's mean strict α; clicking lists their images
    ids = page.matrix_ids
    a, b = ids.index(min(ids)), ids.index(max(ids))
    key = (min(ids), max(ids))
    assert page.matrix.item(a, b).text().startswith(_fmt(expected.agreement.pairwise[key]))
    assert page.matrix.item(a, a).text() == ""
    rect = page.matrix.visualItemRect(page.matrix.item(a, b))
    with qtbot.waitSignal(page.matrix.cellClicked, timeout=5000):
        from PySide6.QtCore import Qt
        qtbot.mouseClick(page.matrix.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    worker = page.agreement.worker
    assert worker is not None
    qtbot.waitUntil(lambda: page.pair_list.count() > 0, timeout=30000)
    with Project.open(qa_path) as p:
        rows = pair_disagreements(p, *key)
    assert page.pair_list.count() == len(rows) == expected.agreement.pair_images[key]
    assert page.pair_list.item(0).text().startswith(rows[0].case_id)
    assert names[key[0]] in page.pair_label.text()
    page.pair_list.setCurrentRow(0)                       # → the View tab shows it
    assert w.tabs.currentWidget() is w.viewer
    assert w._current_image.id == rows[0].image_id

    # Save HTML report…: the same file as the CLI
    out = tmp_path / "overview.html"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "HTML (*.html)"))
    w.tabs.setCurrentWidget(page)
    page.on_save_html()
    qtbot.waitUntil(lambda: page._html_worker is None and out.exists(), timeout=60000)
    html = out.read_text(encoding="utf-8")
    assert html == render(page.data)
    assert html.count("data:image/png;base64,") >= 4 and "Welch" in html
    if os.environ.get("SLICEREVIEW_TEST_SHOTS"):  # screenshots of every section, when asked
        for k in range(page.sections.count()):
            page.sections.setCurrentIndex(k)
            qtbot.wait(100)
            w.grab().save(str(screenshots / f"overview_{k}.png"))


@pytest.mark.slow  # 9 s at load 8: a process worker started twice
def test_cancel_stops_the_worker(open_window, qtbot, qa_path: Path) -> None:
    w = open_window(qa_path)
    page = w.overview_page
    assert page.compute() is not None
    assert page.cancel_button.isVisibleTo(page) and not page.compute_button.isEnabled()
    page.cancel_button.click()      # the flag is set before the first image: it must stop
    qtbot.waitUntil(lambda: page._worker is None, timeout=30000)
    assert page.data is None and "Cancelled" in page.status.text()
    assert page.acceptance.rowCount() == 0 and page.compute_button.isEnabled()
    assert not page.save_button.isEnabled()
    page.compute()                  # and it starts again
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    assert page.acceptance.rowCount() == 5


@pytest.mark.slow  # seconds of matplotlib, twice
def test_html_report_shows_progress_and_cancels(open_window, qtbot, qa_path: Path,
                                                tmp_path: Path, monkeypatch) -> None:
    """Writing the HTML report (seconds of matplotlib) shows the progress bar, one step per plot
    section, and Cancel; a cancelled run writes no file, half or whole."""
    w = open_window(qa_path)
    page = w.overview_page
    page.compute()
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    out = tmp_path / "cancelled.html"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "HTML (*.html)"))
    seen: list[tuple[int, int]] = []
    worker = page.on_save_html()
    assert worker is not None
    worker.progress.connect(lambda done, total, _what: seen.append((done, total)))
    assert page.progress.isVisibleTo(page) and page.cancel_button.isVisibleTo(page)
    assert not page.save_button.isEnabled() and not page.compute_button.isEnabled()
    page.cancel_button.click()
    qtbot.waitUntil(lambda: page._html_worker is None, timeout=30000)
    assert "Cancelled" in page.status.text() and not page.progress.isVisibleTo(page)
    assert not out.exists() and not list(tmp_path.glob("*.part"))
    assert page.save_button.isEnabled()

    out = tmp_path / "whole.html"           # and a run to the end counts every step
    seen.clear()
    worker = page.on_save_html()
    worker.progress.connect(lambda done, total, _what: seen.append((done, total)))
    qtbot.waitUntil(lambda: page._html_worker is None, timeout=60000)
    total = render_steps(page.data)
    assert seen[-1] == (total, total) and len(seen) >= total // 2
    assert out.read_text(encoding="utf-8") == render(page.data)
    assert "Wrote" in page.status.text()


@pytest.mark.slow  # 8 s at load 8
def test_overview_shows_staple_and_intra_rater(open_window, qtbot, tmp_path: Path,
                                               screenshots) -> None:
    from tests.app.repeat_project import build as build_repeats

    path = build_repeats(tmp_path)
    w = open_window(path, size=(1400, 900))
    page = w.overview_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    header = [page.quality.horizontalHeaderItem(c).text().replace("\n", " ")
              for c in range(page.quality.columnCount())]
    quality = {row[0]: row for row in _cells(page.quality)}
    sens = header.index("STAPLE sens. (relaxed)")
    spec = header.index("STAPLE spec. (relaxed)")
    assert quality["c"][sens] == "0.000" and quality["a"][sens] == "1.000"
    assert quality["c"][spec] == "1.000" and quality["c"][sens + 2] == "2"
    page.sections.setCurrentIndex(3)                      # "α histograms"
    assert page.sections.tabText(3) == "α histograms"
    for level, plot in page.intra_hist.items():
        assert plot.isVisible()
        curves = plot.getPlotItem().listDataItems()
        counts = {c.name(): int(np.sum(c.getData()[1])) for c in curves}
        assert counts["image level (n = 2)"] == 2, level      # a's pair and b's pair
    assert "2 repeat pairs" in page.intra_label.text()
    if os.environ.get("SLICEREVIEW_TEST_SHOTS"):  # screenshots of every section, when asked
        for k in (1, 3):
            page.sections.setCurrentIndex(k)
            qtbot.wait(100)
            w.grab().save(str(screenshots / f"overview_repeats_{k}.png"))
        page.sections.currentWidget().verticalScrollBar().setValue(10**6)
        qtbot.wait(100)
        w.grab().save(str(screenshots / "overview_repeats_intra.png"))
