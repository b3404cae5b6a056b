"""The guideline notice of a brand-new annotator (issue 31: they were greeted by "Guidelines
changed: version 2 (not read yet)"): someone who never read the guidelines is asked to read
them; once read, a new version is "changed", with the version they last read."""

from __future__ import annotations

from pathlib import Path

from slicereview.app.qa.guidelines import edit_guidelines
from slicereview.store import Project
from tests.gui.annotate.test_annotate import make_annotate_project


def test_a_new_annotator_is_asked_to_read_not_told_of_changes(qtbot, open_window,
                                                              tmp_path: Path) -> None:
    path = make_annotate_project(tmp_path)
    with Project.open(path) as p:
        owner = p.raters.add("olivia", "owner")
        edit_guidelines(p, owner, "Outline every **calcification**, and the masses.")  # v2
    w = open_window(path, (1300, 850))
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.view.display is not None)
    notice = page.guideline_notice
    qtbot.waitUntil(notice.isVisible)
    assert "changed" not in notice.label.text() and "read the guidelines" in notice.label.text()
    assert notice.button.text() == "Read the guidelines (F2)"
    dialog = notice.open_changes()
    dialog.close()
    assert not notice.isVisible()
    owner_id = w.gateway.project.raters.by_name("olivia").id
    w.gateway.owner.save_guidelines(owner_id, "Outline masses only.")  # v3, the owner's edit
    qtbot.waitUntil(notice.isVisible)
    assert notice.label.text() == ("<b>Guidelines changed:</b> version 3 (you last read "
                                   "version 2)")
    assert notice.button.text() == "Show what changed (F2)"
