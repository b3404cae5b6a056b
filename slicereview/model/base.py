"""The string enum every glossary enum derives from."""

from __future__ import annotations

from enum import Enum


class StrEnum(str, Enum):
    """A ``str`` enum whose ``str()`` is its value (``enum.StrEnum`` needs Python 3.11)."""

    def __str__(self) -> str:
        return str(self.value)
