"""The Overview tab's look: every column has a header, the method notes are readable (WCAG
contrast of at least 4.5:1 against their background in the app's theme)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from slicereview.gui.overview.page import OverviewPage
from slicereview.gui.overview.sections import note


def _luminance(colour: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def test_headers_named_and_notes_readable(open_window, qtbot) -> None:
    w = open_window()
    page: OverviewPage = w.overview_page
    for table in (page.acceptance, page.onboarding, page.quality):
        labels = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
        assert all(label.strip() for label in labels), labels
    label = note("a method note")
    qtbot.addWidget(label)
    label.show()
    label.ensurePolished()
    fg = label.palette().color(QPalette.ColorRole.WindowText)
    bg = label.palette().color(QPalette.ColorRole.Window)
    lighter, darker = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    assert (lighter + 0.05) / (darker + 0.05) >= 4.5, (fg.name(), bg.name())
