"""The project model's part of Owner ▸ Models…: train it on the accepted work, see each
version's held-out score, predict the images it has not seen, and the retraining rule (the
rules: :mod:`slicereview.app.models.project_model`).

* **Status** — the accepted images, how many are not in the newest version, the rules
  (*Retrain after every N newly accepted images*, 0: on demand only; *keep regions of N px and
  more* in stored predictions, 0: every region; **Apply** stores both) and whether retraining
  is due (then **Train** says so).
* **Versions** — one row per version: its model rater ``project@vN``, when, on how many
  accepted images, and its held-out Dice, sensitivity and specificity with 95 % intervals
  (cross-validation by image).
* **Train** trains the next version, **Predict** stores the newest version's predictions of
  every image it was not trained on as ``project@vN``'s annotations (for pre-annotation, the
  queue and the *uncertainty* order of Owner ▸ Audit and selection order…), most uncertain
  listed first; both run in the background with a progress bar and **Cancel**, which stores
  nothing of a training and keeps the predictions already stored.

:class:`ProjectModelPanel` is a widget the Models… dialog embeds; :class:`ProjectModelDialog`
shows it alone.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.common import model_workers
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.gateway.project_model import ProjectModelService

COLUMNS = ("Version", "Trained", "Images", "Dice [95 % CI]", "Sensitivity", "Specificity")


def interval(summary: dict[str, Any]) -> str:
    """``0.812 [0.700, 0.924]``; the mean alone without an interval; ``–`` without a score.

    >>> interval({"mean": 0.8, "low": 0.7, "high": 0.9}), interval({"mean": None})
    ('0.800 [0.700, 0.900]', '–')
    """
    if summary.get("mean") is None:
        return "–"
    if summary.get("low") is None:
        return f"{summary['mean']:.3f}"
    return f"{summary['mean']:.3f} [{summary['low']:.3f}, {summary['high']:.3f}]"


class ProjectModelPanel(QWidget):
    """The project model's part (see the module text)."""

    def __init__(self, service: ProjectModelService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.worker: Worker | None = None
        self.summary = QLabel()
        self.summary.setObjectName("project_model_summary")
        self.summary.setWordWrap(True)
        self.every = QSpinBox()
        self.every.setObjectName("project_model_every")
        self.every.setRange(0, 10_000)
        self.every.setSpecialValueText("on demand only")
        self.every.setToolTip("Retrain after every N newly accepted images (0: on demand only)")
        self.apply_button = QPushButton("Apply")
        self.apply_button.setObjectName("project_model_apply")
        self.apply_button.clicked.connect(self.apply_rule)
        self.smallest = QSpinBox()
        self.smallest.setObjectName("project_model_min_region")
        self.smallest.setRange(0, 100_000)
        self.smallest.setSuffix(" px")
        self.smallest.setToolTip("Leave regions smaller than this out of stored predictions "
                                 "(what pre-annotation shows); 0 keeps every region")
        rule = QHBoxLayout()
        rule.addWidget(QLabel("Retrain after every"))
        rule.addWidget(self.every)
        rule.addWidget(QLabel("newly accepted images; keep regions of"))
        rule.addWidget(self.smallest)
        rule.addWidget(QLabel("and more"))
        rule.addWidget(self.apply_button)
        rule.addStretch(1)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("project_model_versions")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        self.train_button = QPushButton("Train")
        self.train_button.setObjectName("project_model_train")
        self.train_button.setToolTip("Train the next version on the accepted images and score "
                                     "it on held-out images")
        self.train_button.clicked.connect(self.train)
        self.predict_button = QPushButton("Predict")
        self.predict_button.setObjectName("project_model_predict")
        self.predict_button.setToolTip("Predict every image the newest version was not trained "
                                       "on and store it as that version's annotations")
        self.predict_button.clicked.connect(self.predict)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("project_model_cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setObjectName("project_model_progress")
        self.message = QLabel()
        self.message.setObjectName("project_model_message")
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        for w in (self.train_button, self.predict_button, self.progress, self.cancel_button):
            buttons.addWidget(w)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(rule)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.service.changed.connect(self.refresh)
        self._set_running(False)
        self.refresh()

    # -- what the project holds ----------------------------------------------------------
    def refresh(self) -> None:
        if not self.service.is_open:
            return
        st = self.service.status()
        rule = (f"retraining after every {st.retrain_every} newly accepted images"
                if st.retrain_every else "retraining on demand only")
        due = " — retraining is due." if st.due else "."
        self.summary.setText(f"{st.accepted} accepted image(s), {st.new_since} of them not in "
                             f"the newest version; {rule}{due}")
        self.every.setValue(st.retrain_every or 0)
        self.smallest.setValue(self.service.min_region())
        self.train_button.setText("Train (due)" if st.due else "Train")
        self.table.setRowCount(len(st.versions))
        for row, v in enumerate(reversed(st.versions)):
            s = v.score
            cells = (v.name, v.trained_at[:16].replace("T", " "), str(v.accepted),
                     interval(s.get("dice", {})), interval(s.get("sensitivity", {})),
                     interval(s.get("specificity", {})))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 3 and s.get("reason"):
                    item.setToolTip(s["reason"])
                elif col == 3 and s.get("method"):
                    item.setToolTip(f"{s['method']}, 95 % t interval over images")
                self.table.setItem(row, col, item)
        self._set_running(self.worker is not None)

    def apply_rule(self) -> None:
        every, smallest = self.every.value(), self.smallest.value()
        self.service.set_retrain_every(every)
        self.service.set_min_region(smallest)
        self.message.setText("Retraining " + (f"after every {every} newly accepted images"
                                              if every else "on demand only")
                             + "; stored predictions keep " + (
                                 f"regions of {smallest} px and more." if smallest > 1
                                 else "every region."))

    # -- background work -------------------------------------------------------------------
    def train(self) -> Worker | None:
        if self.worker is not None:
            return None
        self.message.setText("Training the project model…")
        return self._start(thread_worker(model_workers.train, self.service.location(),
                                         self.service.who(), name="train"), self._trained)

    def predict(self) -> Worker | None:
        if self.worker is not None:
            return None
        self.message.setText("Predicting the images the newest version has not seen…")
        return self._start(thread_worker(model_workers.predict, self.service.location(),
                                         name="predict"), self._predicted)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def _start(self, worker: Worker, done: Any) -> Worker:
        self.worker = worker
        worker.progress.connect(self._on_progress)
        worker.finished.connect(done)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        self._set_running(True)
        return worker

    def _set_running(self, running: bool) -> None:
        has_version = bool(self.service.is_open and self.table.rowCount())
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        self.train_button.setEnabled(not running)
        self.predict_button.setEnabled(not running and has_version)
        if running:
            self.progress.setRange(0, 0)

    def _on_progress(self, done: int, total: int, what: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{what} %v/%m" if what else "%v/%m")

    def _finish(self, text: str) -> None:
        self.worker = None
        self.message.setText(text)
        self.service.stored()
        self._set_running(False)

    def _trained(self, version: Any) -> None:
        s = version.score
        score = (f"held-out Dice {interval(s['dice'])}" if s.get("folds")
                 else f"no held-out score ({s.get('reason', '')})")
        self._finish(f"Trained {version.name} on {version.accepted} accepted image(s) in "
                     f"{version.seconds:.0f} s; {score}.")

    def _predicted(self, found: list) -> None:
        ranked = sorted(found, key=lambda f: -f.entropy)
        top = ", ".join(f.case_id for f in ranked[:5])
        self._finish(f"Predicted {len(found)} image(s), stored as the newest version's "
                     f"annotations" + (f"; most uncertain: {top}." if top else "."))

    def _on_failed(self, text: str) -> None:
        self._finish(text)

    def _on_cancelled(self) -> None:
        kind = self.worker.name if self.worker is not None else ""
        self._finish("Cancelled: nothing was stored." if kind == "train" else
                     "Cancelled: the images predicted before Cancel stay stored.")


class ProjectModelDialog(QDialog):
    """:class:`ProjectModelPanel` alone in a dialog."""

    def __init__(self, service: ProjectModelService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Project model")
        self.panel = ProjectModelPanel(service, self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.panel)
        self.resize(760, 420)

    def done(self, result: int) -> None:
        self.panel.cancel()
        super().done(result)
