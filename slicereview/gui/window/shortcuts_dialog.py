"""Help ▸ Keyboard shortcuts (F1): every key and mouse gesture of every page in one list,
read from :mod:`slicereview.gui.common.shortcuts` (the table the actions are made from)."""

from __future__ import annotations

from html import escape

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from slicereview.gui.common.shortcuts import shortcut_rows


def shortcuts_html() -> str:
    """The list as an HTML table, one heading row per section."""
    parts = ["<table cellspacing='0' cellpadding='3'>"]
    section = None
    for where, keys, what in shortcut_rows():
        if where != section:
            section = where
            parts.append(f"<tr><td colspan='2'><h3>{escape(where)}</h3></td></tr>")
        parts.append(f"<tr><td><b>{escape(keys)}</b>&nbsp;&nbsp;</td>"
                     f"<td>{escape(what)}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


class ShortcutsDialog(QDialog):
    """A non-modal window listing :func:`~slicereview.gui.common.shortcuts.shortcut_rows`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts — slicereview")
        self.browser = QTextBrowser()
        self.browser.setHtml(shortcuts_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(760, 720)

    def text(self) -> str:
        """The list as plain text."""
        return self.browser.toPlainText()
