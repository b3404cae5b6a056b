"""The Overview tab's tables, filled from :class:`slicereview.app.report.owner_report.ReportData`
with the same columns, numbers and methods as the HTML report (``slicereview report``): acceptance
per phase × group ([CrowdSegQA, Table 2]) with times and Welch tests, the onboarding pre-filter and
decisions, per-annotator quality (with STAPLE sensitivity and specificity), the annotator ×
annotator agreement matrix and the per-tool table.
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


def fill_matrix(table: QTableWidget, data: Any) -> list[int]:
    """Mean pairwise strict α per annotator pair, coloured by band; returns the rater ids in
    row/column order. Each off-diagonal cell holds ``(a, b)`` under :data:`PAIR_ROLE`."""
    ids = sorted({r for pair in data.agreement.pairwise for r in pair})
    names = [data.raters[i][0] for i in ids]
    table.clear()
    table.setRowCount(len(ids))
    table.setColumnCount(len(ids))
    # numbered columns (names can be long); the rows carry number and name
    table.setHorizontalHeaderLabels([str(k + 1) for k in range(len(ids))])
    table.setVerticalHeaderLabels([f"{k + 1}  {n}" for k, n in enumerate(names)])
    table.verticalHeader().setVisible(True)
    for k, name in enumerate(names):
        header(table, k).setToolTip(name)
    for r, a in enumerate(ids):
        for c, b in enumerate(ids):
            key = (min(a, b), max(a, b))
            n = data.agreement.pair_images.get(key, 0) if a != b else 0
            if n == 0:
                item = QTableWidgetItem("")
                item.setFlags(Qt.ItemFlag.NoItemFlags)
                if a != b:
                    item.setToolTip(f"{names[r]} and {names[c]} share no image")
            else:
                value = data.agreement.pairwise.get(key, math.nan)
                item = QTableWidgetItem(f"{_fmt(value)}\n{n} img")
                item.setData(PAIR_ROLE, key)
                item.setToolTip(f"{names[r]} × {names[c]}: mean strict α over {n} image(s); "
                                "click to list where they disagree most")
            item.setBackground(QBrush(QColor(_colour(
                data.agreement.pairwise.get(key, math.nan) if n else math.nan))))
            item.setForeground(QBrush(QColor("#222")))
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            table.setItem(r, c, item)
    table.resizeRowsToContents()
    return ids
