"""The live confidence meter of a confidence session, beside its comparison or its ranking.

From top to bottom: who answers in this window (*Answering as*, when raters share the session:
each rater is shown their own pair, see :mod:`slicereview.app.rating.confidence`); the budget
spent (answers of the most the stop rule allows, comparisons per image, whether the opening sort
pass still runs); the **expected Kendall τ** of the ranking now, with the target; the images
whose **place is least certain** (expected rank ± standard deviation); the **widest 95 %
intervals** of the Bradley–Terry scores (score ± 1.96 SE); and each rater's **reliability**
(Crowd-BT η and agreement with the pooled ranking).

The first three come from the engine's posterior after every answer (milliseconds); the
intervals and the reliability need a Bradley–Terry fit and an EM, so they are computed off the
GUI thread (:class:`~slicereview.gui.common.background.Tasks`) and say which answer count they
are of; while one is computed, newer answers wait for it and then the latest state is computed
(no queue of stale work).

The calibration note under the τ is the engine's measured one (docs/rate.md): the expected τ is
conservative for a reliable rater and about 0.02 optimistic for a noisy one.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QFrame,
    QHeaderView,
    QLabel,
    QProgressBar,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.rating.confidence import ConfidenceRun, MeterDetails
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.settings import acting_annotator
from slicereview.gui.gateway import ProjectGateway
from slicereview.shares import percent

CALIBRATION = ("Expected τ: the mean over image pairs of how sure the model is of their order "
               "(2 P(right order) − 1). Measured against simulated raters it is conservative "
               "for a reliable rater (0.946 when the true τ was 0.970) and about 0.02 "
               "optimistic for a noisy one (0.921 for 0.895): with a noisy rater, aim 0.02 "
               "higher. `slicereview plan-rating` budgets for a measured noise.")

RATERS = ("Crowd-BT reliability η: the share of a rater's answers that follow the model rather "
          "than its reverse, beyond the noise the model already allows — 1: answers as the "
          "pooled ranking says, 0.5: a coin, below 0.5: answering the opposite question. An "
          "honest but noisy rater keeps η near 1; their lower agreement (the share of their "
          "decided answers that agree with the pooled ranking) shows the noise. With one rater "
          "η is their consistency; it takes three raters to tell which of two disagreeing ones "
          "is off.")


def _f(x: float, digits: int = 3) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.{digits}f}"


class ConfidenceMeter(QWidget):
    """Shows one confidence session's meter; :meth:`show_session` picks the session (other
    kinds hide it)."""

    #: The rater answering in this window changed (carries the session id).
    rater_changed = Signal(int)

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.session_id: int | None = None
        self._busy = False
        self.tasks = Tasks(self)
        self.tasks.done.connect(self._on_details)
        self.tasks.failed.connect(self._on_failed)

        title = QLabel("<b>Confidence</b>")
        self.rater = QComboBox()
        self.rater.setObjectName("confidence_rater")
        self.rater.setToolTip("Who is answering in this window: each rater sharing the session "
                              "is shown a pair of their own")
        self.rater.activated.connect(self._on_rater)
        self.rater_label = QLabel("Answering as")
        self.budget = QProgressBar()
        self.budget.setObjectName("confidence_budget")
        self.budget.setTextVisible(True)
        self.phase = QLabel()
        self.phase.setWordWrap(True)
        self.tau = QLabel()
        self.tau.setObjectName("confidence_tau")
        font = QFont(self.tau.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.tau.setFont(font)
        self.tau.setToolTip(CALIBRATION)
        self.target = QLabel()
        self.target.setWordWrap(True)
        self.note = QLabel("Conservative for a reliable rater, ~0.02 optimistic for a noisy "
                           "one (hover for more).")
        self.note.setWordWrap(True)
        self.note.setToolTip(CALIBRATION)
        self.note.setStyleSheet("color: palette(mid)")
        self.least = QLabel()
        self.least.setObjectName("confidence_least")
        self.least.setTextFormat(Qt.TextFormat.RichText)
        self.widest = QLabel()
        self.widest.setObjectName("confidence_widest")
        self.widest.setTextFormat(Qt.TextFormat.RichText)
        self.raters = QTableWidget(0, 4)
        self.raters.setObjectName("confidence_raters")
        self.raters.setHorizontalHeaderLabels(["Rater", "Answers", "η", "Agrees"])
        self.raters.verticalHeader().hide()
        self.raters.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.raters.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.raters.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.raters.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.raters.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.raters.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self._fit_table()
        self.raters.setToolTip(RATERS)
        self.details_state = QLabel()
        self.details_state.setWordWrap(True)

        who = QFormLayout()
        who.addRow(self.rater_label, self.rater)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addWidget(title)
        layout.addLayout(who)
        layout.addWidget(self.budget)
        layout.addWidget(self.phase)
        layout.addWidget(self.tau)
        layout.addWidget(self.target)
        layout.addWidget(self.note)
        layout.addWidget(QLabel("<b>Least certain places</b> (rank ± SD)"))
        layout.addWidget(self.least)
        layout.addWidget(QLabel("<b>Widest intervals</b> (BT score ± 1.96 SE)"))
        layout.addWidget(self.widest)
        layout.addWidget(QLabel("<b>Raters</b> (Crowd-BT)"))
        layout.addWidget(self.raters)
        layout.addWidget(self.details_state)
        layout.addStretch(1)
        for label in content.findChildren(QLabel):
            label.setWordWrap(True)
            label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        scroll = QScrollArea()
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.setMinimumWidth(260)
        gateway.rating.answer_recorded.connect(self._on_answer)
        gateway.changed_elsewhere.connect(self._on_changed_elsewhere)
        gateway.project_closed.connect(self.clear)
        self.hide()

    # -- which session ---------------------------------------------------------------------
    def run(self) -> ConfidenceRun | None:
        if self.session_id is None or not self.gateway.is_open:
            return None
        run = self.gateway.rating.run(self.session_id)
        return run if isinstance(run, ConfidenceRun) else None

    def show_session(self, session_id: int | None) -> None:
        """Show ``session_id``'s meter (hidden for other kinds); the rater of this window is
        the one chosen before, else the Annotate tab's "You are" name if they share it."""
        if session_id != self.session_id:
            self.tasks.forget()
            self._busy = False
            self.widest.clear()
            self.raters.setRowCount(0)
        self.session_id = session_id
        run = self.run()
        self.setVisible(run is not None)
        if run is None or session_id is None:
            return
        names = run.rater_names()
        me = acting_annotator()
        if self.gateway.rating.acting_rater(session_id) is None and me in names.values():
            self.gateway.rating.set_acting_rater(
                session_id, next(r for r, n in names.items() if n == me))
        blocker = self.rater.blockSignals(True)
        self.rater.clear()
        for rater_id, name in names.items():
            self.rater.addItem(name, rater_id)
        self.rater.setCurrentIndex(self.rater.findData(run.rater_id))
        self.rater.blockSignals(blocker)
        for w in (self.rater, self.rater_label):
            w.setVisible(len(names) > 1)
        self.refresh()

    def clear(self) -> None:
        self.tasks.forget()
        self._busy = False
        self.session_id = None
        self.hide()

    def _on_rater(self, _index: int) -> None:
        run = self.run()
        if run is None or self.session_id is None:
            return
        self.gateway.rating.set_acting_rater(self.session_id, int(self.rater.currentData()))
        self.rater_changed.emit(self.session_id)

    def _on_changed_elsewhere(self) -> None:
        """Answers came from another instance: the run was made again from the file."""
        if self.isVisible() and self.run() is not None:
            self.refresh()

    def _on_answer(self, session_id: int) -> None:
        if session_id == self.session_id and self.isVisible():
            self.refresh()

    # -- showing ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fill the fast half now and ask for the slow half (intervals, raters)."""
        run = self.run()
        if run is None:
            return
        m = run.meter()
        self.budget.setRange(0, m.total)
        self.budget.setValue(min(m.answers, m.total))
        self.budget.setFormat(f"{m.answers} of at most {m.total} answers")
        phase = "opening sort pass" if m.sorting else "asking the most doubtful pairs"
        state = f"finished: {m.stopped} reached" if m.stopped else phase
        self.phase.setText(f"{m.per_image:.1f} comparisons per image · {state}")
        self.tau.setText(f"expected τ {_f(m.expected_tau)}")
        goals = []
        if m.rule.target_tau is not None:
            goals.append(f"target τ ≥ {m.rule.target_tau:g}")
        if m.rule.target_rank_se is not None:
            goals.append(f"target rank SD ≤ {m.rule.target_rank_se:g} (now "
                         f"{_f(m.max_rank_se, 2)})")
        goals.append(f"budget {m.rule.per_image:g} per image"
                     + ("" if m.rule.budget_per_image is not None else " (cap)"))
        self.target.setText(" · ".join(goals))
        self.least.setText("<br>".join(
            f"{self.gateway.image(i).case_id} &nbsp; {rank:.1f} ± {sd:.1f}"
            for i, rank, sd in m.least_certain) or "—")
        self._ask_details(run)

    def _ask_details(self, run: ConfidenceRun) -> None:
        if self._busy:
            return  # the result in work is shown first; then the latest state is asked for
        self._busy = True
        self.details_state.setText(f"computing intervals and reliability of "
                                   f"{run.answer_count} answers…")
        self.tasks.submit((self.session_id, run.answer_count), run.details_input().compute)

    def _on_details(self, key: object, details: MeterDetails) -> None:
        self._busy = False
        assert isinstance(key, tuple)
        session_id, answers = key
        run = self.run()
        if run is None or session_id != self.session_id:
            return
        self.widest.setText("<br>".join(
            f"{self.gateway.image(i).case_id} &nbsp; {score:+.2f} ± {1.96 * se:.2f}"
            for i, score, se in details.widest) or "—")
        self.raters.setRowCount(len(details.raters))
        for row, line in enumerate(details.raters):
            agrees = "—" if math.isnan(line.agreement) else percent(line.agreement, 0)
            cells = (line.name, str(line.answers), _f(line.eta), agrees)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{line.name}: {line.answers} answers, η {_f(line.eta)}, "
                                f"{agrees} agree with the pooled ranking" if col == 0
                                else RATERS)
                self.raters.setItem(row, col, item)
        self._fit_table()
        self.details_state.setText(f"intervals and reliability of {answers} answers")
        if run.answer_count != answers:
            self._ask_details(run)

    def _fit_table(self) -> None:
        """As tall as its rows (the scroll area scrolls, not the table)."""
        height = self.raters.horizontalHeader().height() + 2 * self.raters.frameWidth()
        height += sum(self.raters.rowHeight(r) for r in range(self.raters.rowCount()))
        self.raters.setFixedHeight(max(height, self.raters.horizontalHeader().height() + 8))

    def _on_failed(self, _key: object, message: str) -> None:
        self._busy = False
        self.details_state.setText(f"Could not compute the intervals: {message}")

    def wait(self, msecs: int = 30000) -> None:
        """Block until the slow half is computed (tests and screenshots)."""
        self.tasks.wait(msecs)
