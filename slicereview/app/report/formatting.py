"""How the owner's report and the Overview tab write numbers, colour α and word the STAPLE,
intra-rater and per-tool notes (one place for both, and light to import: the Overview tab must
not load the report's statistics when it is built).

>>> fmt(0.12345), fmt(float("nan")), fmt(None), fmt(2.0, 1), fmt(-0.0004)
('0.123', '–', '–', '2.0', '0.000')
>>> colour(0.05), colour(0.9)
('#f4a6a6', '#b9e4b0')
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from slicereview.app.report.intra import IntraRater
    from slicereview.app.report.tools import ToolRow


def fixed(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, never a negative zero: an α of −0.0004 reads
    ``0.00``, not ``-0.00`` (a sign with no digit to carry it).

    >>> fixed(-0.0004), fixed(-0.006), fixed(0.5, 3)
    ('0.00', '-0.01', '0.500')
    """
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def fmt(value: float | None, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals (:func:`fixed`); an en dash for ``None`` or NaN (not
    computed)."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else (
        fixed(value, digits))


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


#: Per-annotator STAPLE columns (report and Overview tab).
STAPLE_COLUMNS = ("STAPLE sens. (relaxed)", "STAPLE spec. (relaxed)",
                  "STAPLE images")
STAPLE_NOTE = ("STAPLE (Warfield 2004) sensitivity/specificity, relaxed, mean over images: "
               "per image, STAPLE's EM estimate of each annotator's sensitivity and specificity "
               "against the image's annotators (certain or uncertain pixels count as marked), "
               "averaged over the images the annotator shares with at least one other "
               "annotator (undefined values, e.g. nobody marked anything, left out).")


#: The per-tool table (report and Overview tab; :mod:`slicereview.app.report.tools`).
TOOL_COLUMNS = ("tool", "polygons", "edited (%)", "s / polygon, one-tool annotations",
                "one-tool annotations", "s / polygon, equal split", "matched Dice",
                "polygons scored", "accepted (%)", "polygons decided")
TOOL_NOTE = (
    "Polygons of every finished annotation (any phase and round, gold left out). Edited: the "
    "outline changed after it was made. s / polygon, one-tool annotations: summed active time "
    "of the finished annotations made with this tool only ÷ their polygons. Equal split: each "
    "annotation's active time divided equally among its polygons, mean over this tool's "
    "polygons. Matched Dice: per polygon, the mean over the image's other annotators of the "
    "Dice between it and the union of their polygons that overlap it (0 when they drew nothing "
    "there), on images with two or more annotators (each one's latest finished round); mean "
    "over the scored polygons. Accepted: share of the tool's polygons in annotations accepted, "
    "among those accepted or rejected (decision in force).")


def tool_cells(row: ToolRow) -> list[str]:
    """The :data:`TOOL_COLUMNS` of one :class:`~slicereview.app.report.tools.ToolRow`."""
    return [row.tool, str(row.polygons), fmt(100 * row.edited_share, 0), fmt(row.one_tool_s, 1),
            str(row.one_tool_annotations), fmt(row.split_s, 1), fmt(row.agreement),
            str(row.scored), fmt(100 * row.acceptance, 0), str(row.decided)]


def staple_cells(row: dict[str, Any]) -> list[str]:
    """The :data:`STAPLE_COLUMNS` cells of one per-annotator quality row."""
    return [fmt(row["sensitivity"]), fmt(row["specificity"]), str(row["staple_images"])]


def intra_note(intra: IntraRater) -> str:
    """What the intra-rater histograms show, or why there are none."""
    if not intra.pairs:
        return ("No finished repeat pair yet: intra-rater agreement needs an annotation and "
                "its repeat (schedule repeats with a batch), both finished.")
    undefined = intra.undefined["strict"]
    return (f"{intra.pairs} repeat pair{'s' * (intra.pairs != 1)} (an annotation and its "
            "repeat, both finished): Krippendorff's α (nominal) of the annotator's two masks "
            "per image and per box, same definitions as inter-rater"
            + (f"; {undefined} pair{'s' * (undefined != 1)} with α undefined at the strict "
               "level (no certain pixel in either pass) left out" if undefined else "") + ".")
