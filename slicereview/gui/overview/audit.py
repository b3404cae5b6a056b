"""The Overview's *Review queue audit* section: the queue's live P@k, the base rate and R@k
from the random audit slots, each with its interval (the rules and the methods are in
:mod:`slicereview.app.review.audit` and :mod:`slicereview.engines.review.audit`).

It is computed in a thread worker with its own project connection
(:func:`slicereview.gui.common.qa_workers.audit_estimate`) for the Review tab's method and
phase, round and group, with ``k`` = the Review tab's budget, each time the report is computed.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from slicereview.gui.common import qa_workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.overview.sections import note
from slicereview.gui.overview.tables import _fill, new_table

COLUMNS = ["quantity", "estimate", "95 % interval", "from", "method"]


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f} %"


class AuditSection(QScrollArea):
    """The section (see the module docstring); ``gateway`` gives the location and settings."""

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__()
        self.gateway = gateway
        self.worker: Worker | None = None
        self.heading = QLabel(wordWrap=True)
        self.table = new_table(COLUMNS)
        inner = QWidget()
        layout = QVBoxLayout(inner)
        for w in (self.heading, self.table, note(
                "Audit slots show images drawn at random from the whole queue (a seeded "
                "Bernoulli sample, one slot in round(1/share)); an image needed review when the "
                "reviewer rejected, commented, pinned or asked for an expert, counted once all "
                "its annotations are decided. P@k and the base rate: Wilson score intervals. "
                "R@k: stratified estimator (top k and the rest, the rest's rate from the audit), "
                "each stratum's Wilson bound at 97.5 % (Bonferroni, at least 95 %). The owner "
                "sets the share in Owner ▸ Audit and selection order…")):
            layout.addWidget(w)
        layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setWidget(inner)

    def refresh(self) -> Worker | None:
        """Compute the estimate for the Review tab's settings (off the GUI thread)."""
        if not self.gateway.is_open or self.worker is not None:
            return None
        review = self.gateway.review
        method = review.setting("method", "box-score") or "box-score"
        phase = review.setting("phase", "formal") or "formal"
        k = int(review.setting("budget", "20") or 20)
        round_ = int(review.setting("round", "0") or 0) or None
        group = review.setting("group") or None
        where = phase + (f", round {round_}" if round_ else "") + (f", group {group}"
                                                                   if group else "")
        self.heading.setText(f"Computing the audit of the {method} queue ({where})…")
        self._spec = (method, where, k)
        worker = thread_worker(qa_workers.audit_estimate, self.gateway.qa.location(), method,
                               phase, k, round_, group)
        worker.finished.connect(self._done)
        worker.failed.connect(self._failed)
        self.worker = worker
        return worker

    def _failed(self, message: str) -> None:
        self.worker = None
        self.heading.setText(f"The audit could not be computed: {message}")

    def _done(self, result: Any) -> None:
        self.worker = None
        method, phase, k = self._spec
        if isinstance(result, str):
            self.heading.setText(result)
            _fill(self.table, [], 1)
            return
        e, size = result
        self.heading.setText(
            f"<b>{method}</b> queue ({phase}): {e.population} images, one review slot in "
            f"{size} is an audit slot; {e.members} audit members.")
        p, b, r = e.precision, e.base_rate, e.rest
        lift = "n/a" if math.isnan(e.lift) else f"{e.lift:.2f}×"
        rows = [
            [f"P@{e.k} of {method}", _pct(p.value), f"{_pct(p.low)} – {_pct(p.high)}",
             f"{p.relevant} of {p.reviewed} reviewed in the top {e.k}", "Wilson"],
            ["base rate (a random queue's P@k)", _pct(b.value),
             f"{_pct(b.low)} – {_pct(b.high)}",
             f"{b.relevant} of {b.reviewed} reviewed audit members", "Wilson"],
            ["lift over random", lift, "–", "P@k / base rate", "ratio"],
            [f"R@{e.k}", _pct(e.recall), f"{_pct(e.recall_low)} – {_pct(e.recall_high)}",
             f"the rest's rate from {r.reviewed} reviewed members ({r.relevant} needed review)",
             "stratified, Bonferroni-Wilson"],
        ]
        _fill(self.table, rows, 1)
        for r in range(self.table.rowCount()):  # the words read from the left
            for c in (3, 4):
                item = self.table.item(r, c)
                if item is not None:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                          | Qt.AlignmentFlag.AlignVCenter)
