"""Owner ▸ Audit and selection order…: the audit share and a batch's selection order set on
real widgets and read back from the project (a file and a server); the Overview's Queue audit
section shows the estimate the app layer computes (its worker, its own connection)."""

from __future__ import annotations

from pathlib import Path

from slicereview.app.qa.selection import order_of
from slicereview.app.qa.workflow import define_batch
from slicereview.app.review.audit import audit_estimate, audit_settings
from slicereview.app.review.decisions import decide
from slicereview.app.review.queue import QueueSpec, queue
from slicereview.store import Project
from tests.app.review.test_audit import _project


def _cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() if table.item(r, c) else ""
             for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_owner_sets_the_audit_and_an_order_and_the_overview_shows_the_estimate(
        qtbot, open_window, location, tmp_path: Path):
    path = location()
    owner, reviewer = _project(path, tmp_path / "imgs", images=20)
    with Project.open(path) as project:
        model = project.raters.by_name("a")
        assert model is not None
        batch = define_batch(project, "claims", "formal", [1, 2, 3], raters=[model.id],
                             annotators_per_image=2)
    w = open_window(path)
    w.owner_menu.actions["selection"].trigger()
    dialog = w.owner_menu.dialog
    assert dialog.share.value() == 0.0 and dialog.batch_box.count() == 1
    dialog.share.setValue(25.0)
    dialog.seed.setValue(7)
    dialog.apply_button.click()
    assert "25 % of the review slots" in dialog.message.text()
    dialog.order_box.setCurrentText("uncertainty")
    assert dialog.rater_box.isEnabled() and not dialog.order_seed.isEnabled()
    dialog.rater_box.setCurrentIndex(dialog.rater_box.findData(model.id))
    dialog.set_button.click()
    assert "uncertainty order" in dialog.message.text()
    with Project.open(path) as project:
        assert audit_settings(project).share == 0.25 and audit_settings(project).seed == 7
        chosen = order_of(project, batch)
        assert (chosen.order, chosen.rater_id) == ("uncertainty", model.id)
        # the reviewer decides the queue's first 8 slots: odd images rejected
        for row in queue(project, QueueSpec())[:8]:
            for ann_id in row.annotation_ids:
                decide(project, reviewer, ann_id, "reject" if row.image_id % 2 else "accept",
                       ["extra region"] if row.image_id % 2 else [])
        want = audit_estimate(project, QueueSpec(), 20)
    dialog.close()
    page = w.overview_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.data is not None and page.audit.worker is None
                    and page.audit.table.rowCount() == 4, timeout=60000)
    rows = _cells(page.audit.table)
    assert rows[0][0] == "P@20 of box-score"
    assert rows[0][1] == f"{100 * want.precision.value:.1f} %"
    assert rows[0][3] == f"{want.precision.relevant} of {want.precision.reviewed} reviewed " \
                         "in the top 20"
    assert rows[1][3].startswith(f"{want.base_rate.relevant} of {want.base_rate.reviewed}")
    assert "one review slot in 4" in page.audit.heading.text()


def test_the_overview_says_when_there_is_no_audit(qtbot, open_window, location,
                                                  tmp_path: Path):
    path = location()
    _project(path, tmp_path / "imgs", images=3)
    w = open_window(path)
    page = w.overview_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.data is not None and page.audit.worker is None
                    and "no audit slots" in page.audit.heading.text(), timeout=60000)
    assert page.audit.table.rowCount() == 0
