"""The Annotate tab of a work package's project follows the batch's selection order: the
package made from a batch in uncertainty order lists its images most uncertain first, and
Next image (Page Down) goes down that list."""

from __future__ import annotations

import pytest

from slicereview.app.qa.packages import package, unpack
from slicereview.app.qa.selection import ordered_images
from slicereview.store import Project
from tests.app.qa.test_selection import _project, in_uncertainty_order


@pytest.mark.file_only("a work package's project is a file on the annotator's machine")
def test_the_package_image_list_and_next_image_follow_the_uncertainty_order(
        open_window, qtbot, tmp_path) -> None:
    where = tmp_path / "p.srproj"
    owner, model, (a, _, _), batch, ids = _project(where, tmp_path / "imgs")
    with Project.open(where) as project:
        in_uncertainty_order(project, owner, model, batch, ids)
        want = ordered_images(project, batch)
        assert want == [ids[2], ids[1], ids[0], ids[3]]
        for image_id in ids:
            assert project.slots.claim_image(batch, image_id, a)
        sent = package(project, "a", tmp_path / "a.zip", batch="b")
    w = open_window(unpack(sent))
    w.tabs.setCurrentWidget(w.annotate_page)
    assert w.browser.image_ids() == want
    w.browser.select(want[0])
    seen = [w.browser.current_id()]
    for _ in want[1:]:
        w.view_menu.next_image()
        seen.append(w.browser.current_id())
    assert seen == want
