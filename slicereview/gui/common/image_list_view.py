"""The view of the image list: Qt's list view laid out in batches, and a jump that waits for
the layout.

Qt lays out every row of a list view (it asks the model its row count ~8 times a row), so the
image list lays its rows out in batches between events (``LayoutMode.Batched``): the window
shows and scrolls at once, and a project of 100,000 images is laid out within a few seconds
after. A row Qt has not reached yet has no place: a jump to it (End, or the image a window
shows when it opens) would land at the end of what is laid out, far from the row chosen — seen
under Xvfb, where End in a 100,000-image list showed rows 1,989-2,000 while image 100,000 was
the current one (and Qt's own End stopped at the last row laid out). :class:`ImageListView`
goes to the last row on End, keeps such a jump and makes it again once the layout
has reached the row, as long as that row is still the current one.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtWidgets import QAbstractItemView, QListView

#: How often a jump to a row not laid out yet is tried again (ms), and for how long at most.
RETRY_MS, RETRY_FOR_MS = 30, 30_000


class ImageListView(QListView):
    """A list view of ``model`` with square icons of ``icon`` pixels, uniform rows laid out
    ``batch`` rows between two events, and jumps that wait for the layout (module doc)."""

    def __init__(self, model: QAbstractItemModel, icon: int, batch: int) -> None:
        super().__init__()
        self.setModel(model)
        self.setIconSize(QSize(icon, icon))
        self.setUniformItemSizes(True)
        self.setSpacing(2)
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(batch)
        self._pending: tuple[QPersistentModelIndex, QAbstractItemView.ScrollHint] | None = None
        self._tries = 0
        self._retry = QTimer(self, singleShot=True, interval=RETRY_MS)
        self._retry.timeout.connect(self._jump_again)

    def laid_out(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        """Whether Qt has given ``index``'s row its place yet."""
        return self.visualRect(index).isValid()

    def moveCursor(self, action: QAbstractItemView.CursorAction,
                   modifiers: Qt.KeyboardModifier) -> QModelIndex:
        """End goes to the last row (Qt's own End stops at the last row laid out)."""
        rows = self.model().rowCount()
        if action == QAbstractItemView.CursorAction.MoveEnd and rows:
            return self.model().index(rows - 1, 0)
        return super().moveCursor(action, modifiers)

    def scrollTo(self, index: QModelIndex | QPersistentModelIndex,
                 hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
                 ) -> None:
        super().scrollTo(index, hint)
        if index.isValid() and not self.laid_out(index):
            if self._pending is None or self._pending[0] != index:
                self._tries = 0
            self._pending = (QPersistentModelIndex(index), hint)
            self._retry.start()
        else:
            self._pending = None

    def _jump_again(self) -> None:
        if self._pending is None:
            return
        index, hint = self._pending
        self._tries += 1
        if (not index.isValid() or index != QPersistentModelIndex(self.currentIndex())
                or self._tries * RETRY_MS > RETRY_FOR_MS):
            self._pending = None  # (another row chosen since, or the row went away)
            return
        self.scrollTo(self.model().index(index.row(), index.column()), hint)
