"""Reliability between finished rating sessions (raters or passes) over the same images.

Tick two or more finished sessions; the panel shows what ``slicereview reliability`` prints
(:func:`slicereview.app.rating.agreement.compare`): per pair Pearson r (of the scores),
Spearman ρ and Kendall τ-b (of the rankings) and ICC(2,k) (two-way random effects, absolute
agreement, mean of k raters, of the rank positions), averaged over 100 random tie-breaks when a
session has ties; per session the answer count and time per answer. Two plots: the top-N
intersection curve (N = 2..25, with the line of perfect agreement) and, for the chosen pair,
each image's rank in one session against its rank in the other (tied images get their mean
rank).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.rating.agreement import RANDOMISATIONS, compare
from slicereview.engines.ranking.reliability import OUTLIER_S, ReliabilityReport, SessionScores
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.session_checklist import SessionChecklist, results_table
from slicereview.gui.gateway import ProjectGateway

PAIR_COLUMNS = ("Sessions", "Pearson r", "Spearman ρ", "Kendall τ-b",
                "ICC(2,k) (two-way random, absolute)")
SESSION_COLUMNS = ("#", "Session", "Rater", "Answers", "Mean s", "Median s",
                   f"> {OUTLIER_S:g} s", "Total min")
COLOURS = ((31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14))


def _f(x: float, digits: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _compute(scores: list[SessionScores]) -> ReliabilityReport:
    """Worker thread: plain values in, a report out."""
    return compare(scores, randomisations=RANDOMISATIONS)


class ReliabilityPanel(QWidget):
    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.report: ReliabilityReport | None = None
        self.tasks = Tasks(self)
        self.tasks.done.connect(self._on_done)
        self.tasks.failed.connect(self._on_done)
        self.choices = SessionChecklist("Tick two or more finished sessions over the same "
                                        "images")
        self.choices.setMinimumWidth(150)
        self.compute_button = QPushButton("Compute")
        self.compute_button.clicked.connect(self.compute)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.sessions_table = results_table(SESSION_COLUMNS)
        self.pairs_table = results_table(PAIR_COLUMNS)
        self.top_plot = pg.PlotWidget(title="Top-N intersection")
        self.top_plot.setLabel("bottom", "N")
        self.top_plot.setLabel("left", "images in both top N")
        self.top_plot.addLegend(offset=(10, 10))
        self.top_plot.showGrid(x=True, y=True, alpha=0.2)
        self.pair_box = QComboBox()
        self.pair_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.pair_box.setMinimumContentsLength(16)
        self.pair_box.currentIndexChanged.connect(self._draw_scatter)
        self.scatter_plot = pg.PlotWidget(title="Rank vs rank")
        self.scatter_plot.showGrid(x=True, y=True, alpha=0.2)
        for plot in (self.top_plot, self.scatter_plot):
            plot.setBackground("w")
            plot.setMinimumHeight(220)

        left = QVBoxLayout()
        left.addWidget(QLabel("Finished sessions:"))
        left.addWidget(self.choices, 1)
        left.addWidget(self.compute_button)
        left_box = QWidget()
        left_box.setLayout(left)
        plots = QHBoxLayout()
        plots.addWidget(self.top_plot, 1)
        scatter = QVBoxLayout()
        scatter.addWidget(self.pair_box)
        scatter.addWidget(self.scatter_plot, 1)
        plots.addLayout(scatter, 1)
        right = QVBoxLayout()
        right.addWidget(self.summary)
        right.addWidget(self.sessions_table, 1)
        right.addWidget(self.pairs_table, 1)
        right.addLayout(plots, 3)
        right_box = QWidget()
        right_box.setLayout(right)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left_box)
        splitter.addWidget(right_box)
        splitter.setSizes([220, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    # -- choosing --------------------------------------------------------------------------
    def refresh(self) -> None:
        """List the finished sessions; tick those of the image set with the most of them."""
        rows = [r for r in self.gateway.rating.overview() if r.finished]
        by_set: dict[int, int] = {}
        for r in rows:
            by_set[r.session.image_set_id] = by_set.get(r.session.image_set_id, 0) + 1
        best = max(by_set, key=lambda set_id: by_set[set_id]) if by_set else None
        self.choices.set_sessions(
            (r.session.id, f"{r.session.name}\n{r.session.kind} · {r.image_set}",
             r.session.image_set_id == best and by_set[best] >= 2) for r in rows)

    def checked(self) -> list[int]:
        return self.choices.checked()

    def set_checked(self, session_ids: list[int]) -> None:
        self.choices.set_checked(session_ids)

    # -- computing -------------------------------------------------------------------------
    def compute(self) -> bool:
        """Start computing the ticked sessions' report in a worker thread (100 random
        tie-breaks take about a second); :meth:`show_report` fills the panel when it is done.
        Returns ``False`` when fewer than two sessions are ticked."""
        ids = self.checked()
        self.report = None
        self.tasks.forget()
        if len(ids) < 2:
            self.summary.setText("Tick at least two finished sessions.")
            return False
        scores = [self.gateway.rating.run(s).session_scores() for s in ids]
        self.summary.setText(f"Computing the agreement of {len(ids)} sessions "
                             f"({RANDOMISATIONS} random tie-breaks)…")
        self.compute_button.setEnabled(False)
        self.tasks.submit("report", _compute, scores)
        return True

    def wait(self, msecs: int = 30000) -> ReliabilityReport | None:
        """Block until a running computation is shown (tests, screenshots)."""
        self.tasks.wait(msecs)
        return self.report

    def _on_done(self, _key: object, report: object) -> None:
        """A report (``done``) or an error message (``failed``) of the newest computation."""
        self.compute_button.setEnabled(True)
        if isinstance(report, ReliabilityReport):
            self.show_report(report)
        else:
            self.summary.setText(f"Cannot compute the agreement: {report}")

    def show_report(self, report: ReliabilityReport) -> None:
        self.report = report
        self._scores = {s.session_id: s.scores for s in report.sessions}
        self.summary.setText(
            f"<b>{report.n_images} images</b> in every ticked session; statistics averaged "
            f"over {report.randomisations} random tie-break(s). ICC(2,k) over all "
            f"{len(report.sessions)} sessions: <b>{_f(report.icc2k)}</b>. Answer times over "
            f"{OUTLIER_S:g} s are outliers: counted, not used in mean and median.")
        # Sessions are numbered 1..k in the tables, legends and axes; names are long.
        self._labels = {s.session_id: str(i + 1) for i, s in enumerate(report.sessions)}
        names = self._labels
        self._fill(self.sessions_table, [
            (names[s.session_id], s.name, s.rater, str(s.times.count),
             _f(s.times.mean_s, 1),
             _f(s.times.median_s, 1), str(s.times.outliers), _f(s.times.total_s / 60, 1))
            for s in report.sessions])
        self._fill(self.pairs_table, [
            (f"{names[p.a]} × {names[p.b]}", _f(p.pearson), _f(p.spearman),
             _f(p.kendall_tau_b), _f(p.icc2k)) for p in report.pairs])
        self._draw_top_n()
        blocker = self.pair_box.blockSignals(True)
        self.pair_box.clear()
        for p in report.pairs:
            self.pair_box.addItem(f"rank vs rank: sessions {names[p.a]} × {names[p.b]}",
                                  (p.a, p.b))
        self.pair_box.blockSignals(blocker)
        self._draw_scatter()

    @staticmethod
    def _fill(table: QTableWidget, rows: list[tuple[str, ...]]) -> None:
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c > 0 and text[:1] in "-—0123456789":
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()

    def _draw_top_n(self) -> None:
        plot, report = self.top_plot, self.report
        plot.clear()
        if report is None or not report.top_n_all:
            return
        ns = np.array(list(report.top_n_all))
        plot.plot(ns, ns, pen=pg.mkPen((150, 150, 150), style=Qt.PenStyle.DashLine),
                  name="perfect agreement")
        names = self._labels
        for i, p in enumerate(report.pairs):
            colour = COLOURS[i % len(COLOURS)]
            plot.plot(ns, [p.top_n[n] for n in ns], pen=pg.mkPen(colour, width=2),
                      symbol="o", symbolSize=5, symbolBrush=colour,
                      name=f"sessions {names[p.a]} × {names[p.b]}")
        if len(report.sessions) > 2:
            plot.plot(ns, [report.top_n_all[n] for n in ns], pen=pg.mkPen("k", width=2),
                      name="all sessions")

    def _draw_scatter(self, *_args: object) -> None:
        plot = self.scatter_plot
        plot.clear()
        pair = self.pair_box.currentData()
        if self.report is None or pair is None:
            return
        a, b = (self._scores[s] for s in pair)
        common = [i for i in a if i in b]
        from scipy.stats import rankdata  # lazy: scipy.stats costs ~1 s at start-up

        ra = rankdata([-a[i] for i in common], method="average")
        rb = rankdata([-b[i] for i in common], method="average")
        names = self._labels
        plot.setLabel("bottom", f"rank in session {names[pair[0]]} (1 = most)")
        plot.setLabel("left", f"rank in session {names[pair[1]]}")
        n = len(common)
        plot.plot([1, n], [1, n], pen=pg.mkPen((150, 150, 150), style=Qt.PenStyle.DashLine))
        plot.plot(ra, rb, pen=None, symbol="o", symbolSize=8,
                  symbolBrush=pg.mkBrush(31, 119, 180, 160), symbolPen=None)
