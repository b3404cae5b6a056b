"""The per-image parts of the owner's report and the Overview tab: the per-image agreement
table and the images the low-agreement rule acted on (one row per flag, not just counts).

* **per-image agreement** — every image selection with two or more finished annotations
  (image and phase; each annotator's latest finished round, gold left out — the selections of
  :mod:`slicereview.app.report.agreement`), worst strict α first: case, phase, annotators,
  α strict and relaxed (Krippendorff, nominal, image level), the mean pairwise consensus
  (Labelbox's method) and the mean pairwise mask IoU (Label Studio's task agreement) of
  :mod:`slicereview.app.report.label_agreement`, and what the low-agreement rule did to the image;
* **low-agreement flags** — each flag: the image, the batch, what happened (one more
  annotator, named; or *review first*), why (α, threshold, annotators) and when.

>>> rows_html([], [])[:40]
'<p>No image has two finished annotations'
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from typing import Any

from slicereview.app.report.agreement import ImageAgreement
from slicereview.app.report.formatting import colour, fmt
from slicereview.app.report.label_agreement import HEADERS
from slicereview.store import Project

#: Columns of the per-image table (report and Overview tab).
IMAGE_COLUMNS = ["case", "phase", "annotators", "α strict", "α relaxed",
                 HEADERS["mean_pairwise_consensus"], HEADERS["mean_pairwise_mask_iou"],
                 "low-agreement rule"]
FLAG_COLUMNS = ["case", "batch", "what happened", "why", "when"]
NOTE = ("α: Krippendorff's α (nominal) of the annotators' masks over all pixels, strict "
        "(certain pixels) and relaxed (certain or uncertain). Mean pairwise consensus "
        "(Labelbox's consensus method): each annotation's answers and polygons (paired nearest "
        "first by IoU, per-polygon answers nested) scored against each other annotation, "
        "averaged. Mean pairwise mask IoU (Label Studio's task agreement): the mean over "
        "annotator pairs of the IoU of their masks (relaxed; two empty masks agree). Worst "
        "strict α first.")


def flag_rows(project: Project) -> list[dict[str, Any]]:
    """One row per low-agreement flag, oldest first."""
    from slicereview.app.qa.low_agreement import readable

    cases = project.images.cases()
    batches = {b.id: b.name for b in project.workflow.batches()}
    names = {r.id: r.name for r in project.raters.all()}
    return [{"image_id": f.image_id, "case": cases[f.image_id][0],
             "batch": "–" if f.batch_id is None else batches.get(f.batch_id, "–"),
             "what": (f"one more annotator: {names.get(f.rater_id or 0, '?')}"
                      if f.kind == "assign" else "review first"),
             "why": readable(f.reason), "when": f.created_at[:16].replace("T", " ") + " UTC"}
            for f in project.workflow.image_flags()]


def flag_counts(flags: Iterable[tuple[str, int]]) -> dict[str, int]:
    """How many *images* each kind of low-agreement flag acted on, from ``(kind, image_id)``
    pairs: an image flagged twice (in two batches, or two rounds) counts once.

    >>> flag_counts([("review", 7), ("review", 7), ("review", 9), ("assign", 7)])
    {'review': 2, 'assign': 1}
    """
    images: dict[str, set[int]] = {}
    for kind, image_id in flags:
        images.setdefault(kind, set()).add(image_id)
    return {kind: len(ids) for kind, ids in images.items()}


def image_rows(project: Project, per_image: Iterable[ImageAgreement],
               flags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The per-image table's rows, worst strict α first (NaN last)."""
    cases = project.images.cases()
    said: dict[int, list[str]] = {}
    for f in flags:
        said.setdefault(f["image_id"], []).append(f["what"])
    rows: list[dict[str, Any]] = [
        {"image_id": r.image_id, "case": cases[r.image_id][0], "phase": r.phase,
         "annotators": r.annotators, "strict": r.strict_alpha, "relaxed": r.relaxed_alpha,
         "consensus": r.consensus, "mask_iou": r.mask_iou,
         "flag": "; ".join(dict.fromkeys(said.get(r.image_id, [])))} for r in per_image]
    rows.sort(key=lambda r: (math.isnan(r["strict"]), r["strict"], r["case"]))
    return rows


def image_cells(row: dict[str, Any]) -> list[str]:
    """Text of one per-image row (:data:`IMAGE_COLUMNS`)."""
    return [row["case"], row["phase"], str(row["annotators"]), fmt(row["strict"]),
            fmt(row["relaxed"]), fmt(row["consensus"]), fmt(row["mask_iou"]),
            row["flag"] or "–"]


def _table(head: list[str], rows: list[list[str]], colours: list[list[str]] | None = None,
           left: tuple[int, ...] = (0, 1)) -> str:
    def cell(tag: str, k: int, v: str, bg: str = "") -> str:
        style = f' style="background:{bg}"' if bg else ""
        return f"<{tag}{' class=l' if k in left else ''}{style}>{v}</{tag}>"
    head_html = "".join(cell("th", k, html.escape(h)) for k, h in enumerate(head))
    body = "".join("<tr>" + "".join(cell("td", k, html.escape(v),
                                         colours[r][k] if colours else "")
                                    for k, v in enumerate(row)) + "</tr>"
                   for r, row in enumerate(rows))
    return f"<table><tr>{head_html}</tr>{body}</table>"


def rows_html(rows: list[dict[str, Any]], flags: list[dict[str, Any]]) -> str:
    """The per-image table and the flag list as HTML sections' bodies."""
    parts = []
    if rows:
        cells = [image_cells(r) for r in rows]
        shades = [["", "", "", colour(r["strict"]), colour(r["relaxed"]), "", "", ""]
                  for r in rows]
        parts.append(_table(IMAGE_COLUMNS, cells, shades, left=(0, 1, 7)))
        parts.append(f"<p class=note>{html.escape(NOTE)}</p>")
    else:
        parts.append("<p>No image has two finished annotations yet.</p>")
    parts.append("<h2>Low-agreement rule: the images it acted on</h2>")
    if flags:
        parts.append(_table(FLAG_COLUMNS, [[f["case"], f["batch"], f["what"], f["why"],
                                            f["when"]] for f in flags], left=(0, 1, 2, 3)))
    else:
        parts.append("<p>No image was flagged (no batch with a low-agreement threshold, or "
                     "every image's strict α reached it).</p>")
    return "\n".join(parts)
