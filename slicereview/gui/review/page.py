"""The Review tab: the ranked queue (left), the image with every annotator's outlines, the
heat map and the boxes (centre), and the decisions panel (right).

The page is composed of parts around one Qt-free :class:`~.state.ReviewState` (the queue, the
row on screen, its review values): :class:`~.refresh.QueueLoader` computes the queue off the
GUI thread and keeps it true to the file, :class:`~.actions.ReviewActions` makes decisions and
pins (each one undoable command through ``gateway.review``, carrying the active review time of
an :class:`~slicereview.gui.common.active_time.IdleClock`: it pauses after a minute without
input, and while the tab is hidden or the window inactive), :class:`~.keys.ReviewKeys` routes
the review keys, :class:`~.overlay.ReviewOverlay` and :class:`~.consensus.ConsensusLayer` draw.
The reviewer, filters, budget and queue position (an image id) are kept in the project's meta,
so reopening comes back to the same image. The next queue image is decoded and its overlay
computed ahead of time, off the GUI thread (:class:`~.prefetch.ReviewPrefetcher`).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.review.actions import ReviewActions
from slicereview.gui.review.consensus import ConsensusLayer
from slicereview.gui.review.decisions_panel import ReviewDecisionsPanel
from slicereview.gui.review.keys import ReviewKeys
from slicereview.gui.review.model_layer import ModelLayer
from slicereview.gui.review.overlay import ReviewOverlay
from slicereview.gui.review.panes import SideBySide, shares
from slicereview.gui.review.prefetch import ReviewPrefetcher
from slicereview.gui.review.queue_panel import ReviewQueuePanel
from slicereview.gui.review.refresh import QueueLoader
from slicereview.gui.review.state import ReviewState
from slicereview.model import Role

HEAT_MODES = ("off", "relaxed", "strict")
#: The image's histogram shows on a page this wide or more (docs/review.md, "Reviewing in the app").
HISTOGRAM_FROM_PX = 1500


class ReviewPage(QWidget):
    """The Review tab (see the module docstring). The image list is hidden here: the queue
    is this tab's list of images; :attr:`image_shown` names the image on screen (the main
    window's status bar shows it)."""

    hides_browser = True
    #: The image shown changed: "case id   description" ("" when none).
    image_shown = Signal(str)

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.state = ReviewState()
        self.clock = IdleClock(self)
        self.prefetcher = ReviewPrefetcher(gateway, self)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.reviewer_box = QComboBox()
        self.reviewer_box.setToolTip("Who is reviewing (a rater with the reviewer role)")
        self.new_reviewer_button = QPushButton("New…")
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
        self.model = ModelLayer(self.view, self.queue_panel.model_box,
                                gateway.review.load_model_view)  # the model's outline (O)
        self.toggle_model = self.model.toggle.toggle  # (key O, gui/review/keys.py)
        self.panes = SideBySide()
        self.centre = QStackedWidget()
        self.centre.addWidget(self.view)
        self.centre.addWidget(self.panes)
        self.panel = ReviewDecisionsPanel()
        self.loader = QueueLoader(self)
        self.decisions = ReviewActions(self)
        self.keys = ReviewKeys(self, self.hold_overlays)
        self._build()
        self._wire()
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()

    def _build(self) -> None:
        top = QHBoxLayout()
        for w in (QLabel("Reviewer:"), self.reviewer_box, self.new_reviewer_button,
                  self.level_box, self.heat_box, self.consensus.box, self.model.toggle,
                  self.side_box, self.consensus.summary):
            top.addWidget(w)
        top.addStretch(1)
        top.addWidget(self.hover_label)
        self.panel.sections.insertWidget(3, self.model.group)  # (under the boxes)
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
        self.splitter, self._sized = splitter, False  # (sized when first shown: shares())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    def _wire(self) -> None:
        g, q, p, a = self.gateway, self.queue_panel, self.panel, self.decisions
        g.project_opened.connect(self.on_project_opened)
        g.project_about_to_close.connect(self._on_project_closing)
        g.raters_changed.connect(self.fill_reviewers)
        g.write_failed.connect(self._on_write_failed)
        self.new_reviewer_button.clicked.connect(a.ask_new_reviewer)
        self.reviewer_box.activated.connect(self._on_reviewer_chosen)
        q.spec_changed.connect(self.loader.recompute)
        q.row_chosen.connect(self.show_position)
        q.budget_changed.connect(lambda v: g.review.set_setting("budget", v))
        q.cancel_requested.connect(self.loader.cancel)
        self.level_box.currentIndexChanged.connect(lambda _i: self.redraw(keep_view=True))
        self.heat_box.currentIndexChanged.connect(self._on_heat)
        self.side_box.toggled.connect(self._on_side_by_side)
        p.annotator_toggled.connect(self.overlay.set_annotator_visible)
        p.box_chosen.connect(self.go_to_box)
        p.decision_requested.connect(a.decide)
        p.accept_all_requested.connect(a.accept_all_and_next)
        p.pin_requested.connect(a.pin_button)
        p.for_everyone_requested.connect(a.for_everyone)
        scene = self.view.graphics.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(a.on_mouse_clicked)

    # -- project and reviewer --------------------------------------------------------------
    def image_views(self) -> list[ImageView]:
        return self.panes.image_views() if self.side_box.isChecked() else [self.view]

    @property
    def reviewer_id(self) -> int | None:
        data = self.reviewer_box.currentData()
        return None if data is None else int(data)

    @property
    def level(self) -> str:
        """The level of the boxes and α shown: "relaxed" or "strict"."""
        return self.level_box.currentText()

    def set_reviewer(self, name: str) -> int | None:
        """Make ``name`` (created if new) the project's reviewer."""
        return self.decisions.set_reviewer(name)

    def fill_reviewers(self) -> None:
        if not self.gateway.is_open:
            return
        saved = self.gateway.review.setting("reviewer")
        login = self.gateway.review.logged_in()  # on a server, you are your login
        if login is not None and login.role in (Role.REVIEWER, Role.OWNER):
            saved = str(login.id)
        blocker = self.reviewer_box.blockSignals(True)
        self.reviewer_box.clear()
        for r in self.gateway.review.reviewers():
            self.reviewer_box.addItem(f"{r.name} (owner)" if r.role is Role.OWNER else r.name,
                                      r.id)
        index = self.reviewer_box.findData(int(saved)) if saved else -1
        annotator = login is not None and login.role is Role.ANNOTATOR
        self.reviewer_box.setCurrentIndex(-1 if annotator else index)
        self.reviewer_box.blockSignals(blocker)
        for w in (self.reviewer_box, self.new_reviewer_button):
            w.setEnabled(not annotator)
        self.panel.set_deciding(not annotator, "Deciding is for reviewers: connect with a "
                                "reviewer's login." if annotator else "")
        if login is not None and annotator:
            self.panel.message.setText(
                f"You are connected as {login.name}, an annotator: this login sees only your "
                "own work, and deciding is for reviewers (connect with a reviewer's login).")

    def _on_reviewer_chosen(self, _index: int) -> None:
        if self.reviewer_id is not None:
            self.gateway.review.set_setting("reviewer", self.reviewer_id)

    def on_project_opened(self, _path: str = "") -> None:
        review = self.gateway.review
        self.fill_reviewers()
        self.queue_panel.set_groups(review.annotator_groups())
        self.queue_panel.set_models(review.models())
        self.queue_panel.set_spec(review.setting("method", "box-score") or "box-score",
                                  review.setting("phase", "formal") or "formal",
                                  int(review.setting("round", "0") or 0),
                                  review.setting("group") or None)
        self.queue_panel.set_budget(int(review.setting("budget", "20") or 20))
        self.loader.recompute()

    def _on_project_closing(self) -> None:
        self.loader.cancel()
        self.prefetcher.cancel()
        self.state.clear()
        self.queue_panel.set_rows([])
        self.overlay.clear()
        self.view.clear()
        self.panel.set_review(None, "relaxed", None)
        self.image_shown.emit("")

    def _on_write_failed(self, message: str) -> None:
        if self.isVisible():
            self.panel.message.setText(message)

    # -- showing ---------------------------------------------------------------------------
    def show_position(self, position: int, reread: bool = False) -> None:
        """Show queue row ``position`` (``reread``: from the file, never a prepared overlay)."""
        rows = self.state.rows
        if not (0 <= position < len(rows)):
            return
        keep = position == self.state.position
        row = rows[position]
        self.queue_panel.select(position)
        self.gateway.review.set_setting("position", row.image_id)
        prepared = None if reread else self.prefetcher.take(row.image_id, row.annotation_ids)
        self.state.show(position, prepared or self.gateway.review.image(row.image_id,
                                                                        row.annotation_ids))
        self.redraw(keep_view=keep)
        nxt = [rows[i] for i in (position + 1, position + 2) if i < len(rows)]
        self.prefetcher.prefetch([(r.image_id, r.annotation_ids) for r in nxt])

    def redraw(self, keep_view: bool = False) -> None:
        row, review = self.state.row, self.state.review
        if row is None or review is None:
            return
        try:
            display = self.gateway.display(self.gateway.image(row.image_id))
        except Exception as exc:
            self.panel.message.setText(f"{row.case_id}: cannot show this image — {exc}")
            self.image_shown.emit(f"{row.case_id}: cannot show this image")
            return
        self.image_shown.emit(f"{row.case_id}   {display.description}")
        level = self.level
        if self.side_box.isChecked():
            self.panes.show_review(display, review, level, keep_view)
        else:
            if not keep_view or self.view.display is not display:
                self.view.set_image(display, keep_view=keep_view)
            self.overlay.set_review(review, level)
            self.consensus.set_review(review, level)
            self.model.set_review(self.gateway.open_project.location, row.image_id,
                                  row.annotation_ids)
        self.panel.set_review(review, level, row.features, keep_selection=keep_view)
        self.overlay.mark_box(None)

    def overlays(self) -> list[ReviewOverlay]:
        return self.panes.overlays() if self.side_box.isChecked() else [self.overlay]

    @property
    def heat_mode(self) -> str:
        return HEAT_MODES[self.heat_box.currentIndex()]

    def _on_heat(self, _index: int) -> None:
        for overlay in self.overlays():
            overlay.set_heat_mode(self.heat_mode)

    def _on_side_by_side(self, on: bool) -> None:
        shown, hidden = (self.panes, self.view) if on else (self.view, self.panes)
        # a hidden page's minimum width (two panes' tool bars) must not widen the window
        hidden.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        shown.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.centre.setCurrentWidget(shown)
        self.redraw()

    def hold_overlays(self, held: bool) -> None:
        for overlay in self.overlays():
            overlay.hold_hidden(held)
        self.consensus.hold_hidden(held)
        self.model.hold_hidden(held)

    # -- the review keys (gui/review/keys.py calls these, or ReviewActions', by name) ----------
    def next_image(self) -> None:
        self.clock.touch()
        self.show_position(self.state.position + 1)

    def previous_image(self) -> None:
        self.clock.touch()
        self.show_position(self.state.position - 1)

    def next_box(self) -> None:
        self._step_box(+1)

    def previous_box(self) -> None:
        self._step_box(-1)

    def accept(self) -> None:
        self.decisions.decide("accept")

    def reject(self) -> None:
        self.decisions.decide("reject")

    def expert_review(self) -> None:
        self.decisions.decide("expert_review")

    def toggle_side_by_side(self) -> None:
        self.side_box.toggle()

    def cycle_heat(self) -> None:
        self.heat_box.setCurrentIndex((self.heat_box.currentIndex() + 1) % len(HEAT_MODES))

    def cycle_consensus(self) -> None:
        self.consensus.cycle()

    # -- boxes ---------------------------------------------------------------------------------
    def _step_box(self, step: int) -> None:
        if self.state.review is None:
            return
        boxes = self.state.review.boxes(self.level)
        if not boxes:
            return
        start = -1 if step > 0 else 0
        current = start if self.state.box_index is None else self.state.box_index
        self.go_to_box((current + step) % len(boxes))

    def go_to_box(self, index: int) -> None:
        """Zoom to box ``index`` of the worst-first list, with a margin around it."""
        if self.state.review is None:
            return
        boxes = self.state.review.boxes(self.level)
        if not 0 <= index < len(boxes):
            return
        self.clock.touch()
        self.state.box_index = index
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
                               and window.isActiveWindow() and self.state.review is not None)

    def showEvent(self, event: QShowEvent) -> None:
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.keys)
        super().showEvent(event)
        if not self._sized:  # (the width is known now)
            self._sized = True
            self.splitter.setSizes(shares(self.width(), self.queue_panel.minimumSizeHint().width()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.view.histogram.setVisible(self.width() >= HISTOGRAM_FROM_PX)
        if self.loader.stale:  # a change noticed while hidden
            self.loader.refresh()

    def hideEvent(self, event: QHideEvent) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.keys)
        self.hold_overlays(False)
        super().hideEvent(event)
