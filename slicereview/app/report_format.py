"""How the owner's report and the Overview tab write numbers and colour α (one place for both,
and light to import: the main window builds the Overview tab at start-up without loading the
report's statistics).

>>> fmt(0.12345), fmt(float("nan")), fmt(None), fmt(2.0, 1)
('0.123', '–', '–', '2.0')
>>> colour(0.05), colour(0.9)
('#f4a6a6', '#b9e4b0')
"""

from __future__ import annotations

import math


def fmt(value: float | None, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; an en dash for ``None`` or NaN (not computed)."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else (
        f"{value:.{digits}f}")


def colour(alpha: float) -> str:
    """Background colour of an α cell by Krippendorff's bands: ≤ 0.1 red, ≤ 0.667 orange,
    ≤ 0.8 yellow, above green; white for NaN."""
    if math.isnan(alpha):
        return "#fff"
    if alpha <= 0.1:
        return "#f4a6a6"
    if alpha <= 0.667:
        return "#f8d49a"
    return "#fff3a8" if alpha <= 0.8 else "#b9e4b0"
