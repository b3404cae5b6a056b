"""Closing and reopening the project while the Overview tab is shown computes its report again
(it neither keeps the closed project's tables nor says it was cancelled)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slicereview.gui.common import background
from tests.app.qa_project import build


@pytest.fixture(scope="module")
def qa_path(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("qa-reopen"))


def test_reopening_with_the_overview_shown_computes_the_report(open_window, qtbot,
                                                               qa_path: Path) -> None:
    w = open_window(qa_path)
    page = w.overview_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.data is not None, timeout=60000)
    w.gateway.close()
    assert page.acceptance.rowCount() == 0      # nothing of the closed project stays shown
    assert w.open_project(qa_path)
    assert background.wait_all(60)
    qtbot.waitUntil(lambda: page._worker is None, timeout=60000)
    assert "Cancelled" not in page.status.text()
    assert page.data is not None and page.acceptance.rowCount() > 0
