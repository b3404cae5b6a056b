"""The Review tab stays true to the file (a mixin of the ReviewPage).

* **every change notice refreshes** — a change from elsewhere (another window or instance, a
  merged work package: the gateway's ``changed_elsewhere``) or an annotation edited in this
  window (``annotation_changed``) recomputes the queue (its selection — each annotator's latest
  finished round — may now hold other annotations) and re-reads the image shown, keeping the
  image and the zoom when it is still in the queue. Notices are gathered for a moment
  (:data:`SETTLE_MS`) and a hidden tab refreshes when it is shown again;
* **only what was seen is decided** — a decision carries each annotation's edit stamp as it was
  shown (:func:`slicereview.app.review.decisions.check_shown`); when the application layer
  refuses it because the annotation changed, the page says so and reloads.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QTimer

from slicereview.app.review.decisions import ChangedSinceShown

#: Change notices within this many milliseconds are one refresh.
SETTLE_MS = 250


class ReviewRefresh:
    """Needs the page's gateway, rows, position, review, prefetcher, queue_panel, panel."""

    _stale = False
    _keep_image: int | None = None

    def _install_refresh(self) -> None:
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.refresh)
        g = self.gateway
        g.changed_elsewhere.connect(self._on_change_notice)
        g.annotation_changed.connect(lambda _image, _annotation: self._on_change_notice())
        g.write_failed.connect(self._on_write_failed)

    def _on_change_notice(self) -> None:
        if self.gateway.is_open:
            self._settle.start()

    def refresh(self) -> None:
        """Recompute the queue and show the current image again from the file (or, while the
        tab is hidden, do so when it is shown)."""
        if not self.gateway.is_open:
            return
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        self.prefetcher.cancel()  # prepared overlays may hold what changed
        if 0 <= self.position < len(self.rows):
            self._keep_image = self.rows[self.position].image_id
        self.recompute()

    def _show_after_compute(self) -> None:
        """Show the image kept by :meth:`refresh` (same zoom, re-read), else the saved one."""
        ids = [r.image_id for r in self.rows]
        keep, self._keep_image = self._keep_image, None
        if keep is not None and keep in ids:
            self.position = ids.index(keep)
            self.show_position(self.position, reread=True)
            return
        saved = self.gateway.review_setting("position")
        start = ids.index(int(saved)) if saved and int(saved) in ids else 0
        self.position = -1
        if self.rows:
            self.show_position(start)

    def _on_review_changed(self, image_id: int) -> None:
        self.prefetcher.forget(image_id)
        for k, row in enumerate(self.rows):
            if row.image_id == image_id:
                status = self.gateway.review_status(row.annotation_ids)
                self.rows[k] = dataclasses.replace(row, status=status)
                self.queue_panel.update_row(k, self.rows[k])
                if k == self.position:
                    self.review = self.gateway.review_image(image_id, row.annotation_ids)
                    self._redraw(keep_view=True)

    def _on_write_failed(self, message: str) -> None:
        if self.isVisible():
            self.panel.message.setText(message)

    def after_refused(self) -> bool:
        """After a decision the file refused: reload when the annotation had changed since it
        was shown (the message says so); returns whether it had."""
        error = getattr(self.gateway, "last_error", None)
        if not isinstance(error, ChangedSinceShown):
            return False
        self.panel.message.setText(str(error))
        self.refresh()
        return True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()
