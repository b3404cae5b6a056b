"""In a narrow viewer (the Review tab's side-by-side panes) the window preset box shows its
whole text ("Auto (1–99.5 %)", not "Auto (1–"); the centre/width label gives way instead, so
a pane is no wider than before."""

from __future__ import annotations

import numpy as np

from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.windowing import AUTO_LABEL
from slicereview.gui.common.image_view import ImageView


def test_preset_box_is_never_squeezed(qtbot) -> None:
    view = ImageView(show_histogram=False)
    qtbot.addWidget(view)
    data = (np.arange(64 * 64, dtype=np.uint16).reshape(64, 64) * 7)
    view.set_image(DisplayImage(data=data))
    view.resize(1000, 400)
    view.show()
    qtbot.waitExposed(view)
    assert view.preset_box.currentText().startswith(AUTO_LABEL)
    narrow = max(view.minimumSizeHint().width(), view.sizeHint().width() - 100)
    view.resize(narrow, 400)                          # narrower than it would like
    qtbot.wait(50)
    box = view.preset_box
    assert box.width() >= box.sizeHint().width()
    text = box.fontMetrics().horizontalAdvance(box.currentText())
    assert box.width() > text, (box.width(), text)
    assert view.window_label.width() < view.window_label.sizeHint().width()  # it gave way
