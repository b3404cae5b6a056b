"""The application icon: committed PNGs match the SVG, load into Qt and stay legible at 16 px."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QIcon, QImage

from slicereview.app.resources import ICON_SIZES, icon_paths, resource_path

REPO = Path(__file__).resolve().parents[2]


def _render_module():
    spec = importlib.util.spec_from_file_location(
        "render_icons", REPO / "packaging" / "render_icons.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rgba(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    ptr = image.constBits()
    arr = np.frombuffer(ptr, np.uint8, count=image.sizeInBytes())
    return arr.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4].reshape(
        image.height(), image.width(), 4
    ).copy()


@pytest.mark.skipif(not (REPO / "packaging" / "render_icons.py").is_file(),
                    reason="needs the source tree's packaging/ folder")
@pytest.mark.parametrize("size", ICON_SIZES)
def test_committed_png_matches_svg(qapp, size):
    fresh = _rgba(_render_module().render(resource_path("slicereview.svg"), size))
    committed = _rgba(QImage(str(resource_path(f"slicereview-{size}.png"))))
    assert committed.shape == (size, size, 4)
    diff = np.abs(fresh.astype(int) - committed.astype(int))
    # Anti-aliasing of edge pixels may differ between Qt versions; a changed SVG changes many
    # pixels by a lot (a recoloured outline moves the mean by > 5 and the 99th percentile by
    # > 100).
    stale = "PNG is stale: run `python packaging/render_icons.py`"
    assert diff.mean() < 1.5, stale
    assert np.percentile(diff, 99) <= 24, stale


def test_icon_loads_every_size(qapp):
    icon = QIcon()
    for path in icon_paths().values():
        icon.addFile(str(path))
    assert not icon.isNull()
    assert sorted(s.width() for s in icon.availableSizes()) == sorted(ICON_SIZES)


def test_small_icon_shows_red_and_green_outlines(qapp):
    px = _rgba(QImage(str(resource_path("slicereview-16.png")))).astype(int)
    r, g, b, a = px[..., 0], px[..., 1], px[..., 2], px[..., 3]
    red = (r > 180) & (g < 110) & (b < 110) & (a == 255)
    green = (g > 150) & (r < 110) & (b < 150) & (a == 255)
    # Whole-pixel outlines: each colour covers at least a full edge of its 7-pixel square.
    assert red.sum() >= 14
    assert green.sum() >= 10
