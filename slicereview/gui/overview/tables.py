"""The Overview tab's tables, filled from :class:`slicereview.app.report.owner_report.ReportData`
with the same columns, numbers and methods as the HTML report (``slicereview report``): acceptance
per phase × group ([CrowdSegQA, Table 2]) with times and Welch tests, the onboarding pre-filter and
decisions, per-annotator quality (with STAPLE sensitivity and specificity), the annotator ×
annotator agreement matrix (each model's row and column after a dark line) and the per-tool
table.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from slicereview.app.report.formatting import STAPLE_COLUMNS, TOOL_COLUMNS, staple_cells, tool_cells
from slicereview.app.report.formatting import colour as _colour
from slicereview.app.report.formatting import fmt as _fmt
from slicereview.gui.common.widgets import cell, header

ACCEPTANCE = ["phase", "group", "images", "time all (s)", "accepted (s)", "rejected (s)",
              "Welch p", "p < 0.05", "accepted", "acc. ratio (%)", "time outliers"]
ONBOARDING = ["batch", "annotator", "images scored", "mean Dice vs gold", "pre-filter",
              "decision", "by", "when", "why"]
QUALITY = ["annotator", "group", "gold images", "mean Dice vs gold (relaxed)", "accepted",
           "rejected", "acc. ratio (%)", "uncertain polygons (%)", "LOO Δ strict α",
           *STAPLE_COLUMNS]
TOOLS = list(TOOL_COLUMNS)
#: Item data role holding a matrix cell's (rater a, rater b).
PAIR_ROLE = Qt.ItemDataRole.UserRole
#: Item data role holding a model cell's (model index in ``ReportData.models``, person id).
MODEL_ROLE = Qt.ItemDataRole.UserRole + 1


def header_label(text: str) -> str:
    r"""A long column name on two lines, split at the space nearest its middle (so that wide
    tables such as per-annotator quality fit a 1400-pixel window without scrolling).

    >>> header_label("STAPLE sens. (relaxed)"), header_label("images")
    ('STAPLE sens.\n(relaxed)', 'images')
    """
    if len(text) <= 10 or " " not in text:
        return text
    cut = min((k for k, ch in enumerate(text) if ch == " "), key=lambda k: abs(2 * k - len(text)))
    return f"{text[:cut]}\n{text[cut + 1:]}"


def new_table(columns: list[str]) -> QTableWidget:
    """A read-only, sortable-looking table with the given header (long names on two lines)."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels([header_label(c) for c in columns])
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.setAlternatingRowColors(True)
    return table


def fit_height(table: QTableWidget) -> None:
    """Make the table as tall as its rows (the page scrolls, not the table)."""
    table.resizeRowsToContents()
    height = (table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
              + sum(table.rowHeight(r) for r in range(table.rowCount()))
              + table.horizontalScrollBar().sizeHint().height())
    table.setFixedHeight(max(height, 60))


def _fill(table: QTableWidget, rows: list[list[str]], left: int) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            align = Qt.AlignmentFlag.AlignLeft if c < left else Qt.AlignmentFlag.AlignRight
            item.setTextAlignment(align | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)
    fit_height(table)


def fill_acceptance(table: QTableWidget, rows: Any) -> None:
    """Acceptance per phase × group from ``rows`` (``AcceptanceRow``)."""
    _fill(table, [[r.phase, r.group, str(r.images), r.all_time.text, r.accepted_time.text,
                   r.rejected_time.text, _fmt(r.test.p), "†" if r.test.significant() else "",
                   f"{r.accepted}/{r.accepted + r.rejected}", _fmt(100 * r.ratio, 0),
                   str(len(r.outliers))] for r in rows], 2)


def flags_text(flags: dict[str, int]) -> str:
    """What the low-agreement rule did, from images per flag kind.

    >>> flags_text({"review": 1})
    'Low-agreement rule: 1 image sent to review first (listed in the Per image tab).'
    """
    said = {"assign": "given one more annotator", "review": "sent to review first"}
    if not flags:
        return "Low-agreement rule: no image flagged."
    return "Low-agreement rule: " + ", ".join(
        f"{n} image{'s' * (n != 1)} {said.get(k, k)}" for k, n in sorted(flags.items())
    ) + " (listed in the Per image tab)."


def fill_onboarding(table: QTableWidget, data: Any) -> None:
    rows = []
    for title, found in data.onboarding:
        for r in found:
            rows.append([title, r["rater"], str(r["scored"]), _fmt(r["dice"]),
                         {True: "passes", False: "fails", None: "–"}[r["passes"]],
                         r["decision"] or "not decided", r["by"] or "", r["when"] or "",
                         r["why"]])
    _fill(table, rows, 2)
    for r in range(table.rowCount()):  # the reason is text: left-aligned like the names
        cell(table, r, len(ONBOARDING) - 1).setTextAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


