"""Linked windows in the comparison view are relative: two images with different value ranges
(a 12-bit and a 14-bit mammogram) each keep their own automatic window, and a window change on
one moves the other by the same fraction of its own range (docs/rate.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt

from slicereview.app.images.importing import import_paths
from slicereview.app.rating.sessions import NewSessionSpec
from slicereview.engines.imaging.display import apply_window
from slicereview.model import SessionKind
from slicereview.store import Project
from tests.gui.rate.test_rate import _press, _window


def _pair_project(tmp_path: Path) -> Path:
    """Two 16-bit PNGs, the second the first on a 4× wider scale shifted by 1000."""
    from skimage import io

    rng = np.random.default_rng(1)
    narrow = (np.outer(np.hanning(96), np.hanning(80)) * 3000 + 500
              + rng.normal(0, 80, (96, 80))).clip(0, 4095).astype(np.uint16)
    wide = (narrow.astype(np.int64) * 4 + 1000).astype(np.uint16)
    folder = tmp_path / "images"
    folder.mkdir()
    io.imsave(folder / "a_narrow.png", narrow, check_contrast=False)
    io.imsave(folder / "b_wide.png", wide, check_contrast=False)
    path = tmp_path / "pair.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        project.image_sets.create("pair", [im.id for im in project.images.all()])
    return path


def _shown(view) -> np.ndarray:
    return apply_window(view.display.data, view.current_window).astype(int)


def _relative(view) -> tuple[float, float]:
    auto, now = view.display.auto_window(), view.current_window
    return ((now.center - auto.center) / auto.width, now.width / auto.width)


def test_linked_windows_are_relative(qtbot, tmp_path: Path) -> None:
    w, page = _window(qtbot, _pair_project(tmp_path))
    set_id = next(i for i, name, _n in page.gateway.rating.image_sets() if name == "pair")
    assert page.create_session(NewSessionSpec(kind=SessionKind("sort"), rater="ann",
                                              image_set_id=set_id, prompt="Which is noisier?"))
    left, right = page.compare.left, page.compare.right
    assert page.compare.link_box.isChecked()
    # each image at its own automatic window: neither takes the other's values
    for view in (left, right):
        auto = view.display.auto_window()
        assert np.isclose(view.current_window.center, auto.center)
        assert np.isclose(view.current_window.width, auto.width)
    assert abs(left.current_window.width - right.current_window.width) > 1000
    # ... so the same anatomy looks the same on both sides (the wide image is the narrow one
    # rescaled), where the absolute copy washed one side out
    assert np.abs(_shown(left) - _shown(right)).max() <= 1

    _press(qtbot, page, Qt.Key.Key_B)            # brighter, and more contrast, on both
    _press(qtbot, page, Qt.Key.Key_C)
    assert np.allclose(_relative(left), _relative(right))
    assert np.abs(_shown(left) - _shown(right)).max() <= 1
    right.set_window(9000.0, 4000.0)             # a window set on the right
    assert np.allclose(_relative(left), _relative(right))
    assert np.abs(_shown(left) - _shown(right)).max() <= 1


def test_every_next_pair_starts_at_its_own_automatic_window(qtbot, tmp_path: Path) -> None:
    """Zoom and pan carry over to the next pair, the window does not: a pair of images 8 and
    16 times as bright as the first pair is shown as bright as that one was (the window of the
    first pair kept on them showed them almost white), after a window change too."""
    from skimage import io

    rng = np.random.default_rng(1)
    base = (np.outer(np.hanning(96), np.hanning(80)) * 3000 + 500
            + rng.normal(0, 80, (96, 80))).clip(0, 4095)
    folder = tmp_path / "images"
    folder.mkdir()
    for k, scale in enumerate((1, 4, 8, 16)):
        io.imsave(folder / f"im{k}.png", (base * scale).clip(0, 65535).astype(np.uint16),
                  check_contrast=False)
    path = tmp_path / "scales.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        project.image_sets.create("scales", [im.id for im in project.images.all()])
    w, page = _window(qtbot, path)
    set_id = next(i for i, name, _n in page.gateway.rating.image_sets() if name == "scales")
    assert page.create_session(NewSessionSpec(kind=SessionKind("sort"), rater="ann",
                                              image_set_id=set_id, prompt="Which is noisier?"))
    left, right = page.compare.left, page.compare.right
    _press(qtbot, page, Qt.Key.Key_C)  # a window change on the first pair
    seen = set()
    for _ in range(3):
        previous = (page.compare.current.left, page.compare.current.right)
        _press(qtbot, page, Qt.Key.Key_Left)
        qtbot.waitUntil(lambda p=previous: (page.compare.current.left,
                                            page.compare.current.right) != p)
        seen.update((page.compare.current.left, page.compare.current.right))
        for view in (left, right):
            auto = view.display.auto_window()
            assert np.isclose(view.current_window.center, auto.center)
            assert np.isclose(view.current_window.width, auto.width)
            assert view.preset_box.currentText().startswith("Auto")
    assert len(seen) >= 3  # (images of other scales came)
