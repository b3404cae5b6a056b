"""The Review tab's queue: computed off the GUI thread, and kept true to the file.

:class:`QueueLoader` is a part of the :class:`~slicereview.gui.review.page.ReviewPage`:

* **computing** — the queue's features are computed (or read from the cache) by
  :func:`slicereview.gui.common.workers.review_features` in a thread worker with its own project
  connection, with a progress bar and Cancel (which keeps what is finished); the rows are
  ranked in the GUI thread (:meth:`~slicereview.gui.gateway.review.ReviewService.rows`);
* **every change notice refreshes** — a change from elsewhere (another window or instance, a
  merged work package: the gateway's ``changed_elsewhere``) or an annotation edited in this
  window (``annotation_changed``) recomputes the queue (its selection — each annotator's latest
  finished round — may now hold other annotations) and re-reads the image shown, keeping the
  image and the zoom when it is still in the queue. This window's edits are gathered for a
  moment (:data:`SETTLE_MS`), another connection's commits (coalesced by the watch already)
  refresh at once, and a hidden tab refreshes when it is shown again;
* **only what was seen is decided** — a decision carries each annotation's edit stamp as it was
  shown (:func:`slicereview.app.review.decisions.check_shown`); when the application layer
  refuses it because the annotation changed, the page says so and reloads
  (:meth:`QueueLoader.after_refused`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from slicereview.app.review.decisions import ChangedSinceShown
from slicereview.app.review.queue import QueueResult
from slicereview.gui.common import workers
from slicereview.gui.common.background import Worker, thread_worker

if TYPE_CHECKING:
    from slicereview.gui.review.page import ReviewPage

#: Change notices within this many milliseconds are one refresh.
SETTLE_MS = 250


class QueueLoader(QObject):
    """Computes the page's queue and refreshes it (see the module docstring)."""

    def __init__(self, page: ReviewPage) -> None:
        super().__init__(page)
        self.page = page
        self.gateway = page.gateway
        self.state = page.state
        self.worker: Worker | None = None
        #: A refresh waits for the tab to be shown.
        self.stale = False
        self._keep_image: int | None = None
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.refresh)
        g = self.gateway
        # (another connection's commits come coalesced already -- a file's watch polls once
        # a second, a server's notices at most twice a second -- and are refreshed at once)
        g.changed_elsewhere.connect(lambda: self._on_change_notice(0))
        g.annotate.annotation_changed.connect(lambda _image, _annotation: self._on_change_notice())
        g.review.review_changed.connect(self._on_review_changed)

    # -- computing -----------------------------------------------------------------------------
    def recompute(self) -> None:
        """Compute the queue of the current filters in a worker (cached features are quick)."""
        if not self.gateway.is_open:
            return
        self.cancel()
        spec = self.state.spec = self.page.queue_panel.spec()
        for key, value in (("method", spec.method), ("phase", spec.phase),
                           ("round", spec.round or 0), ("group", spec.group or "")):
            self.gateway.review.set_setting(key, value)
        worker = thread_worker(workers.review_features, self.gateway.open_project.location,
                               spec, name="features")
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_computed)
        worker.failed.connect(self._on_failed)
        self.page.queue_panel.set_busy(True)
        self.worker = worker

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            for signal in (self.worker.progress, self.worker.finished, self.worker.failed):
                signal.disconnect()  # a result that comes now is not for this queue
            self.worker.wait(30000)
            self.worker = None
            self.page.queue_panel.set_busy(False)

    def _on_progress(self, done: int, total: int, _what: str) -> None:
        self.page.queue_panel.set_busy(True, done, total)

    def _on_failed(self, message: str) -> None:
        self.worker = None
        self.page.queue_panel.set_busy(False)
        self.page.panel.message.setText(f"The queue could not be computed: {message}")

    def _on_computed(self, result: QueueResult) -> None:
        self.worker = None
        self.page.queue_panel.set_busy(False)
        if not self.gateway.is_open or self.state.spec is None:
            return
        self.state.set_rows(self.gateway.review.rows(self.state.spec, result))
        self.page.queue_panel.set_rows(self.state.rows, len(result.not_enough))
        if result.cancelled:
            self.page.panel.message.setText("Feature computation cancelled: the queue holds "
                                            "the images computed so far.")
        self._show_after_compute()  # the image shown before a refresh, else the saved one

    def _show_after_compute(self) -> None:
        """Show the image kept by :meth:`refresh` (same zoom, re-read), else the saved one."""
        ids = [r.image_id for r in self.state.rows]
        keep, self._keep_image = self._keep_image, None
        if keep is not None and keep in ids:
            self.state.position = ids.index(keep)
            self.page.show_position(self.state.position, reread=True)
            return
        saved = self.gateway.review.setting("position")
        start = ids.index(int(saved)) if saved and int(saved) in ids else 0
        self.state.position = -1
        if self.state.rows:
            self.page.show_position(start)

    # -- change notices ------------------------------------------------------------------------
    def _on_change_notice(self, settle_ms: int = SETTLE_MS) -> None:
        if self.gateway.is_open and not (self._settle.isActive()
                                         and self._settle.remainingTime() <= settle_ms):
            self._settle.start(settle_ms)

    def refresh(self) -> None:
        """Recompute the queue and show the current image again from the file (or, while the
        tab is hidden, do so when it is shown)."""
        if not self.gateway.is_open:
            return
        if not self.page.isVisible():
            self.stale = True
            return
        self.stale = False
        self.page.prefetcher.cancel()  # prepared overlays may hold what changed
        row = self.state.row
        if row is not None:
            self._keep_image = row.image_id
        self.recompute()

    def _on_review_changed(self, image_id: int) -> None:
        self.page.prefetcher.forget(image_id)
        for k, row in enumerate(self.state.rows):
            if row.image_id == image_id:
                status = self.gateway.review.status(row.annotation_ids)
                self.state.rows[k] = dataclasses.replace(row, status=status)
                self.page.queue_panel.update_row(k, self.state.rows[k])
                if k == self.state.position:
                    self.state.review = self.gateway.review.image(image_id, row.annotation_ids)
                    self.page.redraw(keep_view=True)

    def after_refused(self) -> bool:
        """After a decision the file refused: reload when the annotation had changed since it
        was shown (the message says so); returns whether it had."""
        error = self.gateway.review.history.error
        if not isinstance(error, ChangedSinceShown):
            return False
        self.page.panel.message.setText(str(error))
        self.refresh()
        return True
