"""The pooled ranking of several pairwise sessions of one image set (raters, passes).

Choose the image set, tick its pairwise (sort, exhaustive, confidence) sessions (all by
default; unfinished ones count with the answers they have) and *Rank*: one Bradley–Terry fit
over every answer of the ticked sessions (:mod:`slicereview.app.rating.pooled`), computed off
the GUI thread. The table lists each image's rank, BT score, standard error, 95 % confidence
interval (score ± 1.96 SE), comparisons and wins, best first; the method is named above it.
*Export CSV…* writes the file of ``slicereview ranking PROJECT --pooled --sessions … --csv``.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.rating.pooled import PooledRanking, rank_pooled, write_pooled_csv
from slicereview.gui.common import file_dialogs
from slicereview.gui.common.background import Tasks
from slicereview.gui.common.session_checklist import ID_ROLE, SessionChecklist, results_table
from slicereview.gui.gateway import ProjectGateway

COLUMNS = ("Rank", "Case", "BT score", "SE", "95% CI", "Comparisons", "Wins", "File")


def _f(x: float, digits: int = 2) -> str:
    return "—" if math.isnan(x) else f"{x:.{digits}f}"


class PooledPanel(QWidget):
    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.result: PooledRanking | None = None
        self.tasks = Tasks(self)
        self.tasks.done.connect(self._on_done)
        self.tasks.failed.connect(self._on_done)
        self.image_sets = QComboBox()
        self.image_sets.setToolTip("The image set whose sessions are pooled")
        self.image_sets.currentIndexChanged.connect(self._list_sessions)
        self.choices = SessionChecklist("Pairwise sessions of the image set: every answer of "
                                        "the ticked ones counts (unfinished sessions too)")
        self.rank_button = QPushButton("Rank")
        self.rank_button.clicked.connect(self.compute)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Write the pooled ranking as CSV (the columns of "
                                      "`slicereview ranking --pooled --csv`)")
        self.export_button.clicked.connect(self.on_export)
        self.export_button.setEnabled(False)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = results_table(COLUMNS)

        left = QVBoxLayout()
        left.addWidget(QLabel("Image set:"))
        left.addWidget(self.image_sets)
        left.addWidget(QLabel("Sessions to pool:"))
        left.addWidget(self.choices, 1)
        left.addWidget(self.rank_button)
        left_box = QWidget()
        left_box.setLayout(left)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(self.summary)
        right.addLayout(buttons)
        right.addWidget(self.table, 1)
        right_box = QWidget()
        right_box.setLayout(right)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left_box)
        splitter.addWidget(right_box)
        splitter.setSizes([240, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    # -- choosing --------------------------------------------------------------------------
    def refresh(self) -> None:
        """List the image sets that have pairwise sessions; keep the current one if it can."""
        keep = self.image_sets.currentData()
        self._by_set = self.gateway.rating.pairwise_sessions()
        names = dict((i, (name, n)) for i, name, n in self.gateway.rating.image_sets())
        blocker = self.image_sets.blockSignals(True)
        self.image_sets.clear()
        for set_id, sessions in self._by_set.items():
            name, n = names.get(set_id, ("?", 0))
            self.image_sets.addItem(f"{name} ({n} images, {len(sessions)} sessions)", set_id)
        if keep in self._by_set:
            self.image_sets.setCurrentIndex(self.image_sets.findData(keep))
        else:  # the set with the most pairwise sessions
            best = max(self._by_set, key=lambda k: len(self._by_set[k]), default=None)
            self.image_sets.setCurrentIndex(max(0, self.image_sets.findData(best)))
        self.image_sets.blockSignals(blocker)
        self._list_sessions()
        if not self._by_set:
            self.summary.setText("No pairwise session yet: nothing to pool.")

    def _list_sessions(self, *_args: object) -> None:
        self.choices.set_sessions((s.id, f"{s.name}\n{s.kind} · {rater}", True)
                                  for s, rater in self._by_set.get(self.image_sets.currentData(),
                                                                   []))

    def checked(self) -> list[int]:
        return self.choices.checked()

    def set_checked(self, session_ids: list[int]) -> None:
        self.choices.set_checked(session_ids)

    # -- computing -------------------------------------------------------------------------
    def compute(self) -> bool:
        """Start the fit of the ticked sessions in a worker thread; :meth:`show_result` fills
        the table when it is done. ``False`` (and a message) when nothing can be pooled."""
        ids = self.checked()
        self.result = None
        self.tasks.forget()
        self.export_button.setEnabled(False)
        if not ids:
            self.summary.setText("Tick at least one session.")
            return False
        try:
            data = self.gateway.rating.pooled_input(ids)
        except (ValueError, KeyError) as exc:
            self.summary.setText(f"Cannot pool these sessions: {exc}")
            return False
        self.summary.setText(f"Fitting {len(data.outcomes)} answers of {len(ids)} sessions…")
        self.rank_button.setEnabled(False)
        self.tasks.submit("pooled", rank_pooled, data)
        return True

    def wait(self, msecs: int = 30000) -> PooledRanking | None:
        """Block until a running computation is shown (tests, screenshots)."""
        self.tasks.wait(msecs)
        return self.result

    def _on_done(self, _key: object, result: object) -> None:
        self.rank_button.setEnabled(True)
        if isinstance(result, PooledRanking):
            self.show_result(result)
        else:
            self.summary.setText(f"Cannot compute the pooled ranking: {result}")

    def show_result(self, result: PooledRanking) -> None:
        self.result = result
        sessions = ", ".join(f"{s.session.name} ({s.answers})" for s in result.sessions)
        compared = sum(1 for r in result.rows if r.comparisons)
        self.summary.setText(
            f"<b>Pooled ranking of {result.image_set[1]}</b>: {result.answers} answers of "
            f"{len(result.sessions)} sessions — {sessions}. {compared} of {len(result.rows)} "
            f"images compared.<br>Method: {result.method}; 95% CI = score ± 1.96 SE (Wald).")
        self.table.setRowCount(len(result.rows))
        for r, row in enumerate(result.rows):
            compared_row = row.comparisons > 0
            cells = (
                "—" if row.rank is None else str(row.rank), row.case_id,
                _f(row.score) if compared_row else "not compared", _f(row.se),
                f"{_f(row.ci_low)} … {_f(row.ci_high)}" if compared_row else "—",
                str(row.comparisons), f"{row.wins:g}", Path(row.file).name,
            )
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(ID_ROLE, row.image_id)
                if c in (0, 2, 3, 4, 5, 6):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if c == 7:
                    item.setToolTip(row.file)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.export_button.setEnabled(True)

    # -- export ----------------------------------------------------------------------------
    def on_export(self) -> None:
        if self.result is None:
            return
        name = "".join(c if c.isalnum() or c in "-_ " else "_" for c in self.result.image_set[1])
        path = file_dialogs.save_file(self, "Export pooled ranking", "csv",
                                      f"{name.strip()} pooled.csv", "CSV (*.csv)",
                                      self.gateway.folder)
        if path is not None:
            self.export_csv(path)

    def export_csv(self, path: Path) -> int:
        assert self.result is not None
        n = write_pooled_csv(path, self.result)
        self.summary.setText(self.summary.text() + f"<br>{n} images written to {path}")
        return n
