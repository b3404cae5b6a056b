"""Pre-annotation in the Annotate tab: an annotator who opens an image the design shows them
the model on sees the model's polygons at once, as their own in-progress annotation (its
starting state; Undo has nothing to undo before it); an image not shown opens empty."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slicereview.app.images.importing import import_paths
from slicereview.app.models.raters import model_rater
from slicereview.app.qa.preannotation import set_preannotation
from slicereview.app.qa.workflow import define_batch
from slicereview.model import Polygon, Tool
from slicereview.store import Project

SQUARE = np.array([[20.0, 20.0], [60.0, 20.0], [60.0, 60.0], [20.0, 60.0]])


@pytest.fixture
def window(qtbot, open_window, tmp_path: Path):
    from skimage import io

    for k in range(2):
        io.imsave(tmp_path / f"im{k}.png", np.full((120, 160), 500 + 300 * k, np.uint16),
                  check_contrast=False)
    with Project.create(tmp_path / "p.srproj") as project:
        import_paths(project, [tmp_path / "im0.png", tmp_path / "im1.png"])
        images = [im.id for im in project.images.all()]
        model = model_rater(project, "net", "2").id
        for i in images:
            a = project.annotations.for_image(model, i)
            project.polygons.replace(a.id, [Polygon(SQUARE, tool=Tool.MODEL, model="net@2")])
            project.annotations.set_status(a.id, "submitted")
        alice = project.raters.add("alice")
        batch = define_batch(project, "b", "formal", images, raters=[alice])
        set_preannotation(project, batch, model, "all")
        project.preannotation.db.execute(  # (the second image: the control arm)
            "UPDATE preannotation_shown SET shown = 0 WHERE image_id = ?", (images[1],))
    w = open_window(tmp_path / "p.srproj", (1300, 850))
    w.tabs.setCurrentWidget(w.annotate_page)
    qtbot.waitUntil(lambda: w.annotate_page.view.display is not None)
    return w


def test_an_image_shown_opens_with_the_models_polygons(window, qtbot):
    page = window.annotate_page
    qtbot.waitUntil(lambda: page.annotation is not None)
    stored = window.gateway.project.polygons.of(page.annotation.id)
    assert [(p.tool, p.model, p.edited) for p in stored] == [(Tool.MODEL, "net@2", False)]
    assert page.annotation.rater_id == window.gateway.project.raters.by_name("alice").id
    assert len(page.tool.polygons) == 1  # drawn on the image
    assert not page.history_actions.undo.isEnabled()  # the starting state
    second = window.gateway.project.images.all()[1].id
    window.browser.select(second)  # the next image: not shown
    qtbot.waitUntil(lambda: page.state.image_id == second)
    assert page.annotation is None and page.tool.polygons == []
