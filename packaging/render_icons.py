"""Render ``resources/slicereview.svg`` to the PNG icons shipped next to it.

Run after editing the SVG and commit the PNGs::

    QT_QPA_PLATFORM=offscreen python packaging/render_icons.py

``tests/test_packaging.py`` re-renders the SVG and fails when a committed PNG is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QImage

#: Pixel sizes of the committed PNGs (hicolor icon-theme sizes).
SIZES = (16, 32, 64, 256)
RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def render(svg: Path, size: int) -> QImage:
    """Render ``svg`` into a transparent ``size`` x ``size`` ARGB32 QImage."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image.convertToFormat(QImage.Format.Format_ARGB32)


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = RESOURCES / "slicereview.svg"
    for size in SIZES:
        out = RESOURCES / f"slicereview-{size}.png"
        if not render(svg, size).save(str(out), "PNG"):
            raise OSError(f"could not write {out}")
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
