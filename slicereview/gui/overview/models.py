"""The Overview's *Models* section: what the report's *The model in QA*
(:mod:`slicereview.app.report.model_qa`) and *What pre-annotation did*
(:mod:`slicereview.app.report.preannotation`) show — per model the summary (Dice, HD95,
sensitivity and specificity against the majority, STAPLE and gold; the people's α without and
with it) and its per-image table, and per pre-annotated batch the shown / not shown comparison
with its bootstrap intervals, each with its method note. The values come with the report's
``ReportData`` (computed in the Overview's process worker); this section only fills tables.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from slicereview.app.report import model_qa, preannotation
from slicereview.gui.overview.sections import note
from slicereview.gui.overview.tables import _fill, new_table


class ModelsSection(QScrollArea):
    """The section (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.empty = QLabel(model_qa.EMPTY, wordWrap=True)
        self.summary = new_table(model_qa.SUMMARY)
        self.images_label = QLabel("<b>Per image</b> (every model's images, model first)")
        self.images = new_table(["model", *model_qa.image_head()])
        self.batches_label = QLabel("<b>What pre-annotation did</b>")
        self.batches_empty = QLabel(preannotation.EMPTY, wordWrap=True)
        self.batches = new_table(["batch", *preannotation.COLUMNS])
        self.batch_notes = QLabel(wordWrap=True)
        self.parts: list[QWidget] = [
            self.empty, QLabel("<b>The model in QA</b> (a model is never counted as a person)"),
            self.summary, note("Means over each model's images (against gold: over its images "
                               "with gold). Each model's agreement with each person is its row "
                               "and column of the Agreement tab's matrix, after the dark line."),
            self.images_label, self.images, note(model_qa.NOTE), self.batches_label,
            self.batches_empty, self.batches, self.batch_notes, note(preannotation.NOTE)]
        inner = QWidget()
        layout = QVBoxLayout(inner)
        for w in self.parts:
            layout.addWidget(w)
        layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setWidget(inner)

    def show_data(self, models: list[model_qa.ModelPart],
                  batches: list[preannotation.BatchEffect]) -> None:
        """Fill the tables from the report's ``models`` and ``preannotation``."""
        self.empty.setVisible(not models)
        for w in (self.summary, self.images_label, self.images):
            w.setVisible(bool(models))
        _fill(self.summary, [model_qa.summary_cells(m) for m in models], 1)
        _fill(self.images, [[m.label, *model_qa.image_cells(r)] for m in models
                            for r in m.images], 3)
        gold = any(r.gold is not None for m in models for r in m.images)
        for k in range(4):  # no gold columns without an image with gold (the report's rule)
            self.images.setColumnHidden(12 + k, not gold)
        for k in range(5):
            self.summary.setColumnHidden(10 + k, not gold)
        self.batches_empty.setVisible(not batches)
        self.batches.setVisible(bool(batches))
        _fill(self.batches, [[b.batch if k == 0 else "", *row] for b in batches
                             for k, row in enumerate(preannotation.rows(b))], 2)
        self.batch_notes.setText("\n".join(
            preannotation.heading(b) + (f" {preannotation.caveat(b)}" if preannotation.caveat(b)
                                        else "") for b in batches))
        self.batch_notes.setVisible(bool(batches))

    def clear(self) -> None:
        self.show_data([], [])

    def texts(self) -> list[Any]:
        """The visible labels' texts (what a user reads; for tests and screenshots)."""
        return [w.text() for w in self.parts if isinstance(w, QLabel) and not w.isHidden()]
