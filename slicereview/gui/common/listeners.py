"""Listeners: the Qt-free change notice of the GUI's state objects.

A state object (``gui/annotate/state.py``, ``gui/review/state.py``) holds what a page shows
and calls its :class:`Listeners` when that changes; views connect a callable and re-read the
state. It is plain Python (no Qt), so the state objects can be built and tested without a
``QApplication``.

>>> changed = Listeners()
>>> seen = []
>>> changed.connect(seen.append)
>>> changed.emit("position")
>>> seen
['position']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Listeners:
    """Callables called, in the order connected, by :meth:`emit`."""

    def __init__(self) -> None:
        self._callables: list[Callable[..., Any]] = []

    def connect(self, listener: Callable[..., Any]) -> None:
        self._callables.append(listener)

    def disconnect(self, listener: Callable[..., Any]) -> None:
        self._callables.remove(listener)

    def emit(self, *args: Any) -> None:
        for listener in list(self._callables):
            listener(*args)
