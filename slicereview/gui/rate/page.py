"""The "Rate" tab: the project's rating sessions, the comparison view, results, reliability.

Left: the rating sessions (name; kind and image set; answered and state; the rater and prompt
in the tooltip) with *New session…*, *Second pass*, *Reliability…* and *Pooled ranking…*. Right,
depending on the selection: the comparison view of an unfinished session (it resumes exactly
where it stopped: the engine replays the stored answers), the ranking grid of a finished one,
the reliability panel, or the pooled ranking of chosen sessions of one image set.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.rating.sessions import NewSessionSpec, SessionSummary
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.rate.compare_view import CompareView
from slicereview.gui.rate.confidence_meter import ConfidenceMeter
from slicereview.gui.rate.confirm import confirm_undo
from slicereview.gui.rate.dialogs import NewSessionDialog
from slicereview.gui.rate.pooled_panel import PooledPanel
from slicereview.gui.rate.ranking_grid import RankingGrid
from slicereview.gui.rate.reliability_panel import ReliabilityPanel
from slicereview.model import SessionKind

ID_ROLE = Qt.ItemDataRole.UserRole + 1
INFO_ROLE = Qt.ItemDataRole.UserRole + 2
HINT = ("<h3>Rating</h3><p>Choose a session on the left to continue it (it resumes exactly "
        "where it stopped) or to see its ranking, or make a <b>New session…</b></p>"
        "<p>Keys while comparing: <b>←</b> left shows more, <b>→</b> right shows more, "
        "<b>↓</b> or <b>Space</b> no difference, <b>1–9</b> grades, <b>Backspace</b> or "
        "<b>Ctrl+Z</b> undo; <b>B</b>/<b>Shift+B</b> brighter/darker, <b>C</b>/<b>Shift+C"
        "</b> more/less contrast.</p>")


class RatePage(QWidget):
    #: The main window hides its image list (file names, thumbnails) while rating.
    hides_browser = True

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.sessions_list = QListWidget()
        self.sessions_list.setObjectName("rating_sessions")
        self.sessions_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.sessions_list.setWordWrap(True)
        self.sessions_list.setAlternatingRowColors(True)
        self.sessions_list.itemSelectionChanged.connect(self._on_selection)
        self.new_button = QPushButton("New session…")
        self.new_button.clicked.connect(self.on_new_session)
        self.pass_button = QPushButton("Second pass")
        self.pass_button.setToolTip("Rank a finished sort session's images again, in a new "
                                    "random order")
        self.pass_button.clicked.connect(lambda: self.second_pass(self.selected_id()))
        self.reliability_button = QPushButton("Reliability…")
        self.reliability_button.setToolTip("Agreement between finished sessions")
        self.reliability_button.clicked.connect(self.show_reliability)
        self.pooled_button = QPushButton("Pooled ranking…")
        self.pooled_button.setToolTip("One Bradley–Terry ranking over the answers of several "
                                      "sort/exhaustive sessions of one image set (raters, "
                                      "passes), with confidence intervals")
        self.pooled_button.clicked.connect(self.show_pooled)

        self.hint = QLabel(HINT)
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.hint.setMargin(16)
        self.compare = CompareView(gateway)
        self.compare.finished.connect(self._on_finished)
        self.grid = RankingGrid(gateway)
        self.grid.undo_requested.connect(self._undo_finished)
        self.grid.second_pass_requested.connect(self.second_pass)
        self.reliability = ReliabilityPanel(gateway)
        self.pooled = PooledPanel(gateway)
        self.stack = QStackedWidget()
        for w in (self.hint, self.compare, self.grid, self.reliability, self.pooled):
            self.stack.addWidget(w)
        self.meter = ConfidenceMeter(gateway)
        self.meter.rater_changed.connect(self.open_session)

        buttons = QHBoxLayout()
        for b in (self.new_button, self.pass_button):
            buttons.addWidget(b)
        results = QHBoxLayout()
        for b in (self.reliability_button, self.pooled_button):
            results.addWidget(b)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.sessions_list, 1)
        left.addLayout(buttons)
        left.addLayout(results)
        left_box = QWidget()
        left_box.setLayout(left)
        left_box.setMaximumWidth(420)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left_box)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.meter)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([250, 1000, 280])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

        gateway.project_opened.connect(self.refresh)
        gateway.project_closed.connect(self._on_closed)
        gateway.rating.sessions_changed.connect(self.refresh)
        gateway.rating.answer_recorded.connect(self._update_row)
        self.refresh()

    # -- main window hooks -----------------------------------------------------------------
    def image_views(self) -> list[ImageView]:
        return self.compare.image_views() if self.stack.currentWidget() is self.compare else []

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.stack.currentWidget() is self.compare:
            self.compare.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- session list ----------------------------------------------------------------------
    def refresh(self, *_args: object) -> None:
        keep = self.selected_id()
        blocker = self.sessions_list.blockSignals(True)
        self.sessions_list.clear()
        for row in self.gateway.rating.overview():
            item = QListWidgetItem()
            item.setData(ID_ROLE, row.session.id)
            self.sessions_list.addItem(item)
            self._set_text(item, row.answered, row.finished, row)
        self.sessions_list.blockSignals(blocker)
        if keep is not None:
            self.select(keep, open_it=False)
        self._update_buttons()

    def _set_text(self, item: QListWidgetItem, answered: int, finished: bool,
                  row: SessionSummary | None = None) -> None:
        """Two lines: the name, then kind · rater · image set · answered · state."""
        if row is not None:
            s = row.session
            item.setData(INFO_ROLE, (s.name, str(s.kind), row.rater,
                                     f"{row.image_set} ({row.images})", s.prompt))
        name, kind, rater, image_set, prompt = item.data(INFO_ROLE)
        unit = "grades" if kind == "classify" else "answers"
        state = "done" if finished else "in progress"
        item.setText(f"{name}\n    {kind} · {image_set}\n    {answered} {unit} · {state}")
        item.setToolTip(f"{name}\nrater: {rater}\nkind: {kind}\nimage set: {image_set}\n"
                        f"prompt: {prompt}\n{answered} {unit}, {state}")

    def _row_of(self, session_id: int) -> int | None:
        for r in range(self.sessions_list.count()):
            if self.sessions_list.item(r).data(ID_ROLE) == session_id:
                return r
        return None

    def row_text(self, session_id: int) -> str:
        r = self._row_of(session_id)
        return "" if r is None else self.sessions_list.item(r).text()

    def _update_row(self, session_id: int) -> None:
        r = self._row_of(session_id)
        if r is None:
            return
        rs = self.gateway.rating.run(session_id)
        self._set_text(self.sessions_list.item(r), rs.answer_count, rs.done)
        self._update_buttons()

    def selected_id(self) -> int | None:
        items = self.sessions_list.selectedItems()
        return items[0].data(ID_ROLE) if items else None

    def select(self, session_id: int, open_it: bool = True) -> None:
        """Select a session's row (without the selection signal) and optionally open it."""
        r = self._row_of(session_id)
        if r is None:
            return
        blocker = self.sessions_list.blockSignals(True)
        self.sessions_list.setCurrentRow(r)
        self.sessions_list.blockSignals(blocker)
        if open_it:
            self.open_session(session_id)
        self._update_buttons()

    def _on_selection(self) -> None:
        sid = self.selected_id()
        if sid is not None and self.gateway.is_open:
            self.open_session(sid)
        self._update_buttons()

    def _update_buttons(self) -> None:
        sid = self.selected_id()
        ok = False
        if sid is not None and self.gateway.is_open:
            rs = self.gateway.rating.run(sid)
            ok = rs.kind == SessionKind.SORT and rs.done
        self.pass_button.setEnabled(ok)
        self.new_button.setEnabled(self.gateway.is_open)
        self.reliability_button.setEnabled(self.gateway.is_open)
        self.pooled_button.setEnabled(self.gateway.is_open)

    def _on_closed(self) -> None:
        blocker = self.sessions_list.blockSignals(True)  # no project: nothing to open
        self.sessions_list.clear()
        self.sessions_list.blockSignals(blocker)
        self.compare.session_id = None
        self.compare.current = None
        self.stack.setCurrentWidget(self.hint)
        self._update_buttons()

    # -- pages -----------------------------------------------------------------------------
    def open_session(self, session_id: int) -> None:
        """Show the session: its next comparison, or its ranking when finished."""
        self.meter.show_session(session_id)
        sizes = self.splitter.sizes()
        if self.meter.isVisible() and sizes[2] < self.meter.minimumWidth():
            meter = max(self.meter.minimumWidth(), self.meter.sizeHint().width())
            self.splitter.setSizes([sizes[0], max(200, sizes[1] - meter), meter])
        if self.gateway.rating.run(session_id).done:
            self.grid.show_session(session_id)
            self.stack.setCurrentWidget(self.grid)
        else:
            self.stack.setCurrentWidget(self.compare)
            self.compare.open(session_id)

    def _on_finished(self, session_id: int) -> None:
        self._update_row(session_id)
        self.grid.show_session(session_id)
        self.stack.setCurrentWidget(self.grid)

    def _undo_finished(self, session_id: int) -> None:
        """The ranking's *Undo last answer*: the session is finished, so ask first."""
        ok = confirm_undo(self, self.gateway, session_id)
        self.activateWindow()  # back from the comparison: the keys go to this window again
        if not ok:
            return
        rating = self.gateway.rating
        if rating.history(session_id).can_undo:
            rating.undo(session_id)
        elif not rating.remove_last_answer(session_id):
            return
        self.stack.setCurrentWidget(self.compare)
        self.compare.open(session_id)

    def show_reliability(self) -> None:
        self.meter.show_session(None)
        self.reliability.refresh()
        self.stack.setCurrentWidget(self.reliability)
        self.reliability.compute()

    def show_pooled(self) -> None:
        """The pooled ranking of the image set with most pairwise sessions (all ticked)."""
        self.meter.show_session(None)
        self.pooled.refresh()
        self.stack.setCurrentWidget(self.pooled)
        if self.pooled.checked():
            self.pooled.compute()

    # -- making sessions -------------------------------------------------------------------
    def on_new_session(self) -> None:
        rating = self.gateway.rating
        dialog = NewSessionDialog(rating.rater_names(), rating.image_sets(),
                                  len(self.gateway.images()), self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.create_session(dialog.spec())

    def create_session(self, spec: NewSessionSpec) -> int | None:
        try:
            session_id = self.gateway.rating.create_session(spec)
        except (ValueError, KeyError) as exc:
            QMessageBox.warning(self, "New rating session", str(exc))
            return None
        self.select(session_id)
        return session_id

    def second_pass(self, session_id: int | None) -> int | None:
        if session_id is None:
            return None
        try:
            new_id = self.gateway.rating.second_pass(session_id)
        except ValueError as exc:
            QMessageBox.warning(self, "Second pass", str(exc))
            return None
        self.select(new_id)
        return new_id
