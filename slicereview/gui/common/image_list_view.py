"""The view of the image list: Qt's list view laid out in batches, and a jump that follows the
layout.

Qt lays out every row of a list view (it asks the model its row count ~8 times a row), so the
image list lays its rows out in batches between events (``LayoutMode.Batched``): the window
shows and scrolls at once, and a project of 100,000 images is laid out within a few seconds
after. While it is, the scroll range grows batch by batch, and a jump to a row far down (End, or
the image a window shows when it opens) lands where the layout had got to and then stays at that
pixel offset as the range grows — seen under Xvfb, where End in a 100,000-image list showed rows
1,989-2,000 while image 100,000 was the current one (and Qt's own End stopped at the last row
laid out). :class:`ImageListView` goes to the last row on End and makes a jump again each time
the scroll range changes, for as long as the row jumped to is the current one and the user has
not scrolled by hand.
"""

from __future__ import annotations

import time

from PySide6.QtCore import (
    QAbstractItemModel,
    QCoreApplication,
    QDeadlineTimer,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
)
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractItemView, QListView

#: How long after a jump the view still follows the layout (seconds).
FOLLOW_FOR_S = 60.0


class ImageListView(QListView):
    """A list view of ``model`` with square icons of ``icon`` pixels, uniform rows laid out
    ``batch`` rows between two events, and jumps that follow the layout (module doc)."""

    def __init__(self, model: QAbstractItemModel, icon: int, batch: int) -> None:
        super().__init__()
        self.setModel(model)
        self.setIconSize(QSize(icon, icon))
        self.setUniformItemSizes(True)
        self.setSpacing(2)
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(batch)
        self._jump: tuple[QPersistentModelIndex, QAbstractItemView.ScrollHint, float] | None = None
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._follow)
        bar.sliderPressed.connect(self.stop_following)

    def laid_out(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        """Whether Qt has given ``index``'s row its place yet."""
        return self.visualRect(index).isValid()

    def layout_done(self) -> bool:
        """Whether every row has its place (the batched layout has finished; while it runs
        the viewport paints no row at all -- an offscreen grab at 100,000 rows showed an
        empty list)."""
        rows = self.model().rowCount()
        return rows == 0 or self.laid_out(self.model().index(rows - 1, 0))

    def wait_for_rows(self, msecs: int = 60000) -> bool:
        """Process events until the batched layout has given every row its place
        (:meth:`layout_done`) and paint it, or ``msecs`` passed; whether it did (screenshots,
        tests). A list not on screen is laid out when shown: nothing to wait for."""
        deadline = QDeadlineTimer(msecs)
        while self.isVisible() and not self.layout_done() and not deadline.hasExpired():
            QCoreApplication.processEvents()
        self.viewport().repaint()
        return not self.isVisible() or self.layout_done()

    def repaint_row(self, row: int) -> None:
        """Paint ``row`` again (its picture or text changed, not its size)."""
        rect = self.visualRect(self.model().index(row, 0))
        if rect.isValid():
            self.viewport().update(rect)

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
        self._jump = (QPersistentModelIndex(index), hint, time.monotonic()) if index.isValid() \
            else None

    def stop_following(self) -> None:
        """The user scrolls by hand: the last jump is no longer followed."""
        self._jump = None

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.stop_following()
        super().wheelEvent(event)

    def _follow(self, *_range: int) -> None:
        if self._jump is None:
            return
        index, hint, when = self._jump
        if (not index.isValid() or index != QPersistentModelIndex(self.currentIndex())
                or time.monotonic() - when > FOLLOW_FOR_S):
            self._jump = None  # (another row chosen since, the row went away, or long ago)
            return
        super().scrollTo(self.model().index(index.row(), index.column()), hint)