def fill_quality(table: QTableWidget, data: Any) -> None:
    _fill(table, [[q["rater"], q["group"], str(q["scored"]), _fmt(q["dice"]),
                   str(q["accepted"]), str(q["rejected"]), _fmt(100 * q["ratio"], 0),
                   _fmt(100 * q["uncertain"], 0), _fmt(q["loo"])] + staple_cells(q)
                  for q in data.quality], 2)
    # long annotator names are elided (full name in the tooltip): the numbers stay in view
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
    table.resizeColumnToContents(0)
    table.setColumnWidth(0, min(table.columnWidth(0), 230))
    for r in range(table.rowCount()):
        cell(table, r, 0).setToolTip(cell(table, r, 0).text())


def fill_tools(table: QTableWidget, data: Any) -> None:
    """Per tool: polygons, edited, time per polygon, matched Dice, acceptance."""
    _fill(table, [tool_cells(r) for r in data.tools], 1)


def _matrix_item(text: str, value: float, tip: str, *, italic: bool = False
                 ) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if not text:
        item.setFlags(Qt.ItemFlag.NoItemFlags)
    item.setToolTip(tip)
    item.setBackground(QBrush(QColor(_colour(value if text else math.nan))))
    item.setForeground(QBrush(QColor("#222")))
    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
    if italic:
        font = item.font()
        font.setItalic(True)
        item.setFont(font)
    return item


def _separator() -> QTableWidgetItem:
    item = QTableWidgetItem("")
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    item.setBackground(QBrush(QColor("#667")))
    return item


def fill_matrix(table: QTableWidget, data: Any) -> list[int]:
    """Mean pairwise strict α per annotator pair, coloured by band, then after a dark line each
    model's row and column (:mod:`slicereview.app.report.matrix`); returns the people's rater
    ids in row/column order. A people's cell holds ``(a, b)`` under :data:`PAIR_ROLE`, a
    model's cell ``(model index, person id)`` under :data:`MODEL_ROLE`."""
    from slicereview.app.report.matrix import model_rows, people_ids

    ids = people_ids(data.agreement)
    names = [data.raters[i][0] for i in ids]
    models = [(k, label, v) for k, (label, v) in enumerate(model_rows(data.models, ids)) if v]
    n_people, extra = len(ids), (len(models) + 1 if models else 0)
    table.clear()
    table.setRowCount(n_people + extra)
    table.setColumnCount(n_people + extra)
    # numbered columns (names can be long); the rows carry number and name
    labels = [str(k + 1) for k in range(n_people)]
    rows = [f"{k + 1}  {n}" for k, n in enumerate(names)]
    if models:
        labels += [""] + [f"M{j + 1}" for j in range(len(models))]
        rows += [""] + [f"M{j + 1}  {label} · model"
                                           for j, (_, label, _) in enumerate(models)]
    table.setHorizontalHeaderLabels(labels)
    table.setVerticalHeaderLabels(rows)
    table.verticalHeader().setVisible(True)
    for k, name in enumerate(names):
        header(table, k).setToolTip(name)
    for r, a in enumerate(ids):
        for c, b in enumerate(ids):
            key = (min(a, b), max(a, b))
            n = data.agreement.pair_images.get(key, 0) if a != b else 0
            value = data.agreement.pairwise.get(key, math.nan)
            if n == 0:
                item = _matrix_item("", value, f"{names[r]} and {names[c]} share no image"
                                    if a != b else "")
            else:
                item = _matrix_item(f"{_fmt(value)}\n{n} img", value,
                                    f"{names[r]} × {names[c]}: mean strict α over {n} "
                                    "image(s); click to list where they disagree most")
                item.setData(PAIR_ROLE, key)
            table.setItem(r, c, item)
    if models:
        line = n_people
        for k in range(n_people + extra):
            table.setItem(line, k, _separator())
            table.setItem(k, line, _separator())
        table.horizontalHeader().setSectionResizeMode(line, QHeaderView.ResizeMode.Fixed)
        table.setColumnWidth(line, 6)
        for j, (index, label, values) in enumerate(models):
            at = n_people + 1 + j
            for font_item in (table.horizontalHeaderItem(at), table.verticalHeaderItem(at)):
                assert font_item is not None
                font = font_item.font()
                font.setItalic(True)
                font_item.setFont(font)
                font_item.setToolTip(f"{label}: a model, never counted among the people")
            for r, a in enumerate(ids):
                value, n = values.get(a, (math.nan, 0))
                tip = (f"{label} (model) × {names[r]}: mean strict α over {n} image(s); click "
                       "to list where they disagree most") if n else (
                    f"{label} and {names[r]} share no image")
                for row, col in ((at, r), (r, at)):
                    item = _matrix_item(f"{_fmt(value)}\n{n} img" if n else "", value, tip,
                                        italic=True)
                    if n:
                        item.setData(MODEL_ROLE, (index, a))
                    table.setItem(row, col, item)
            for j2 in range(len(models)):
                table.setItem(at, n_people + 1 + j2, _matrix_item("", math.nan, ""))
    table.resizeRowsToContents()
    if models:
        table.setRowHeight(n_people, 6)
    return ids
