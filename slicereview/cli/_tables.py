"""CSV reading for ``slicereview stats``: header rows, name columns and missing cells.

A table is read as text; a cell is *missing* when it is empty or one of ``NA``, ``N/A``,
``NaN``, ``null``, ``None``, ``.``, ``*``, ``?`` (any case). The first row is a header when
``header`` is True, or — with ``header=None`` (auto) — when one of its cells is neither a number
nor missing. Likewise the first column holds row names when ``names`` is True or, in auto
mode, when one of its cells (below the header) is neither a number nor missing. Text values
elsewhere are allowed only where a command says so (nominal α); otherwise the error names the
cell.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", ".", "*", "?"})


def is_missing(cell: str) -> bool:
    return cell.strip().lower() in MISSING


def _is_number(cell: str) -> bool:
    try:
        value = float(cell)
    except ValueError:
        return False
    return not math.isnan(value)


def _numeric_or_missing(cell: str) -> bool:
    return is_missing(cell) or _is_number(cell)


@dataclass(frozen=True)
class Table:
    """Cells (text, stripped) without the header row and name column."""

    path: Path
    columns: list[str]
    rows: list[str]
    cells: list[list[str]]
    first_data_line: int  # 1-based line of cells[0], for error messages
    first_data_col: int  # 1-based column of cells[i][0]

    def numbers(self, allow_text: bool = False) -> list[list[float | str]]:
        """Cells as floats (NaN when missing); text kept as str when ``allow_text``."""
        out: list[list[float | str]] = []
        for r, row in enumerate(self.cells):
            values: list[float | str] = []
            for c, cell in enumerate(row):
                if is_missing(cell):
                    values.append(math.nan)
                elif _is_number(cell):
                    values.append(float(cell))
                elif allow_text:
                    values.append(cell)
                else:
                    raise ValueError(
                        f"{self.path.name}: line {self.first_data_line + r}, column "
                        f"{self.first_data_col + c}: {cell!r} is not a number"
                    )
            out.append(values)
        return out


def read_table(path: Path, header: bool | None = None, names: bool | None = None,
               delimiter: str | None = None) -> Table:
    """Read ``path`` as CSV (delimiter sniffed from ``,``, ``;`` and tab unless given)."""
    if Path(path).is_dir():
        raise IsADirectoryError(f"{path} is a folder; give a CSV file")
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not a text (CSV) file in UTF-8") from exc
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:4096], delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    raw = [[cell.strip() for cell in row] for row in csv.reader(text.splitlines(),
                                                                 delimiter=delimiter)]
    raw = [row for row in raw if any(cell for cell in row)]
    if not raw:
        raise ValueError(f"{Path(path).name} holds no data")
    width = max(len(row) for row in raw)
    raw = [row + [""] * (width - len(row)) for row in raw]
    if header is None:
        header = not all(_numeric_or_missing(cell) for cell in raw[0][1:]) or (
            len(raw) > 1 and not _numeric_or_missing(raw[0][0])
            and all(_numeric_or_missing(cell) for cell in raw[1][:1])
        )
    head = raw[0] if header else []
    body = raw[1:] if header else raw
    if not body:
        raise ValueError(f"{Path(path).name} holds a header but no data")
    if names is None:
        names = any(not _numeric_or_missing(row[0]) for row in body)
    start = 1 if names else 0
    return Table(
        path=Path(path),
        columns=head[start:] if head else [str(i + 1) for i in range(width - start)],
        rows=[row[0] for row in body] if names else [str(i + 1) for i in range(len(body))],
        cells=[row[start:] for row in body],
        first_data_line=2 if header else 1,
        first_data_col=start + 1,
    )
