"""The Overview tab: the owner's report inside the app.

The same values as ``slicereview report`` (:func:`slicereview.app.report.owner_report.collect`,
computed by :func:`slicereview.gui.common.qa_workers.report` in a process worker, with a
progress bar and a Cancel that stops it) shown as tables — acceptance per phase × group with
times and Welch tests, the onboarding pre-filter, per-annotator quality (with STAPLE sensitivity and
specificity), the annotator × annotator agreement matrix (each model's row and column after a
dark line, :mod:`slicereview.gui.overview.agreement`), the per-image agreement (with the
Labelbox and Label Studio measures) and the flagged images, per tool (polygons, time,
matched Dice, acceptance), the models (*The model in QA* and *What pre-annotation did*,
:mod:`slicereview.gui.overview.models`), classification questions — and
interactive pyqtgraph plots (inter- and intra-rater α histograms, queue curves, times).
Clicking a matrix cell lists the images where that pair (or that model and person) disagrees
most (lowest strict α first); selecting one shows it in the View tab
(:attr:`OverviewPage.image_requested`). "Save HTML report…" writes the same file as the CLI.

The report is computed when the tab is first shown for a project and on "Compute" (after
changing the agreement subset, or to refresh after new work); it is not recomputed on every
edit — a 1,200-image project takes seconds. Each image's agreement values are cached by edit
times (:mod:`slicereview.app.report.image_cache`), so Compute after new work computes the
changed images only; the per-image tables show a page of rows at a time.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.report.formatting import STAPLE_NOTE, TOOL_NOTE, intra_note
from slicereview.gui.common import file_dialogs, qa_workers
from slicereview.gui.common.background import Worker, process_worker, thread_worker
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.overview import plots, tables
from slicereview.gui.overview.agreement import AgreementSection
from slicereview.gui.overview.audit import AuditSection
from slicereview.gui.overview.images import ImagesSection
from slicereview.gui.overview.models import ModelsSection
from slicereview.gui.overview.sections import QuestionsSection, note, section

if TYPE_CHECKING:
    from slicereview.app.report.owner_report import ReportData


class OverviewPage(QWidget):
    """The owner's report (see the module docstring); ``gateway`` is the project gateway."""

    #: The user picked an image from a matrix cell's list: show it in the View tab.
    image_requested = Signal(int)

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__()
        self.gateway = gateway
        self.data: ReportData | None = None
        self._worker: Worker | None = None
        self._html_worker: Worker | None = None
        self._stale = True

        self.subset_box = QComboBox()
        self.subset_box.setToolTip("Annotators whose agreement is shown (matrix, α, LOO)")
        self.compute_button = QPushButton("Compute")
        self.compute_button.clicked.connect(self.compute)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button = QPushButton("Save HTML report…")
        self.save_button.clicked.connect(self.on_save_html)
        self.status = QLabel(wordWrap=True)  # a long status must not widen the window
        bar = QHBoxLayout()
        for w in (QLabel("Agreement over:"), self.subset_box, self.compute_button,
                  self.progress, self.cancel_button, self.save_button):
            bar.addWidget(w)
        bar.addWidget(self.status, 1)

        self.acceptance = tables.new_table(tables.ACCEPTANCE)
        self.onboarding = tables.new_table(tables.ONBOARDING)
        self.quality = tables.new_table(tables.QUALITY)
        self.tools = tables.new_table(tables.TOOLS)
        self.agreement = AgreementSection(gateway)  # the matrix and a cell's images
        self.agreement.image_requested.connect(self.image_requested)
        self.matrix = self.agreement.matrix
        self.pair_list, self.pair_label = self.agreement.pair_list, self.agreement.pair_label
        self.models = ModelsSection()
        self.flags = QLabel()
        self.images = ImagesSection()  # per-image agreement, flagged images
        self.images.image_requested.connect(self.image_requested)
        self.questions = QuestionsSection()
        self.hist = {level: plots.new_plot(f"Krippendorff's α (nominal, {level})", "α",
                                           "count") for level in ("strict", "relaxed")}
        self.intra_hist = {level: plots.new_plot(
            f"Intra-rater: Krippendorff's α (nominal, {level}) of each annotation and its "
            "repeat", "α", "count") for level in ("strict", "relaxed")}
        self.intra_label = note("")
        self.phase_box = QComboBox()
        self.phase_box.currentTextChanged.connect(self._draw_curves)
        self.curves = [plots.new_plot(t, "k (images reviewed, queue order)", t)
                       for t in ("P@k", "R@k", "NDCG@k")]
        self.times_plot = plots.new_plot(
            "Annotation time per phase (box: quartiles and median; red dashes: outlier limit, "
            "times kept)", "phase", "active annotation time (s), round 1")

        curve_row = QHBoxLayout()
        curve_row.addWidget(QLabel("Phase:"))
        curve_row.addWidget(self.phase_box)
        curve_row.addStretch(1)
        self.sections = QTabWidget()
        self.sections.addTab(section([
            self.acceptance, note(
                "Acceptance ratio: accepted / (accepted + rejected) among the finished round-1 "
                "annotations, by the decision in force (expert review and undecided left out)."
                " Times: active time, mean ± sample sd. Welch p: two-sided Welch t-test, "
                "accepted vs rejected; † p < 0.05. Outliers: over Tukey's far-out fence "
                "Q3 + 3·IQR, flagged and kept."),
            QLabel("<b>Onboarding: pre-filter and the owner's decisions</b>"),
            self.onboarding, self.flags]), "Acceptance")
        self.sections.addTab(section([self.quality, note(
            "LOO Δ strict α: mean over images with three or more annotators of α (nominal, "
            "strict, image level) without the annotator minus α with all; positive means "
            "agreement rises without them. " + STAPLE_NOTE)]), "Annotators")
        self.sections.addTab(self.agreement, "Agreement")
        self.sections.addTab(section([
            QLabel("<b>Inter-rater: image level vs box level</b>"), self.hist["strict"],
            self.hist["relaxed"],
            QLabel("<b>Intra-rater: image level vs box level</b>"),
            self.intra_label, self.intra_hist["strict"], self.intra_hist["relaxed"]]),
            "α histograms")
        self.sections.addTab(self.images, "Per image")
        self.sections.addTab(section([self.tools, note(TOOL_NOTE)]), "Tools")
        self.sections.addTab(self.models, "Models")
        curve_plots = QHBoxLayout()
        for plot in self.curves:
            curve_plots.addWidget(plot)
        self.sections.addTab(section([curve_row, curve_plots, note(
            "P@k, R@k and NDCG@k of each priority method against the reviews (graded: expert "
            "review 3, commented 2, strict α ≤ 0.667 1).")]), "Review queue")
        self.audit = AuditSection(gateway)
        self.sections.addTab(self.audit, "Queue audit")
        self.sections.addTab(section([self.times_plot]), "Times")
        self.sections.addTab(self.questions, "Questions")
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.sections, 1)
        gateway.project_opened.connect(self.on_project_changed)
        gateway.project_closed.connect(self.on_project_changed)
        self._set_running(False)

    # -- computing -------------------------------------------------------------------------
    def on_project_changed(self, *_: object) -> None:
        """Forget the report of the project before (its worker and its tables) and compute
        this one's when shown. The old worker is detached before it is cancelled: its queued
        *cancelled* must neither say "Cancelled" nor keep the new report from starting."""
        worker, self._worker = self._worker, None
        if worker is not None:
            for signal in (worker.progress, worker.finished, worker.failed, worker.cancelled):
                signal.disconnect()
            worker.cancel()
            worker.wait(10000)
        self.data, self._stale = None, True
        self._clear()
        self.subset_box.clear()
        if self.gateway.is_open:
            for label, raters in self.gateway.qa.subsets():
                self.subset_box.addItem(label, raters)
        self.status.setText("")
        self.save_button.setEnabled(False)
        if self.isVisible():
            self.compute()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale and self.gateway.is_open and self._worker is None:
            self.compute()

    def compute(self) -> Worker | None:
        """Collect the report in a process worker (one at a time)."""
        if self._worker is not None or not self.gateway.is_open:
            return None
        self._stale = False
        worker = process_worker(qa_workers.report, self.gateway.qa.location(),
                                self.subset_box.currentData(),
                                self.subset_box.currentText() or "all annotators", name="report")
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_done)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        self._worker = worker
        self._set_running(True)
        self.status.setText("Computing the report…")
        first = thread_worker(qa_workers.first_tables, self.gateway.qa.location(),
                              name="first tables")
        first.finished.connect(lambda found: self._on_first_tables(worker, found))
        return worker

    def _on_first_tables(self, report: Worker, found: tuple[list, dict[str, int]]) -> None:
        """The acceptance table and the flags while the rest of ``report`` is computed."""
        if report is self._worker and self.data is None:
            tables.fill_acceptance(self.acceptance, found[0])
            self.flags.setText(tables.flags_text(found[1]))

    def cancel(self) -> None:
        """Stop the report's computing or the HTML report's writing, whichever runs."""
        for worker in (self._worker, self._html_worker):
            if worker is not None:
                worker.cancel()
                worker.wait(10000)

    def _set_running(self, running: bool) -> None:
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        self.compute_button.setEnabled(not running)
        self.save_button.setEnabled(not running and self.data is not None)
        if running:
            self.progress.setRange(0, 0)

    def _on_progress(self, done: int, total: int, _what: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _on_failed(self, message: str) -> None:
        self._worker = None
        self._set_running(False)
        self.status.setText("The report could not be computed.")
        QMessageBox.critical(self, "Overview", message)

    def _on_cancelled(self) -> None:
        self._worker = None
        if self.data is None:  # (the first tables shown while it computed go with it)
            self._clear()
        self.status.setText("Cancelled: press Compute to start again.")
        self._stale = True
        self._set_running(False)

    def _on_done(self, data: ReportData) -> None:
        self._worker = None
        self.data = data
        self._set_running(False)
        self.show_data(data)
        self.audit.refresh()

    # -- showing -----------------------------------------------------------------------------
    def _clear(self) -> None:
        """Empty every table, list and plot (no project, or another one is being computed)."""
        for table in self.findChildren(QTableWidget):
            table.setRowCount(0)
        self.agreement.clear()
        self.models.clear()
        self.images.clear()
        self.flags.setText("")
        for plot in (*self.hist.values(), *self.intra_hist.values(), *self.curves,
                     self.times_plot):
            plots.clear(plot)

    def show_data(self, data: ReportData) -> None:
        """Fill every table and plot from a
        :class:`~slicereview.app.report.owner_report.ReportData`."""
        tables.fill_acceptance(self.acceptance, data.acceptance)
        tables.fill_onboarding(self.onboarding, data)
        tables.fill_quality(self.quality, data)
        tables.fill_tools(self.tools, data)
        self.agreement.show_data(data)
        self.matrix_ids = self.agreement.ids
        self.models.show_data(data.models, data.preannotation)
        self.flags.setText(tables.flags_text(data.flags))
        self.images.show_data(data)
        for level, plot in self.hist.items():
            plots.alpha_histogram(plot, data.agreement.image_alpha[level],
                                  data.agreement.box_alpha[level])
        shown = bool(data.intra.image_alpha["strict"] or data.intra.image_alpha["relaxed"])
        self.intra_label.setText(intra_note(data.intra))
        for level, plot in self.intra_hist.items():
            plot.setVisible(shown)
            plots.alpha_histogram(plot, data.intra.image_alpha[level],
                                  data.intra.box_alpha[level])
        self.phase_box.blockSignals(True)
        self.phase_box.clear()
        self.phase_box.addItems(list(data.evaluations))
        self.phase_box.blockSignals(False)
        self._draw_curves(self.phase_box.currentText())
        plots.times_by_phase(self.times_plot, data.times, data.limits)
        self.questions.show_data(data.questions)
        self.status.setText(f"{data.name}: agreement over {data.subset}, "
                            f"{data.agreement.images} image selections with two or more "
                            "finished annotations.")

    def _draw_curves(self, phase: str) -> None:
        if self.data is not None and phase in self.data.evaluations:
            plots.queue_curves(self.curves, self.data.evaluations[phase])

    # -- HTML ------------------------------------------------------------------------------------
    def on_save_html(self) -> Worker | None:
        """Ask for a file and write the HTML report in a process worker, with the progress bar
        (one step per plot section) and Cancel of the report's computing."""
        if self.data is None or self._html_worker is not None or self._worker is not None:
            return None
        path = file_dialogs.save_file(self, "Save HTML report", "report", "report.html",
                                      "HTML (*.html)", self.gateway.folder)
        if path is None:
            return None
        # matplotlib draws in a child process (docs/design.md, "Threading")
        worker = process_worker(qa_workers.write_html, self.data, Path(path), name="html")
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_html_done)
        worker.failed.connect(self._on_html_failed)
        worker.cancelled.connect(self._on_html_cancelled)
        self._html_worker = worker
        self._set_running(True)
        self.status.setText("Writing the HTML report…")
        return worker

    def _on_html_done(self, path: object) -> None:
        self._html_worker = None
        self._set_running(False)
        self.status.setText(f"Wrote {path}")

    def _on_html_failed(self, message: str) -> None:
        self._html_worker = None
        self._set_running(False)
        self.status.setText("The HTML report could not be written.")
        QMessageBox.critical(self, "Save HTML report", message)

    def _on_html_cancelled(self) -> None:
        self._html_worker = None
        self._set_running(False)
        self.status.setText("Cancelled: no HTML report was written.")

    def stop_workers(self) -> None:
        """Wait for running workers (window closing)."""
        self.cancel()
        for worker in (self.agreement.worker, self.audit.worker):
            if worker is not None:
                worker.wait(30000)
