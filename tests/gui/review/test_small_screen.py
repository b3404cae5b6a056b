"""The Review tab at 1280 × 800 (issue 31): the image got a strip of ~300 px beside a 440 px
queue and its histogram, and the "Boxes, worst α first" list ran off the panel's right edge.
The queue and the panel take a quarter each, the histogram gives way below 1,500 px, and the
box entries wrap. Screenshots at 1280 × 800 and 1920 × 1080 go to the ``screenshots`` folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from slicereview.gui.review.page import HISTOGRAM_FROM_PX
from tests.gui.review.review_fixture import build_review_project


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_image_has_room_and_the_boxes_are_whole(qtbot, open_window, tmp_path: Path,
                                                    screenshots, size) -> None:
    w = open_window(build_review_project(tmp_path), size)
    page = w.review_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=30000)
    qtbot.wait(50)
    image = page.view.graphics.width()
    assert image >= 0.38 * page.width(), (image, page.width())   # was ~300 of 1264 px
    assert page.view.histogram.isVisible() == (page.width() >= HISTOGRAM_FROM_PX)
    boxes = page.panel.boxes
    assert boxes.count() > 0 and not boxes.horizontalScrollBar().isVisible()
    for row in range(boxes.count()):
        assert boxes.visualItemRect(boxes.item(row)).right() <= boxes.viewport().width()
    w.grab().save(str(screenshots / f"review_{size[0]}x{size[1]}.png"))
