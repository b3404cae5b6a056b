"""Small building blocks of the Overview tab: a scrollable section, a method note, and the
classification-questions section (majority vote against gold, ICC(2,1), annotators needed)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QLayout, QScrollArea, QVBoxLayout, QWidget

from slicereview.app.report.formatting import fmt as _fmt
from slicereview.app.report.questions import TARGET
from slicereview.gui.overview import plots, tables

QUESTIONS = (["question", "images (≥ 2 answers)", "with gold", "ICC(2,1)",
              f"annotators for G ≥ {TARGET}"] + [f"accuracy k={k}" for k in range(1, 6)])


def note(text: str) -> QLabel:
    """A wrapped method note (what the numbers above are), in the theme's muted but readable
    grey (``QLabel[note="true"]`` in the style sheet)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("note", True)
    return label


def section(parts: list[QWidget | QLayout], *, fill: bool = False) -> QScrollArea:
    """Widgets and layouts stacked in a vertically scrolling page; ``fill``: the first part
    takes the free height (else the parts keep their size, top-aligned)."""
    inner = QWidget()
    layout = QVBoxLayout(inner)
    for k, part in enumerate(parts):
        if isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part, 1 if fill and k == 0 else 0)
    if not fill:
        layout.addStretch(1)
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setWidget(inner)
    return scroll


class QuestionsSection(QScrollArea):
    """Image-level radio/dropdown questions answered by several annotators."""

    def __init__(self) -> None:
        super().__init__()
        self.table = tables.new_table(QUESTIONS)
        self.plot = plots.new_plot("Majority vote against gold (ties count as wrong)",
                                   "annotators in the vote (k)", "accuracy against gold")
        self.empty = QLabel("No image-level radio or dropdown question has two answers on an "
                            "image yet.")
        inner = QWidget()
        layout = QVBoxLayout(inner)
        for w in (self.empty, self.table, self.plot, note(
                "Accuracy: share of majority votes of k annotators equal to the gold answer, "
                "ties wrong. ICC(2,1): generalizability coefficient of one random annotator "
                "(two-way ANOVA, answers coded by option position); annotators needed by "
                "Spearman–Brown.")):
            layout.addWidget(w)
        layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setWidget(inner)

    def show_data(self, questions: list[Any]) -> None:
        self.empty.setVisible(not questions)
        rows = [[q.title or q.name, str(q.images), str(q.gold_images), _fmt(q.icc21),
                 "–" if q.needed is None else str(q.needed)]
                + [_fmt(q.accuracy[k][0]) if k in q.accuracy else "–" for k in range(1, 6)]
                for q in questions]
        tables._fill(self.table, rows, 1)
        self.plot.clear()
        legend = self.plot.getPlotItem().legend
        if legend is not None:
            legend.clear()
        for k, q in enumerate(questions):
            ks = sorted(q.accuracy)
            if ks:
                colour = plots.METHOD_COLOURS[k % len(plots.METHOD_COLOURS)]
                self.plot.plot(ks, [q.accuracy[x][0] for x in ks], symbol="o",
                               pen=plots.pg.mkPen(colour, width=2), symbolBrush=colour,
                               name=q.title or q.name)
        self.plot.setYRange(-0.02, 1.02)
