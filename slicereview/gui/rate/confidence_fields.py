"""The "New rating session" dialog's fields of a confidence session: the raters who share it
and when it stops.

* **Shared with** — other raters' names, comma-separated (new names become raters); empty: the
  rater alone.
* **Stop at** — a budget of comparisons per image, and/or a target: expected Kendall τ of the
  ranking, or every image's rank known to within a standard deviation of so many places.
  Whichever comes first ends the session; a target without a budget stops at 50 per image.

The estimate line says what a budget costs (answers in all, each rater's share, where the
opening sort pass ends) so the owner can budget before starting; ``slicereview plan-rating``
simulates how far a budget goes for a given rater noise.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QWidget,
)

from slicereview.app.rating.confidence import DEFAULT_CAP, StopRule
from slicereview.engines.ranking import estimate_comparisons


def _spin(lo: float, hi: float, step: float, decimals: int, value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(lo, hi)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    box.setValue(value)
    return box


class ConfidenceFields(QWidget):
    """Shared-with names and the stop rule; read them with :meth:`shared_with` and
    :meth:`stop`."""

    #: Any field changed (the dialog updates its estimate).
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shared = QLineEdit()
        self.shared.setObjectName("confidence_shared")
        self.shared.setPlaceholderText("other raters, comma-separated (empty: the rater alone)")
        self.use_budget = QCheckBox("comparisons per image")
        self.use_budget.setChecked(True)
        self.budget = _spin(0.5, 500, 1, 1, 20)
        self.use_tau = QCheckBox("expected τ ≥")
        self.tau = _spin(0.5, 0.999, 0.01, 3, 0.95)
        self.use_rank = QCheckBox("rank SD ≤ (places)")
        self.rank = _spin(0.1, 100, 0.1, 1, 1.0)
        self.use_tau.setToolTip("Stop when the expected Kendall τ between the ranking and the "
                                "truth reaches this (checked after the opening sort pass)")
        self.use_rank.setToolTip("Stop when every image's place is known to within this many "
                                 "places (one standard deviation; after the opening sort pass)")
        self.use_budget.setToolTip("Stop after this many comparisons per image in all (every "
                                   "rater's answers count)")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Shared with", self.shared)
        for check, box in ((self.use_budget, self.budget), (self.use_tau, self.tau),
                           (self.use_rank, self.rank)):
            row = QHBoxLayout()
            row.addWidget(box)
            row.addWidget(check, 1)
            form.addRow("Stop at" if check is self.use_budget else "or", row)
            check.toggled.connect(self._enable)
            box.valueChanged.connect(lambda *_: self.changed.emit())
        self.shared.textChanged.connect(lambda *_: self.changed.emit())
        self._enable()

    def _enable(self, *_args: object) -> None:
        for check, box in ((self.use_budget, self.budget), (self.use_tau, self.tau),
                           (self.use_rank, self.rank)):
            box.setEnabled(check.isChecked())
        self.changed.emit()

    def shared_with(self) -> tuple[str, ...]:
        return tuple(x.strip() for x in self.shared.text().split(",") if x.strip())

    def stop(self) -> StopRule | None:
        """The stop rule, or ``None`` when nothing is ticked."""
        try:
            return StopRule(self.budget.value() if self.use_budget.isChecked() else None,
                            self.tau.value() if self.use_tau.isChecked() else None,
                            self.rank.value() if self.use_rank.isChecked() else None)
        except ValueError:
            return None

    def problem(self, rater: str) -> str | None:
        """Why the fields cannot be accepted, or ``None``."""
        if self.stop() is None:
            return "Tick a budget or a target for the confidence session."
        names = self.shared_with()
        if rater in names or len(set(names)) != len(names):
            return "A rater is named twice."
        return None

    def estimate(self, n: int) -> str:
        """What the stop rule costs for ``n`` images."""
        stop = self.stop()
        if stop is None or n < 2:
            return f"{n} images"
        total = stop.total(n)
        raters = 1 + len(self.shared_with())
        share = f", about {total / raters:.0f} each" if raters > 1 else ""
        sort = estimate_comparisons(n, "tie-aware-merge-insertion")
        cap = "" if stop.budget_per_image is not None else f" (the {DEFAULT_CAP:g}/image cap)"
        return (f"{n} images: at most {total} comparisons{cap}{share}; the opening sort "
                f"pass takes about {sort} ({sort / n:.1f} per image)")

    def settings(self) -> dict[str, str]:
        """The choices to remember (user settings; "off" for a stop not ticked)."""
        out = {"confidence_shared": self.shared.text()}
        for key, check, box in self._stops():
            out[key] = f"{box.value():g}" if check.isChecked() else "off"
        return out

    def restore(self, last: dict[str, str]) -> None:
        self.shared.setText(last.get("confidence_shared", ""))
        for key, check, box in self._stops():
            value = last.get(key)
            if value is None:
                continue
            check.setChecked(value != "off")
            if value != "off":
                box.setValue(float(value))

    def _stops(self) -> tuple[tuple[str, QCheckBox, QDoubleSpinBox], ...]:
        return (("confidence_budget", self.use_budget, self.budget),
                ("confidence_tau", self.use_tau, self.tau),
                ("confidence_rank", self.use_rank, self.rank))
