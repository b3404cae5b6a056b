"""The owner's report, *Annotator × annotator agreement*: the people's matrix with each model as
an extra row and column, marked apart from the people.

* **people's cells** — per pair of people, the mean pairwise Krippendorff's α (nominal,
  strict, image level) over the images both annotated, and how many
  (:mod:`slicereview.app.report.agreement`: ``pairwise``, ``pair_images``); models are never
  among them, so a model changes no people's cell or count.
* **a model's cells** — per person, the mean over the images both annotated of the pairwise
  strict α of the model's and that person's masks, and how many: the matrix's own measure, as
  :mod:`slicereview.app.report.model_qa` computes it (``ModelPart.pairwise``; every person's
  latest finished annotation, gold left out). Only the people of the matrix (the agreement
  subset) get a model cell; a model × model cell is empty (models are compared with people).
* **which images a cell lists** — a people's cell: :func:`slicereview.app.report.pairs.
  pair_disagreements`; a model's cell: :func:`model_disagreements`, the same ordering (lowest
  α first, NaN last) over the model's images.

Example
-------
>>> from slicereview.app.report.agreement import InterRater
>>> from slicereview.app.report.model_qa import ModelPart
>>> agreement = InterRater(pairwise={(1, 2): 0.8}, pair_images={(1, 2): 3})
>>> net = ModelPart("net@1", pairwise={1: (0.5, 2), 9: (0.1, 1)})
>>> people_ids(agreement), model_rows([net], people_ids(agreement))
([1, 2], [('net@1', {1: (0.5, 2)})])
"""

from __future__ import annotations

import html
import math
from typing import Any

from slicereview.app.report.agreement import InterRater
from slicereview.app.report.formatting import colour, fmt
from slicereview.app.report.model_qa import ModelPart
from slicereview.app.report.pairs import PairImage

#: The note under the matrix, in the report and in the Overview.
NOTE = ("Cells: mean pairwise Krippendorff's α (nominal, strict, image level) over the images "
        "both annotated; colour by band (≤ 0.1 disagreement, ≤ 0.667 low, ≤ 0.8 moderate, "
        "high).")
MODEL_NOTE = ("Model rows and columns (italic, tagged “model”, after the line): per person, the "
              "mean pairwise strict α of the model's and the person's masks over the images "
              "both annotated (the person's latest finished annotation, gold left out), the "
              "matrix's own measure; a model is never one of the people, so the people's cells "
              "and counts leave it out. Model × model cells are empty.")


def people_ids(agreement: InterRater) -> list[int]:
    """The people of the matrix: everyone in a pair that shares an image, by id."""
    return sorted({r for pair in agreement.pairwise for r in pair})


def model_rows(models: list[ModelPart], ids: list[int]
               ) -> list[tuple[str, dict[int, tuple[float, int]]]]:
    """Per model: its label and, per person of ``ids`` it shares an image with, (mean
    pairwise strict α, images)."""
    keep = set(ids)
    return [(m.label, {r: v for r, v in m.pairwise.items() if r in keep}) for m in models]


def model_disagreements(part: ModelPart, person: int, limit: int = 50) -> list[PairImage]:
    """The images the model and ``person`` both annotated, lowest pairwise strict α first
    (NaN last), at most ``limit`` (annotation ids: the person's, then the model's)."""
    found = [PairImage(part.images[k].image_id, part.images[k].case_id, part.images[k].phase,
                       alpha, ids) for k, alpha, ids in part.pair_alpha.get(person, [])]
    found.sort(key=lambda r: (math.isnan(r.alpha), r.alpha, r.image_id))
    return found[:limit]


def _cell(value: float, n: int, style: str = "") -> str:
    text = f"{fmt(value)}<br><small>{n} img</small>" if n else ""
    return f'<td style="background:{colour(value if n else math.nan)}{style}">{text}</td>'


def render(data: Any) -> str:
    """The matrix as HTML from a ``ReportData`` (``agreement``, ``models``, ``raters``)."""
    ids = people_ids(data.agreement)
    if len(ids) < 2:
        return "<p>No pair of annotators shares an image.</p>"
    e = html.escape
    rows_of_models = [r for r in model_rows(data.models, ids) if r[1]]
    line = ";border-left:3px solid #667"  # (the line between the people and the models)
    # columns by number (row k's annotator): names as headers made the table wider than 1400 px
    head = ("<tr><th></th>" + "".join(f"<th title='{e(data.raters[i][0])}'>{k}</th>"
                                      for k, i in enumerate(ids, 1))
            + "".join(f"<th title='{e(label)} (model)' style='font-style:italic"
                      f"{line if k == 0 else ''}'>M{k + 1}</th>"
                      for k, (label, _) in enumerate(rows_of_models)) + "</tr>")
    rows: list[str] = []
    for a in ids:
        cells = []
        for b in ids:
            key = (min(a, b), max(a, b))
            n = data.agreement.pair_images.get(key, 0) if a != b else 0
            cells.append(_cell(data.agreement.pairwise.get(key, math.nan), n))
        for k, (_, values) in enumerate(rows_of_models):
            value, n = values.get(a, (math.nan, 0))
            cells.append(_cell(value, n, line if k == 0 else ""))
        rows.append(f"<tr><th class=l>{len(rows) + 1} {e(data.raters[a][0])}</th>"
                    f"{''.join(cells)}</tr>")
    if rows_of_models:
        span = len(ids) + len(rows_of_models) + 1
        rows.append(f"<tr><th class=l colspan={span} style='border-top:3px solid #667;"
                    "background:#f4f4f8'>models (never counted among the people)</th></tr>")
    for k, (label, values) in enumerate(rows_of_models):
        cells = [_cell(*values.get(b, (math.nan, 0))) for b in ids]
        cells += [_cell(math.nan, 0, line if j == 0 else "") for j in range(len(rows_of_models))]
        rows.append(f"<tr><th class=l><i>M{k + 1} {e(label)}</i> <small>model</small></th>"
                    f"{''.join(cells)}</tr>")
    return f"<div style='overflow-x:auto'><table>{head}{''.join(rows)}</table></div>"


def notes(data: Any) -> str:
    """The notes under the matrix as HTML (the model's note when a model has a cell)."""
    shown = any(values for _, values in model_rows(data.models, people_ids(data.agreement)))
    return f"<p class=note>{html.escape(NOTE)}</p>" + (
        f"<p class=note>{html.escape(MODEL_NOTE)}</p>" if shown else "")
