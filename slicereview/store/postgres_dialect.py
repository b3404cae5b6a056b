"""The SQL dialect of a server project: the store's statements, written once with SQLite's
``?`` placeholders, in psycopg's style (:func:`to_postgres`), and result rows read by index and
by column name like :class:`sqlite3.Row` (:func:`row_factory`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar


class Row(tuple):
    """A result row read by index or by column name, like :class:`sqlite3.Row`."""

    __slots__ = ()
    _index: ClassVar[dict[str, int]] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


_ROW_TYPES: dict[tuple[str, ...], type[Row]] = {}


def _row_type(names: tuple[str, ...]) -> type[Row]:
    found = _ROW_TYPES.get(names)
    if found is None:
        index: dict[str, int] = {}
        for k, name in enumerate(names):
            index.setdefault(name, k)  # the first of two equal names, as sqlite3.Row
        found = _ROW_TYPES[names] = type("Row", (Row,), {"__slots__": (), "_index": index})
    return found


def row_factory(cursor: Any) -> Callable[[Sequence[Any]], Any]:
    description = cursor.description
    if description is None:
        return tuple
    return _row_type(tuple(d.name for d in description))


_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\bIS \?|\?|%")


def to_postgres(sql: str) -> str:
    """A statement with SQLite's ``?`` placeholders in psycopg's style.

    >>> to_postgres("SELECT 1 FROM t WHERE a = ? AND b IS ? AND c LIKE 'x%?'")
    "SELECT 1 FROM t WHERE a = %s AND b IS NOT DISTINCT FROM %s AND c LIKE 'x%%?'"
    """
    def one(m: re.Match[str]) -> str:
        text = m.group(0)
        if text.startswith("'"):
            return text.replace("%", "%%")
        return {"?": "%s", "%": "%%"}.get(text, "IS NOT DISTINCT FROM %s")

    return _PLACEHOLDER.sub(one, sql)
