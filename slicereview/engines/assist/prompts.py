"""Assist prompts: the clicks, strokes, boxes and outlines an assisted tool is given.

Coordinates are ``(row, col)`` in the continuous pixel frame of docs/design.md, "Conventions":
``(row, col) = (y, x)``, pixel ``(r, c)`` covers ``[r, r+1) x [c, c+1)`` and its centre is
``(r + 0.5, c + 0.5)``. A point of the GUI's scene ``(x, y)`` becomes ``(y, x)``; a
:class:`slicereview.model.Polygon`'s vertices become ``vertices[:, ::-1]``
(:func:`polygon_prompt` does it).

Example
-------
>>> from slicereview.engines.assist.prompts import Prompt
>>> click = Prompt("point", [[120.5, 40.5]])
>>> click.kind, click.points.tolist(), click.positive
('point', [[120.5, 40.5]], True)
>>> Prompt("point", [[1, 2], [3, 4]])
Traceback (most recent call last):
...
ValueError: A point assist prompt has exactly one point (row, col); this one has 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike

Kind = Literal["point", "scribble", "box", "polygon"]
KINDS: tuple[str, ...] = get_args(Kind)

#: How many points each kind takes: (at least, at most); None: no upper limit.
_COUNTS: dict[str, tuple[int, int | None]] = {
    "point": (1, 1), "scribble": (1, None), "box": (2, 2), "polygon": (3, None),
}
_WHAT = {
    "point": "exactly one point (row, col)",
    "scribble": "at least one point (a stroke's samples, in order)",
    "box": "exactly two points (opposite corners)",
    "polygon": "at least three vertices",
}


@dataclass(frozen=True, eq=False)
class Prompt:
    """One assist prompt.

    Parameters
    ----------
    kind
        ``"point"`` (a click), ``"scribble"`` (a stroke: its samples in drawing order, joined
        by straight segments), ``"box"`` (two opposite corners of a rectangle) or ``"polygon"``
        (a closed outline, implicitly closed like a :class:`~slicereview.model.Polygon`).
    points
        ``float64 (n, 2)`` ``(row, col)`` in the continuous pixel frame (module docstring);
        copied and made read-only.
    positive
        True for the object (foreground), False for what is not the object (a negative click:
        Shift or a right click in the GUI; a background stroke).

    Raises
    ------
    ValueError
        An unknown kind, the wrong number of points for the kind, or points that are not
        finite.
    """

    kind: Kind
    points: np.ndarray
    positive: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"An assist prompt's kind is one of {', '.join(KINDS)}; "
                             f"got {self.kind!r}.")
        try:
            pts = np.array(self.points, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"A {self.kind} assist prompt's points must be numbers "
                             "(row, col).") from None
        if pts.ndim == 1 and pts.size == 2:
            pts = pts.reshape(1, 2)
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ValueError(f"A {self.kind} assist prompt's points must be an (n, 2) array of "
                             f"(row, col); got shape {pts.shape}.")
        if not np.isfinite(pts).all():
            raise ValueError(f"A {self.kind} assist prompt has a point that is not finite.")
        low, high = _COUNTS[self.kind]
        if len(pts) < low or (high is not None and len(pts) > high):
            raise ValueError(f"A {self.kind} assist prompt has {_WHAT[self.kind]}; this one has "
                             f"{len(pts)}.")
        pts.setflags(write=False)
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "positive", bool(self.positive))


def point(row: float, col: float, positive: bool = True) -> Prompt:
    """A click at ``(row, col)``.

    >>> point(10.5, 3.5, positive=False).positive
    False
    """
    return Prompt("point", np.array([[row, col]], dtype=np.float64), positive)


def polygon_prompt(vertices_xy: ArrayLike, positive: bool = True) -> Prompt:
    """A ``"polygon"`` assist prompt from ``(x, y)`` vertices, as
    :class:`slicereview.model.Polygon` stores them (the columns are swapped to ``(row, col)``).

    >>> polygon_prompt([[1, 2], [5, 2], [5, 8]]).points[0].tolist()
    [2.0, 1.0]
    """
    xy = np.asarray(vertices_xy, dtype=np.float64).reshape(-1, 2)
    return Prompt("polygon", xy[:, ::-1], positive)
