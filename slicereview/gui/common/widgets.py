"""Small helpers for widgets the code builds itself.

``QTableWidget.item`` answers ``None`` for an empty cell, so code that reads a cell it filled
says so with :func:`cell` (an empty cell there is a programming error) instead of checking for
``None`` each time; :func:`tip` sets a tooltip where the widget is made.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QWidget

W = TypeVar("W", bound=QWidget)


def tip(widget: W, text: str) -> W:
    """``widget`` with the tooltip ``text``."""
    widget.setToolTip(text)
    return widget


def cell(table: QTableWidget, row: int, column: int) -> QTableWidgetItem:
    """The item at ``(row, column)``, which the caller filled."""
    item = table.item(row, column)
    if item is None:
        raise LookupError(f"no item at row {row}, column {column}")
    return item


def header(table: QTableWidget, column: int) -> QTableWidgetItem:
    """The horizontal header item of ``column`` (set with ``setHorizontalHeaderLabels``)."""
    item = table.horizontalHeaderItem(column)
    if item is None:
        raise LookupError(f"no header item for column {column}")
    return item
