"""Bradley–Terry in the Rate tab, on the real widgets: an exhaustive session's ranking grid shows
the BT score ± SE beside wins − losses (and names the method), and the pooled ranking of chosen
sessions of one image set is computed, shown and exported."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from slicereview.app.rating.pooled import POOLED_COLUMNS, pooled_ranking
from slicereview.demo.ratings import add_demo_ratings
from slicereview.store import Project
from tests.gui.rate.test_rate import (
    _answer_all,
    _new_session,
    _press,
    _truth,
    _window,
    make_rate_project,
)

N = 6


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_rate_project(tmp_path)


def test_exhaustive_grid_shows_bt_score_and_se_beside_wins_minus_losses(qtbot, project_file):
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "exhaustive")
    _press(qtbot, page, Qt.Key.Key_Space)  # one "same": half a win each way
    _answer_all(qtbot, page)
    assert page.stack.currentWidget() is page.grid
    title = page.grid.title.text()
    assert "wins − losses · BT score ± SE" in title
    assert "Bradley–Terry MAP" in title and "observed Fisher information" in title
    rows = page.gateway.rating.run(sid).rows()
    fit = page.gateway.rating.run(sid).bt()
    for i, row in enumerate(rows):
        text = page.grid.grid.item(i).text()
        line = text.split("\n")[2]
        assert line == f"{row.score:+.0f} · {fit.scores[row.image_id]:+.2f} ± " \
                       f"{fit.se[row.image_id]:.2f}"
        assert "Bradley–Terry" in page.grid.grid.item(i).toolTip()
        assert "95% CI" in page.grid.grid.item(i).toolTip()
    bt = [fit.scores[r.image_id] for r in rows]
    # A round robin: BT orders as wins − losses. Two images tied on wins − losses have equal BT
    # scores up to the solver's rounding (1e-16 apart either way), so ties compare with a margin.
    assert all(a >= b - 1e-9 for a, b in zip(bt[:-1], bt[1:], strict=True))


def test_sort_grid_shows_bt_score_and_se(qtbot, project_file):
    w, page = _window(qtbot, project_file)
    _new_session(page, "sort")
    _answer_all(qtbot, page)
    text = page.grid.grid.item(0).text().split("\n")[2]
    score, se = text.split(" ± ")
    assert float(score) > 0 and float(se) > 0
    assert "tile: rank · tier · BT score ± SE" in page.grid.title.text()


def test_pooled_ranking_panel(qtbot, project_file, tmp_path, monkeypatch):
    with Project.open(project_file) as project:
        sids = add_demo_ratings(project, "six")
    w, page = _window(qtbot, project_file)
    extra = _new_session(page, "sort")  # a pass with three answers, unfinished
    for _ in range(3):
        page.compare.setFocus()
        key = Qt.Key.Key_Left if _truth(page, page.compare.current.left) > \
            _truth(page, page.compare.current.right) else Qt.Key.Key_Right
        _press(qtbot, page, key)
    qtbot.mouseClick(page.pooled_button, Qt.MouseButton.LeftButton)
    panel = page.pooled
    assert page.stack.currentWidget() is panel
    assert panel.image_sets.count() == 1 and "six" in panel.image_sets.currentText()
    # the demo's two sorts, its confidence session and ours; not the classify session
    pairwise = sids[:2] + [sids[3], extra]
    assert sorted(panel.checked()) == sorted(pairwise)
    result = panel.wait()
    assert result is not None
    project = page.gateway.project
    assert result.answers == sum(len(project.ratings.answers(s)) for s in pairwise)
    expected = pooled_ranking(project, pairwise)
    assert [r.image_id for r in result.rows] == [r.image_id for r in expected.rows]
    assert panel.table.rowCount() == N
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(8)]
    assert headers[:5] == ["Rank", "Case", "BT score", "SE", "95% CI"]
    first = expected.rows[0]
    assert panel.table.item(0, 2).text() == f"{first.score:.2f}"
    assert panel.table.item(0, 3).text() == f"{first.se:.2f}"
    assert panel.table.item(0, 4).text() == f"{first.ci_low:.2f} … {first.ci_high:.2f}"
    assert "Method: Bradley–Terry MAP" in panel.summary.text()
    assert "score ± 1.96 SE" in panel.summary.text()
    # The truth (noise level) is recovered from the top.
    assert _truth(page, result.rows[0].image_id) == N - 1

    # Untick our unfinished pass: fewer answers, another fit.
    panel.set_checked([*sids[:2], sids[3]])
    assert panel.compute()
    fewer = panel.wait()
    assert fewer is not None and fewer.answers == result.answers - 3

    out = tmp_path / "pooled.csv"
    monkeypatch.setattr("slicereview.gui.common.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), "CSV (*.csv)"))
    qtbot.mouseClick(panel.export_button, Qt.MouseButton.LeftButton)
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == POOLED_COLUMNS and len(rows) == N + 1
    assert f"{N} images written" in panel.summary.text()

    panel.set_checked([])
    assert not panel.compute() and "at least one" in panel.summary.text()


def test_pooled_panel_without_pairwise_sessions(qtbot, project_file):
    w, page = _window(qtbot, project_file)
    qtbot.mouseClick(page.pooled_button, Qt.MouseButton.LeftButton)
    assert page.stack.currentWidget() is page.pooled
    assert page.pooled.image_sets.count() == 0
    assert "nothing to pool" in page.pooled.summary.text()
