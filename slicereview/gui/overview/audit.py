"""The Overview's *Review queue audit* section: the queue's live P@k, the base rate and R@k
from the random audit slots, each with its interval (the rules and the methods are in
:mod:`slicereview.app.review.audit` and :mod:`slicereview.engines.review.audit`).

It is computed in a thread worker with its own project connection
(:func:`slicereview.gui.common.qa_workers.audit_estimate`) for the Review tab's method and
phase, round and group, with ``k`` = the Review tab's budget, each time the report is computed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from slicereview.app.report.queue_audit import COLUMNS, NOTE, AuditPart, heading
from slicereview.app.report.queue_audit import rows as rows_of
from slicereview.gui.common import qa_workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.overview.sections import note
from slicereview.gui.overview.tables import _fill, new_table


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
        for w in (self.heading, self.table, note(NOTE)):
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
        part = AuditPart(method, phase, k, e, size)
        self.heading.setText(heading(part))
        rows = rows_of(part)
        _fill(self.table, rows, 1)
        for r in range(self.table.rowCount()):  # the words read from the left
            for c in (3, 4):
                item = self.table.item(r, c)
                if item is not None:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                          | Qt.AlignmentFlag.AlignVCenter)
