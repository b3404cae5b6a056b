"""A file whose decoder aborts cannot take the GUI with it (the decoding child process).

No real file is known whose header passes the checks and still makes a decoder abort (the
fuzz test's aborting files are all refused by the header checks now), so the child's test
hook stands in for one: ``SLICEREVIEW_TEST_CRASH_FILE`` makes the child ``os.abort()`` on that
file, exactly as a native decoder does.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.errors import DecoderCrashedError
from slicereview.engines.imaging.loader import load_display
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project


@pytest.fixture
def crashing_project(tmp_path: Path, monkeypatch) -> Path:
    from skimage import io

    folder = tmp_path / "images"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for name in ("a.png", "bad.png", "c.png"):
        io.imsave(folder / name, (rng.random((60, 80)) * 255).astype(np.uint8),
                  check_contrast=False)
    path = tmp_path / "hostile.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))  # imported before the hook is on
    isolated.shutdown()
    monkeypatch.setenv("SLICEREVIEW_TEST_CRASH_FILE", "bad.png")  # the next child has it
    yield path
    isolated.shutdown()
    isolated.forget_crashes()


@pytest.mark.slow  # 3 s
def test_a_file_that_crashes_the_decoder_is_listed_and_never_decoded_again(
        qtbot, crashing_project: Path) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1100, 700)
    w.show()
    assert w.open_project(crashing_project)
    ids = {Path(im.path).name: im.id for im in w.gateway.images()}
    qtbot.waitUntil(lambda: len(w.browser.thumbnail_ids()) + len(w.browser.failures()) == 3,
                    timeout=60000)
    failures = w.browser.failures()
    assert list(failures) == [ids["bad.png"]]
    assert "stopped abnormally on bad.png" in failures[ids["bad.png"]]
    assert w.browser.thumbnail_ids() == {ids["a.png"], ids["c.png"]}  # the others are shown
    assert "(cannot be shown)" in w.browser.row_text(ids["bad.png"])
    assert "stopped abnormally" in w.browser.row_tooltip(ids["bad.png"])
    # Selecting it shows the remembered message; it is not decoded again, not even in-process.
    bad = w.gateway.image(ids["bad.png"])
    w.browser.select(bad.id)
    qtbot.waitUntil(lambda: "stopped abnormally" in w.image_label.text())
    assert bad.id not in w.gateway.cache
    os.environ.pop("SLICEREVIEW_TEST_CRASH_FILE")  # even a child without the hook is not asked
    with pytest.raises(DecoderCrashedError, match="stopped abnormally on bad.png"):
        load_display(w.gateway.file_of(bad), bad)
    # The program goes on: the other images are shown from a new child.
    w.browser.select(ids["c.png"])
    qtbot.waitUntil(lambda: ids["c.png"] in w.gateway.cache)
    assert w.viewer is not None and "cannot show" not in w.image_label.text()
    w.browser.wait_for_thumbnails()
    w.grab().save(str(crashing_project.parent / "hostile.png"))
