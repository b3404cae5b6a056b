"""The Review tab: the ranked queue (left), the image with every annotator's outlines, the
heat map and the boxes (centre), and the decisions panel (right).

Flow: the queue's features are computed (or read from the cache) by a
:class:`~slicereview.gui.common.workers.ReviewFeaturesWorker` in its own thread and project
connection, with a progress bar and Cancel; the rows are ranked in the GUI thread. Each
decision or pin is one undoable command (``gateway.decide`` / ``add_pin`` / ``accept_all``
through this page's ``QUndoStack``) and carries the active review time of an
:class:`~slicereview.gui.common.active_time.IdleClock` (it pauses after a minute without input, and
while the tab is hidden or the window inactive). The reviewer, the filters, the budget and the
queue position (an image id) are remembered in the project's meta, so reopening the project
comes back to the same image. The next queue image is decoded and its overlay computed ahead
of time, off the GUI thread (:class:`~.prefetch.ReviewPrefetcher`).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.review.image import ReviewImage
from slicereview.app.review.queue import QueueRow
from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.workers import ReviewFeaturesWorker
from slicereview.gui.review.actions import ReviewActions
from slicereview.gui.review.consensus import ConsensusLayer
from slicereview.gui.review.decisions_panel import ReviewDecisionsPanel
from slicereview.gui.review.keys import ReviewKeys
from slicereview.gui.review.overlay import ReviewOverlay
from slicereview.gui.review.panes import SideBySide
from slicereview.gui.review.prefetch import ReviewPrefetcher
from slicereview.gui.review.queue_panel import ReviewQueuePanel
from slicereview.gui.review.refresh import ReviewRefresh

HEAT_MODES = ("off", "relaxed", "strict")


class ReviewPage(ReviewRefresh, ReviewActions, QWidget):
    """The Review tab (see the module docstring). The image list is hidden here: the queue
    is this tab's list of images; :attr:`image_shown` names the image on screen (the main
    window's status bar shows it)."""

    hides_browser = True
    #: The image shown changed: "case id   description" ("" when none).
    image_shown = Signal(str)

    def __init__(self, gateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.rows: list[QueueRow] = []
        self.position = -1
        self.review: ReviewImage | None = None
        self.box_index: int | None = None
        self.pin_mode = False
        self.worker: ReviewFeaturesWorker | None = None
        self._spec = None
        self.stack = QUndoStack(self)
        self.clock = IdleClock(self)
        self.prefetcher = ReviewPrefetcher(gateway, self)
        self.keys = ReviewKeys(self, self.hold_overlays)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.reviewer_box = QComboBox()
        self.reviewer_box.setToolTip("Who is reviewing (a rater with the reviewer role)")
        self.new_reviewer_button = QPushButton("New…")
        self.new_reviewer_button.clicked.connect(self.ask_new_reviewer)
        self.level_box = QComboBox()
        self.level_box.addItems(["relaxed", "strict"])
        self.level_box.setToolTip("Boxes and α of the box list: relaxed (certain or uncertain "
                                  "pixels) or strict (certain only)")
        self.heat_box = QComboBox()
        self.heat_box.addItems([f"heat map: {m}" for m in HEAT_MODES])
        self.heat_box.setToolTip("Per pixel, how many annotators marked it (M cycles)")
        self.side_box = QCheckBox("Side by side (S)")
        self.hover_label = QLabel()
        self.queue_panel = ReviewQueuePanel()
        self.view = ImageView()
        self.overlay = ReviewOverlay(self.view)
        self.consensus = ConsensusLayer(self.view)  # majority vote / STAPLE (K)
        self.panes = SideBySide()
        self.centre = QStackedWidget()
        self.centre.addWidget(self.view)
        self.centre.addWidget(self.panes)
        self.panel = ReviewDecisionsPanel()
        self._build()
        self._wire()
        self._install_refresh()  # change notices → queue and image re-read (review_refresh.py)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()

    def _build(self) -> None:
        top = QHBoxLayout()
        for w in (QLabel("Reviewer:"), self.reviewer_box, self.new_reviewer_button,
                  self.level_box, self.heat_box, self.consensus.box, self.side_box,
                  self.consensus.summary):
            top.addWidget(w)
        top.addStretch(1)
        top.addWidget(self.hover_label)
        scroll = QScrollArea()
        scroll.setWidget(self.panel)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(350)
        splitter = QSplitter()
        splitter.addWidget(self.queue_panel)
        splitter.addWidget(self.centre)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([440, 760, 370])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    def _wire(self) -> None:
        g, q, p = self.gateway, self.queue_panel, self.panel
        g.project_opened.connect(self._on_project_opened)
        g.project_about_to_close.connect(self._on_project_closing)
        g.review_changed.connect(self._on_review_changed)
        g.raters_changed.connect(self._fill_reviewers)
        self.reviewer_box.activated.connect(self._on_reviewer_chosen)
        q.spec_changed.connect(self.recompute)
        q.row_chosen.connect(self.show_position)
        q.budget_changed.connect(lambda v: g.set_review_setting("budget", v))
        q.cancel_requested.connect(self.cancel_compute)
        self.level_box.currentIndexChanged.connect(lambda _i: self._redraw(keep_view=True))
        self.heat_box.currentIndexChanged.connect(self._on_heat)
        self.side_box.toggled.connect(self._on_side_by_side)
        p.annotator_toggled.connect(self.set_annotator_visible)
        p.box_chosen.connect(self.go_to_box)
        p.decision_requested.connect(self._decide)
        p.accept_all_requested.connect(self.accept_all_and_next)
        p.pin_requested.connect(self._pin_button)
        scene = self.view.graphics.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    # -- project and reviewer --------------------------------------------------------------
    def image_views(self) -> list[ImageView]:
        return self.panes.image_views() if self.side_box.isChecked() else [self.view]

    @property
    def reviewer_id(self) -> int | None:
        return self.reviewer_box.currentData()

    def _fill_reviewers(self) -> None:
        if not self.gateway.is_open:
            return
        saved = self.gateway.review_setting("reviewer")
        blocker = self.reviewer_box.blockSignals(True)
        self.reviewer_box.clear()
        for r in self.gateway.reviewers():
            self.reviewer_box.addItem(r.name, r.id)
        index = self.reviewer_box.findData(int(saved)) if saved else -1
        self.reviewer_box.setCurrentIndex(index)
        self.reviewer_box.blockSignals(blocker)

    def _on_reviewer_chosen(self, _index: int) -> None:
        if self.reviewer_id is not None:
            self.gateway.set_review_setting("reviewer", self.reviewer_id)

    def _on_project_opened(self, _path: str) -> None:
        g = self.gateway
        self._fill_reviewers()
        self.queue_panel.set_groups(g.annotator_groups())
        self.queue_panel.set_spec(g.review_setting("method", "box-score"),
                                  g.review_setting("phase", "formal"),
                                  int(g.review_setting("round", "0")),
                                  g.review_setting("group") or None)
        self.queue_panel.set_budget(int(g.review_setting("budget", "20")))
        self.recompute()

    def _on_project_closing(self) -> None:
        self.cancel_compute()
        self.prefetcher.cancel()
        self.stack.clear()
        self.rows, self.position, self.review = [], -1, None
        self.queue_panel.set_rows([])
        self.overlay.clear()
        self.view.clear()
        self.panel.set_review(None, "relaxed", None)
        self.image_shown.emit("")

    def clear_undo(self) -> None:
        self.stack.clear()

    # -- the queue -------------------------------------------------------------------------
    def recompute(self) -> None:
        """Compute the queue of the current filters in a worker (cached features are quick)."""
        if not self.gateway.is_open:
            return
        self.cancel_compute()
        spec = self._spec = self.queue_panel.spec()
        for key, value in (("method", spec.method), ("phase", spec.phase),
                           ("round", spec.round or 0), ("group", spec.group or "")):
            self.gateway.set_review_setting(key, value)
        worker = ReviewFeaturesWorker(self.gateway.open_project.location, spec)
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_computed)
        worker.failed.connect(self._on_compute_failed)
        self.queue_panel.set_busy(True)
        self.worker = worker
        self._thread = worker.start()

    def cancel_compute(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.worker.finished.disconnect(self._on_computed)
            self._thread.quit()
            self._thread.wait(30000)
            self.worker = None
            self.queue_panel.set_busy(False)

    def _on_progress(self, done: int, total: int, _what: str) -> None:
        self.queue_panel.set_busy(True, done, total)

    def _on_compute_failed(self, message: str) -> None:
        self.worker = None
        self.queue_panel.set_busy(False)
        self.panel.message.setText(f"The queue could not be computed: {message}")

    def _on_computed(self, result: object) -> None:
        self.worker = None
        self.queue_panel.set_busy(False)
        if not self.gateway.is_open:
            return
        self.rows = self.gateway.review_rows(self._spec, result)
        self.queue_panel.set_rows(self.rows, len(result.not_enough))
        if result.cancelled:
            self.panel.message.setText("Feature computation cancelled: the queue holds the "
                                       "images computed so far.")
        self._show_after_compute()  # the image shown before a refresh, else the saved one

    # -- showing ---------------------------------------------------------------------------
    def show_position(self, position: int, reread: bool = False) -> None:
        """Show queue row ``position`` (``reread``: from the file, never a prepared overlay)."""
        if not (0 <= position < len(self.rows)):
            return
        keep = position == self.position
        self.position = position
        row = self.rows[position]
        self.queue_panel.select(position)
        self.gateway.set_review_setting("position", row.image_id)
        prepared = None if reread else self.prefetcher.take(row.image_id, row.annotation_ids)
        self.review = prepared or self.gateway.review_image(row.image_id, row.annotation_ids)
        self.box_index = None
        self._redraw(keep_view=keep)
        nxt = [self.rows[i] for i in (position + 1, position + 2) if i < len(self.rows)]
        self.prefetcher.prefetch([(r.image_id, r.annotation_ids) for r in nxt])

    def _redraw(self, keep_view: bool = False) -> None:
        if self.position < 0 or self.review is None:
            return
        row = self.rows[self.position]
        try:
            display = self.gateway.display(self.gateway.image(row.image_id))
        except Exception as exc:
            self.panel.message.setText(f"{row.case_id}: cannot show this image — {exc}")
            self.image_shown.emit(f"{row.case_id}: cannot show this image")
            return
        self.image_shown.emit(f"{row.case_id}   {display.description}")
        level = self.level_box.currentText()
        if self.side_box.isChecked():
            self.panes.show_review(display, self.review, level, keep_view)
        else:
            if not keep_view or self.view.display is not display:
                self.view.set_image(display, keep_view=keep_view)
            self.overlay.set_review(self.review, level)
            self.consensus.set_review(self.review, level)
        self.panel.set_review(self.review, level, row.features, keep_selection=keep_view)
        self.overlay.mark_box(None)

    def overlays(self) -> list[ReviewOverlay]:
        return self.panes.overlays() if self.side_box.isChecked() else [self.overlay]

    @property
    def heat_mode(self) -> str:
        return HEAT_MODES[self.heat_box.currentIndex()]

    def _on_heat(self, _index: int) -> None:
        for overlay in self.overlays():
            overlay.set_heat_mode(self.heat_mode)

    def cycle_heat(self) -> None:
        self.heat_box.setCurrentIndex((self.heat_box.currentIndex() + 1) % len(HEAT_MODES))

    def cycle_consensus(self) -> None:
        self.consensus.cycle()

    def _on_side_by_side(self, on: bool) -> None:
        self.centre.setCurrentWidget(self.panes if on else self.view)
        self._redraw()

    def toggle_side_by_side(self) -> None:
        self.side_box.toggle()

    def set_annotator_visible(self, index: int, visible: bool) -> None:
        self.overlay.set_annotator_visible(index, visible)

    def hold_overlays(self, held: bool) -> None:
        for overlay in self.overlays():
            overlay.hold_hidden(held)
        self.consensus.hold_hidden(held)

    # -- navigation ------------------------------------------------------------------------
    def next_image(self) -> None:
        self.clock.touch()
        self.show_position(self.position + 1)

    def previous_image(self) -> None:
        self.clock.touch()
        self.show_position(self.position - 1)

    def next_box(self) -> None:
        self._step_box(+1)

    def previous_box(self) -> None:
        self._step_box(-1)

    def _step_box(self, step: int) -> None:
        if self.review is None:
            return
        boxes = self.review.boxes(self.level_box.currentText())
        if not boxes:
            return
        start = -1 if step > 0 else 0
        current = start if self.box_index is None else self.box_index
        self.go_to_box((current + step) % len(boxes))

    def go_to_box(self, index: int) -> None:
        """Zoom to box ``index`` of the worst-first list, with a margin around it."""
        if self.review is None:
            return
        boxes = self.review.boxes(self.level_box.currentText())
        if not 0 <= index < len(boxes):
            return
        self.clock.touch()
        self.box_index = index
        r0, c0, r1, c1 = boxes[index].box
        margin = max(16.0, 0.6 * max(r1 - r0, c1 - c0))
        self.image_views()[0].viewbox.setRange(xRange=(c0 - margin, c1 + margin),
                                               yRange=(r0 - margin, r1 + margin), padding=0)
        self.overlay.mark_box(boxes[index].box)
        self.panel.select_box(index)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        self.clock.touch()
        if self.overlay.heat_mode == "off" or not self.view.viewbox.sceneBoundingRect(
                ).contains(pos):
            self.hover_label.setText("")
            return
        point = self.view.viewbox.mapSceneToView(pos)
        self.hover_label.setText(self.overlay.hover_text(point.x(), point.y()))

    # -- clock and keys --------------------------------------------------------------------
    def _tick(self) -> None:
        window = self.window()
        self.clock.set_running(self.isVisible() and window is not None
                               and window.isActiveWindow() and self.review is not None)

    def showEvent(self, event) -> None:
        QApplication.instance().installEventFilter(self.keys)
        super().showEvent(event)  # (a stale tab refreshes: review_refresh.py)

    def hideEvent(self, event) -> None:
        QApplication.instance().removeEventFilter(self.keys)
        self.hold_overlays(False)
        super().hideEvent(event)
