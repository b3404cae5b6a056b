"""What the Review tab shows, Qt-free: the ranked queue, the row on screen, its review values and
the box walked to (:class:`ReviewState`). The page and its parts read and set it; views that
follow it listen to :attr:`ReviewState.changed`."""

from __future__ import annotations

from dataclasses import dataclass, field

from slicereview.app.review.image import ReviewImage
from slicereview.app.review.queue import QueueRow, QueueSpec
from slicereview.gui.common.listeners import Listeners


@dataclass
class ReviewState:
    """The Review tab's state (see the module docstring)."""

    #: The ranked queue of the filters chosen.
    rows: list[QueueRow] = field(default_factory=list)
    #: The queue row on screen (-1: none).
    position: int = -1
    #: The review values of that row's image (outlines, votes, boxes, pins).
    review: ReviewImage | None = None
    #: The box walked to with Tab (an index of the worst-first list), or ``None``.
    box_index: int | None = None
    #: Waiting for the click of a point pin (P).
    pin_mode: bool = False
    #: The filters the queue was computed for.
    spec: QueueSpec | None = None
    #: Called with the name of what changed ("rows", "position", "review").
    changed: Listeners = field(default_factory=Listeners, repr=False, compare=False)

    @property
    def row(self) -> QueueRow | None:
        """The queue row on screen, or ``None``."""
        return self.rows[self.position] if 0 <= self.position < len(self.rows) else None

    def set_rows(self, rows: list[QueueRow]) -> None:
        self.rows = rows
        self.changed.emit("rows")

    def show(self, position: int, review: ReviewImage) -> None:
        """Row ``position`` is on screen with ``review``; no box is walked to yet."""
        self.position, self.review, self.box_index = position, review, None
        self.changed.emit("position")

    def clear(self) -> None:
        self.rows, self.position, self.review, self.box_index = [], -1, None, None
        self.pin_mode = False
        self.changed.emit("rows")
