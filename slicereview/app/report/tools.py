"""The owner's report per tool: how many polygons each tool made, the active time per polygon,
the agreement of its polygons with the other annotators and their acceptance by reviewers
(docs/qa-process.md, the report's *Per tool*). Rules held here, each named where shown:

* **which polygons** — those of every finished annotation (submitted; any phase and round;
  gold left out) of the report's annotators. One row per tool (:class:`~slicereview.model.Tool`,
  its order), a model's polygons one row per model (``model NAME``); *edited*: the share
  changed after they were made.
* **time per polygon, one-tool annotations** — over the finished annotations whose polygons
  were all made with this tool: their summed active time ÷ their polygons (the honest figure:
  no time of another tool is in it), with the number of such annotations.
* **time per polygon, equal split** — every finished annotation's active time split equally
  among its polygons; the mean share of this tool's polygons (covers every annotation, but
  gives a tool some of the time spent with the others in the same annotation).
* **agreement** — each polygon's *matched Dice*
  (:mod:`slicereview.engines.agreement.polygon_dice`): the mean over the image's other
  annotators of the Dice between the polygon's pixels and the union of that annotator's
  polygons that share a pixel with it (0 when they drew nothing there). Scored in the report's
  per-image pass (:attr:`~slicereview.app.report.agreement.InterRater.polygon_dice`, cached
  with it) on its agreement selections (per image and phase, each annotator's latest finished
  round, two or more annotators); per tool the mean over its scored polygons, with their
  number. Polygons without a pixel are left out.
* **acceptance** — of the tool's polygons in annotations whose decision in force is
  ``accept`` or ``reject``, the share accepted (expert review and undecided left out).

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> [img] = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png", [NewImage(20, 20)])
>>> square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
>>> for name, tool, dx in (("a", "manual", 0), ("b", "wand", 5)):
...     ann = project.annotations.for_image(project.raters.add(name), img)
...     _ = project.polygons.replace(ann.id, [Polygon(square + [dx, 0], tool=tool)])
...     project.annotations.set_status(ann.id, "submitted")
>>> [(r.tool, r.polygons, r.agreement) for r in collect(project)]
[('manual', 1, 0.5), ('wand', 1, 0.5)]
>>> project.close()
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from slicereview.app.annotating import tool_name
from slicereview.app.models.raters import model_ids
from slicereview.app.report.agreement import InterRater, inter_rater
from slicereview.app.report.formatting import TOOL_COLUMNS, TOOL_NOTE, tool_cells
from slicereview.model import AnnotationStatus, Decision, Tool
from slicereview.store import Project

#: The row a polygon is counted in.
_ORDER = list(Tool)

@dataclass(frozen=True)
class ToolRow:
    """One tool's row (see the module text): ``tool`` is the tool's name, or ``model NAME``;
    times in seconds; ``agreement`` the mean matched Dice over ``scored`` polygons; ``accepted``
    of ``decided`` polygons. NaN where nothing was measured."""

    tool: str
    polygons: int
    edited: int
    one_tool_annotations: int
    one_tool_s: float
    split_s: float
    scored: int
    agreement: float
    decided: int
    accepted: int

    @property
    def edited_share(self) -> float:
        return self.edited / self.polygons if self.polygons else math.nan

    @property
    def acceptance(self) -> float:
        return self.accepted / self.decided if self.decided else math.nan


def collect(project: Project, raters: Iterable[int] | None = None,
            agreement: InterRater | None = None) -> list[ToolRow]:
    """One :class:`ToolRow` per tool (and model) that made a polygon of a finished annotation
    of ``raters`` (``None``: everyone), in :class:`~slicereview.model.Tool` order.
    ``agreement``: the report's :func:`~slicereview.app.report.agreement.inter_rater` of the
    same ``raters``, whose per-image pass scored each polygon (computed here when not given)."""
    keep = None if raters is None else sorted(set(raters))
    if agreement is None:
        agreement = inter_rater(project, keep)
    gold, models = project.workflow.gold_annotation_ids(), model_ids(project)
    anns = [a for a in project.annotations.all(status=(AnnotationStatus.SUBMITTED,))
            if a.id not in gold and a.rater_id not in models
            and (keep is None or a.rater_id in keep)]  # (people's tools, not a model's own)
    made = project.polygons.provenance_of([a.id for a in anns])
    decided = project.reviews.current_decisions([a.id for a in anns])
    rows: dict[str, dict] = {}
    for ann in anns:
        polys = made[ann.id]
        if not polys:
            continue
        decision = decided[ann.id].decision if ann.id in decided else None
        dice = agreement.polygon_dice.get(ann.id, [])
        if len(dice) != len(polys):  # (not scored: alone on its image, or an earlier round)
            dice = [math.nan] * len(polys)
        keys = {tool_name(tool, model) for tool, _, model in polys}
        for (tool, edited, model), score in zip(polys, dice, strict=True):
            row = rows.setdefault(tool_name(tool, model), {
                "n": 0, "edited": 0, "split": [], "one": [0, 0, 0], "dice": [], "decided": 0,
                "accepted": 0, "order": (_ORDER.index(tool), model or "")})
            row["n"] += 1
            row["edited"] += edited
            row["split"].append(ann.active_ms / 1000.0 / len(polys))
            if not math.isnan(score):
                row["dice"].append(score)
            if decision in (Decision.ACCEPT, Decision.REJECT):
                row["decided"] += 1
                row["accepted"] += decision is Decision.ACCEPT
        if len(keys) == 1:
            one = rows[next(iter(keys))]["one"]
            one[0] += 1
            one[1] += ann.active_ms
            one[2] += len(polys)
    return [ToolRow(key, r["n"], r["edited"], r["one"][0],
                    r["one"][1] / 1000.0 / r["one"][2] if r["one"][2] else math.nan,
                    float(np.mean(r["split"])), len(r["dice"]),
                    float(np.mean(r["dice"])) if r["dice"] else math.nan,
                    r["decided"], r["accepted"])
            for key, r in sorted(rows.items(), key=lambda kv: kv[1]["order"])]


def render(rows: list[ToolRow], table: Callable[[list[str], list[list[str]]], str]) -> str:
    """The report's section: a heading, the table (``table(head, rows)``) and the note."""
    if not rows:
        return "<h2>Per tool</h2><p>No finished annotation has a polygon yet.</p>"
    body = [[html.escape(c) for c in tool_cells(r)] for r in rows]
    return (f"<h2>Per tool</h2>{table(list(TOOL_COLUMNS), body)}"
            f"<p class=note>{html.escape(TOOL_NOTE)}</p>")
