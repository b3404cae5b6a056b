"""How a *share* (a fraction of a whole, 0 to 1) is written for people: :func:`percent`.

One formatter for every layer (the engines' warnings, the application layer's reports, the
CLI and the GUI), so that a share reads the same everywhere and never as ``"1e+02%"`` (what
``f"{100 * share:.2g}%"`` wrote for a whole image of infinite pixels). It sits beside
:mod:`slicereview.model` at the bottom of the layers and imports nothing of the package.
"""

from __future__ import annotations

import math


def percent(share: float, digits: int = 1) -> str:
    """``share`` (0 to 1) as a percentage with at most ``digits`` decimals and a space before
    the sign, as ISO 80000-1 writes it.

    Trailing zeros are dropped (``0.5`` reads ``"50 %"``). Only the exact ends read ``"0 %"``
    and ``"100 %"``: a share above 0 that would round to 0 reads ``"< 0.1 %"`` (with
    ``digits=1``), one below 1 that would round to 100 reads ``"> 99.9 %"``, so a warning
    about one bad pixel in a million never says 0 % and one about all but one never says
    100 %. NaN (a share of nothing) reads ``"–"``.

    Parameters
    ----------
    share
        The fraction, ``0 <= share <= 1`` (or NaN).
    digits
        Decimals at most (``0`` for whole percentages).

    Raises
    ------
    ValueError
        ``share`` is below 0 or above 1: a share cannot be, so it is a bug to show it.

    Example
    -------
    >>> [percent(s) for s in (1.0, 0.5, 1 / 3, 0.003, 0.0004, 0.0, 0.99996)]
    ['100 %', '50 %', '33.3 %', '0.3 %', '< 0.1 %', '0 %', '> 99.9 %']
    >>> percent(0.734, digits=0), percent(0.004, digits=0), percent(float("nan"))
    ('73 %', '< 1 %', '–')
    """
    if math.isnan(share):
        return "–"
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"a share must lie between 0 and 1, not {share!r}")
    value = 100.0 * share
    step = 10.0 ** -digits
    if 0.0 < value < step / 2:
        return f"< {_trimmed(step, digits)} %"
    if 100.0 - step / 2 <= value < 100.0:
        return f"> {_trimmed(100.0 - step, digits)} %"
    return f"{_trimmed(value, digits)} %"


def _trimmed(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
