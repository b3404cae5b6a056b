"""Owner ▸ Guidelines…: edit the versioned Markdown guidelines with a live preview, read the
version history with the diff between any version and the one before, and promote a
reviewer's comment into a guideline entry with an image crop (:mod:`slicereview.app.qa.guidelines`).

Saving a changed text makes a new version (the old ones stay: every annotation and review
names the version in force); saving an unchanged text does nothing. Promoted crops are shown in
the preview (the Markdown refers to them as ``entry:ID``).

The preview re-renders :data:`PREVIEW_DELAY_MS` after typing stops (a single-shot timer), not
on every keystroke; each crop is decoded once per dialog (new ones after a promotion) and
served by :class:`GuidelineBrowser`, which keeps the ``QImage`` objects alive. (Typing never
crashed the editor: ``QTest.keyClicks`` aborts on a ``"\\n"``, which has no key; the tests
press Return with ``keyClick``.)
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QFont, QImage, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.gateway.owner import OwnerService
from slicereview.gui.owner.picker import OwnerPicker

ROLE = 0x0100  # Qt.ItemDataRole.UserRole
PREVIEW_DELAY_MS = 250


class GuidelineBrowser(QTextBrowser):
    """A Markdown browser that serves the promoted crops for ``entry:ID`` pictures.

    The crops live in :attr:`crops` (``QImage`` objects this widget keeps alive) and are
    handed out from :meth:`loadResource`, so re-rendering the text (``setMarkdown`` clears the
    document, resources added with ``addResource`` included) needs no re-registration.

    Examples
    --------
    >>> from PySide6.QtWidgets import QApplication
    >>> app = QApplication.instance() or QApplication([])
    >>> browser = GuidelineBrowser()
    >>> browser.add_crops({7: b"not a png"})
    >>> browser.crops[7].isNull(), browser.loadResource(2, QUrl("entry:8")) is None
    (True, True)
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.crops: dict[int, QImage] = {}

    def add_crops(self, crops: dict[int, bytes]) -> None:
        """Decode the crops not held yet (each one once per browser)."""
        for entry, png in crops.items():
            if entry not in self.crops:
                self.crops[entry] = QImage.fromData(png)

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        url = QUrl(url)
        if url.scheme() == "entry" and url.path().isdigit():
            return self.crops.get(int(url.path()))
        return super().loadResource(kind, url)


def show_markdown(browser: GuidelineBrowser, text: str, crops: dict[int, bytes]) -> None:
    """Render guideline Markdown in ``browser`` with the promoted crops as pictures."""
    browser.add_crops(crops)
    browser.setMarkdown(text)


class GuidelineEditor(QDialog):
    def __init__(self, owner: OwnerService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Guidelines")
        self.owner = owner
        self.picker = OwnerPicker(owner)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFont("monospace"))
        self.preview = GuidelineBrowser()
        self._render_timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._render_timer.timeout.connect(self._preview)
        self.editor.textChanged.connect(self._render_timer.start)
        self.save_button = QPushButton("Save as new version")
        self.save_button.clicked.connect(self.save)
        self.versions = QListWidget()
        self.versions.currentRowChanged.connect(self._show_version)
        self.diff = QPlainTextEdit(readOnly=True)
        self.diff.setFont(QFont("monospace"))
        self.comments = QListWidget()
        self.comments.currentRowChanged.connect(self._show_crop)
        self.crop = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.crop.setMinimumSize(200, 200)
        self.promote_button = QPushButton("Promote into the guidelines (with image crop)")
        self.promote_button.clicked.connect(self.promote)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self._layout()
        self.refresh()
        self.resize(1150, 700)

    def _layout(self) -> None:
        tabs = QTabWidget()
        split = QSplitter()
        split.addWidget(self.editor)
        split.addWidget(self.preview)
        edit = QWidget()
        e = QVBoxLayout(edit)
        e.addWidget(split, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.save_button)
        e.addLayout(row)
        tabs.addTab(edit, "Edit")
        history = QSplitter()
        history.addWidget(self.versions)
        history.addWidget(self.diff)
        history.setSizes([220, 800])
        tabs.addTab(history, "History")
        promote = QWidget()
        p = QVBoxLayout(promote)
        p.addWidget(QLabel("Reviewers' comments and reason tags:"))
        inner = QHBoxLayout()
        inner.addWidget(self.comments, 2)
        inner.addWidget(self.crop, 1)
        p.addLayout(inner, 1)
        p.addWidget(self.promote_button)
        tabs.addTab(promote, "Promote a review comment")
        self.tabs = tabs
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.picker)
        layout.addWidget(tabs, 1)
        layout.addWidget(self.message)
        layout.addWidget(close)

    def refresh(self) -> None:
        """Re-read the newest text, the history and the review comments."""
        self.editor.setPlainText(self.owner.guideline_text())
        self.versions.clear()
        for version, created in self.owner.guideline_versions()[::-1]:
            item = QListWidgetItem(f"version {version} — {created[:16].replace('T', ' ')}")
            item.setData(ROLE, version)
            self.versions.addItem(item)
        if self.versions.count():
            self.versions.setCurrentRow(0)
        self.comments.clear()
        for review_id, label in self.owner.review_comments():
            item = QListWidgetItem(label)
            item.setData(ROLE, review_id)
            self.comments.addItem(item)
        self._preview()  # at once on opening and after saving, not after the typing delay

    def _preview(self) -> None:
        self._render_timer.stop()
        if self.owner.gateway.is_open:
            self.preview.add_crops(self.owner.entry_crops())
        self.preview.setMarkdown(self.editor.toPlainText())

    def _show_version(self, row: int) -> None:
        item = self.versions.item(row)
        if item is None:
            self.diff.clear()
            return
        version = int(item.data(ROLE))
        older = [v for v, _ in self.owner.guideline_versions() if v < version]
        self.diff.setPlainText(self.owner.guideline_diff(older[-1] if older else None, version))

    def _show_crop(self, row: int) -> None:
        item = self.comments.item(row)
        self.crop.clear()
        if item is None:
            return
        try:
            png = self.owner.example_crop(int(item.data(ROLE)))
        except Exception as exc:  # an image file missing or unreadable: say so, keep going
            self.crop.setText(f"No crop: {exc}")
            return
        pixmap = QPixmap.fromImage(QImage.fromData(png))
        self.crop.setPixmap(pixmap.scaled(240, 240, Qt.AspectRatioMode.KeepAspectRatio))

    def _need_owner(self) -> int | None:
        if self.picker.owner_id is None:
            self.message.setText("Choose the acting owner (or add one with New owner…).")
        return self.picker.owner_id

    def save(self) -> int | None:
        """Save the editor's text; returns the version in force (new when it changed)."""
        owner_id = self._need_owner()
        if owner_id is None:
            return None
        try:
            version = self.owner.save_guidelines(owner_id, self.editor.toPlainText())
        except (ValueError, PermissionError) as exc:
            self.message.setText(str(exc))
            return None
        self.refresh()
        self.message.setText(f"Saved: the guidelines are at version {version}.")
        return version

    def promote(self) -> int | None:
        """Promote the chosen review comment; returns the new version."""
        item = self.comments.currentItem()
        owner_id = self._need_owner()
        if item is None or owner_id is None:
            if item is None:
                self.message.setText("Choose a review comment to promote.")
            return None
        try:
            version = self.owner.promote(owner_id, int(item.data(ROLE)))
        except (ValueError, PermissionError, OSError) as exc:
            self.message.setText(str(exc))
            return None
        self.refresh()
        self.message.setText(f"Promoted into version {version}.")
        return version
