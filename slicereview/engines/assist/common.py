"""What the assisted tools share: checking assist prompts and settings, seeds, components.

Example
-------
>>> from slicereview.engines.assist.common import number
>>> number("tolerance", "x", 0.0)
Traceback (most recent call last):
...
ValueError: The tolerance setting is a number; got 'x'.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from slicereview.engines.assist.pixels import Crop, pixel_of
from slicereview.engines.assist.prompts import Prompt

EIGHT = np.ones((3, 3), bool)


def only(tool: str, prompts: Sequence[Prompt], kinds: Sequence[str], *,
         negative: bool = True) -> None:
    """``ValueError`` unless every assist prompt is of ``kinds`` (and positive, when
    ``negative`` is False)."""
    for p in prompts:
        if p.kind not in kinds:
            raise ValueError(f"The {tool} tool takes {' and '.join(kinds)} assist prompts, "
                             f"not {p.kind}.")
        if not negative and not p.positive:
            raise ValueError(f"The {tool} tool takes positive assist prompts only.")


def need_positive(tool: str, prompts: Sequence[Prompt], what: str = "point") -> None:
    if not any(p.positive for p in prompts):
        raise ValueError(f"The {tool} tool needs at least one positive {what}.")


def number(name: str, value: object, low: float, high: float = np.inf, *,
           open_low: bool = False) -> float:
    """``value`` as a float in ``[low, high]`` (``(low, high]`` with ``open_low``), or
    ``ValueError`` naming the setting."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"The {name} setting is a number; got {value!r}.") from None
    if not np.isfinite(x) or x < low or x > high or (open_low and x == low):
        side = ">" if open_low else ">="
        upper = "" if high == np.inf else f" and <= {high:g}"
        raise ValueError(f"The {name} setting must be {side} {low:g}{upper}; got {x:g}.")
    return x


def seeds(prompts: Sequence[Prompt], crop: Crop, positive: bool) -> np.ndarray:
    """``int (n, 2)`` crop pixels of the ``"point"`` prompts of one sign."""
    pts = [p.points for p in prompts if p.positive == positive and p.kind == "point"]
    if not pts:
        return np.zeros((0, 2), np.int64)
    return pixel_of(np.vstack(pts), crop)


def keep_touched(mask: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """The 8-connected components of ``mask`` that hold one of ``pixels`` (``(n, 2)``)."""
    from scipy import ndimage

    labels, _ = ndimage.label(mask, structure=EIGHT)
    ids = np.unique(labels[pixels[:, 0], pixels[:, 1]]) if len(pixels) else np.zeros(0, int)
    ids = ids[ids > 0]
    if len(ids) == 0:
        return np.zeros(mask.shape, bool)
    return np.isin(labels, ids)


def border(shape: tuple[int, ...]) -> np.ndarray:
    """``bool``: the outermost pixels of an array of ``shape``."""
    b = np.zeros(shape, bool)
    b[0] = b[-1] = True
    b[:, 0] = b[:, -1] = True
    return b


def stamp(mask: np.ndarray, pixels: np.ndarray, radius: int = 1, value: object = True
          ) -> None:
    """Set the ``(2 radius + 1)²`` squares round ``pixels`` in ``mask`` to ``value``."""
    h, w = mask.shape
    for r, c in pixels:
        mask[max(r - radius, 0):min(r + radius + 1, h),
             max(c - radius, 0):min(c + radius + 1, w)] = value


def fill_small_holes(mask: np.ndarray, area: int) -> np.ndarray:
    """``mask`` with its holes (8-connected background enclosed by it) of fewer than ``area``
    pixels filled."""
    from scipy import ndimage

    holes = ndimage.binary_fill_holes(mask) & ~mask
    labels, n = ndimage.label(holes)
    if n == 0:
        return mask.copy()
    sizes = ndimage.sum_labels(holes, labels, range(1, n + 1))
    small = np.concatenate([[False], sizes < area])
    return mask | small[labels]


def close(mask: np.ndarray, radius: int) -> np.ndarray:
    """Morphological closing of ``mask`` by a ``(2 radius + 1)²`` square, the outside of the
    array counted as background (no pixel is lost at the array's border)."""
    from scipy import ndimage

    if radius <= 0:
        return mask.copy()
    padded = np.pad(mask, radius)
    done = ndimage.binary_closing(padded, np.ones((2 * radius + 1,) * 2, bool))
    return mask | done[radius:-radius, radius:-radius]
