"""The annotator's guideline notice on the Annotate tab: "Guidelines changed: version N — show
what changed (F2)" while the guidelines changed since the acting annotator last looked, and
"Please read the guidelines" for someone who never looked (nothing changed for them).

F2 (anywhere in the main window while the Annotate tab is shown) or the notice's button
opens :class:`GuidelineChangesDialog` with the newest guidelines and the unified diff since
the version the annotator last looked at (the whole text the first time); opening it records
that they looked (:func:`slicereview.app.qa.guidelines.guideline_changes`), and the notice goes
away. A part of the page: the page puts it at the top of the side panel and gives F2 to
:meth:`GuidelineNotice.open_changes`; it follows the page's state (whose work is shown) and new
guideline versions (``gateway.owner``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.owner.guideline_editor import GuidelineBrowser, show_markdown

if TYPE_CHECKING:
    from slicereview.app.qa.guidelines import GuidelineChanges
    from slicereview.gui.gateway.owner import OwnerService

KEY = "F2"


class GuidelineChangesDialog(QDialog):
    """The newest guidelines and what changed since the annotator last looked."""

    def __init__(self, changes: GuidelineChanges, crops: dict[int, bytes],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Guidelines (version {changes.version})" if changes.version
                            else "Guidelines")
        self.text = GuidelineBrowser()
        show_markdown(self.text, changes.text or "This project has no guidelines yet.", crops)
        self.diff = QPlainTextEdit(readOnly=True)
        self.diff.setFont(QFont("monospace"))
        self.diff.setPlainText(changes.diff or "Nothing changed since you last looked.")
        self.tabs = QTabWidget()
        if changes.diff:
            seen = (f"since version {changes.last_seen}" if changes.last_seen
                    else "(first time: the whole text)")
            self.tabs.addTab(self.diff, f"What changed {seen}")
        self.tabs.addTab(self.text, "Guidelines")
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(box)
        self.resize(640, 480)


class GuidelineNotice(QFrame):
    """The notice strip; :meth:`refresh` re-reads whether the acting annotator is behind."""

    def __init__(self, state: AnnotateState, owner: OwnerService) -> None:
        super().__init__()
        self.state = state
        self.owner = owner
        self.setObjectName("guideline_notice")
        self.setStyleSheet("#guideline_notice { background: #5a4a00; border-radius: 4px; }")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.button = QPushButton(f"Show what changed ({KEY})")
        self.button.clicked.connect(self.open_changes)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.dialog: GuidelineChangesDialog | None = None
        self.hide()
        state.changed.connect(self._on_state_changed)
        owner.guidelines_changed.connect(self.refresh)

    def _on_state_changed(self, what: str) -> None:
        if what == "context":  # whose work is shown may have changed
            self.refresh()

    def refresh(self, *_args: object) -> None:
        owner, rater = self.owner, self.state.rater_id
        if not owner.is_open or rater is None:
            self.hide()
            return
        changes = owner.changes_for(rater, record=False)
        self.setVisible(changes.changed)
        if changes.changed and changes.last_seen:
            self.label.setText(f"<b>Guidelines changed:</b> version {changes.version} (you "
                               f"last read version {changes.last_seen})")
            self.button.setText(f"Show what changed ({KEY})")
        elif changes.changed:  # (someone new: nothing changed for them, there is a text to read)
            self.label.setText(f"<b>Please read the guidelines</b> (version {changes.version})"
                               " before you start.")
            self.button.setText(f"Read the guidelines ({KEY})")

    def open_changes(self) -> GuidelineChangesDialog | None:
        """Show the guidelines with what changed and record that the annotator looked."""
        owner, rater = self.owner, self.state.rater_id
        if not owner.is_open or rater is None:
            return None
        changes = owner.changes_for(rater, record=True)
        self.dialog = GuidelineChangesDialog(changes, owner.entry_crops(), self.window())
        self.dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.dialog.show()
        self.refresh()
        return self.dialog
