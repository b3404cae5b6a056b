"""The owner's report, *Review queue audit*: the queue's live P@k with its Wilson interval, the
base rate from the random audit slots, the lift and R@k with its interval — what the Overview's
Queue audit tab and ``slicereview audit show`` print (the rules and the methods are in
:mod:`slicereview.app.review.audit` and :mod:`slicereview.engines.review.audit`; docs/review.md,
"Reviewing").

* **which queue** — the Review tab's method, phase, round and group and ``k`` = its budget, as
  stored in the project (``review.*`` settings; box-score, formal, all rounds and groups,
  20 when never set), so the report and the Overview show the same estimate.
* **no audit** — when the owner set no audit share, or the queue is empty, the section says
  so in one sentence (:attr:`AuditPart.reason`).

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj") as project:
...     part = collect(project)
>>> part.estimate is None and part.reason.startswith("the review queue has no audit slots")
True
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass

from slicereview.engines.review.audit import AuditEstimate
from slicereview.store import Project

#: The columns of :func:`rows`.
COLUMNS = ["quantity", "estimate", "95 % interval", "from", "method"]
#: The method note, in the report and in the Overview.
NOTE = ("Audit slots show images drawn at random from the whole queue (a seeded Bernoulli "
        "sample, one slot in round(1/share)); an image needed review when the reviewer "
        "rejected, commented, pinned or asked for an expert, counted once all its annotations "
        "are decided. P@k and the base rate: Wilson score intervals. R@k: stratified estimator "
        "(top k and the rest, the rest's rate from the audit), each stratum's Wilson bound at "
        "97.5 % (Bonferroni, at least 95 %). The owner sets the share in Owner ▸ Audit and "
        "selection order… (or slicereview audit set).")


@dataclass(frozen=True)
class AuditPart:
    """The section's values: the queue (``method``, ``where``, ``k``) and its estimate with
    the audit's block length, or ``reason`` (one sentence) when there is none."""

    method: str
    where: str
    k: int
    estimate: AuditEstimate | None = None
    block: int = 0
    reason: str = ""


def pct(value: float) -> str:
    """A share as a percentage, ``n/a`` for NaN.

    >>> pct(0.25), pct(float("nan"))
    ('25.0 %', 'n/a')
    """
    return "n/a" if math.isnan(value) else f"{100 * value:.1f} %"


def collect(project: Project, method: str | None = None, phase: str | None = None,
            k: int | None = None, round_: int | None = None, group: str | None = None
            ) -> AuditPart:
    """The estimate for the given queue (each ``None``: the Review tab's stored setting)."""
    from slicereview.app.review.audit import audit_estimate, audit_settings
    from slicereview.app.review.queue import QueueSpec

    def setting(key: str, default: str) -> str:
        return project.meta(f"review.{key}", default) or default

    method = method or setting("method", "box-score")
    phase = phase or setting("phase", "formal")
    k = k or int(setting("budget", "20"))
    round_ = round_ or int(setting("round", "0")) or None
    group = group or project.meta("review.group") or None
    where = phase + (f", round {round_}" if round_ else "") + (f", group {group}" if group
                                                               else "")
    try:
        found = audit_estimate(project, QueueSpec(phase=phase, method=method, round=round_,
                                                  group=group), k)
    except ValueError as exc:
        return AuditPart(method, where, k, reason=str(exc))
    audit = audit_settings(project)
    assert audit is not None
    return AuditPart(method, where, k, found, audit.block)


def heading(part: AuditPart) -> str:
    """What the table is about, as plain text."""
    e = part.estimate
    if e is None:
        return f"No audit estimate of the {part.method} queue ({part.where}): {part.reason}."
    return (f"{part.method} queue ({part.where}): {e.population} images, one review slot in "
            f"{part.block} is an audit slot; {e.members} audit members.")


def rows(part: AuditPart) -> list[list[str]]:
    """The estimate as text, one row per quantity (:data:`COLUMNS`); none without one."""
    e = part.estimate
    if e is None:
        return []
    p, b, r = e.precision, e.base_rate, e.rest
    return [
        [f"P@{e.k} of {part.method}", pct(p.value), f"{pct(p.low)} – {pct(p.high)}",
         f"{p.relevant} of {p.reviewed} reviewed in the top {e.k}", "Wilson"],
        ["base rate (a random queue's P@k)", pct(b.value), f"{pct(b.low)} – {pct(b.high)}",
         f"{b.relevant} of {b.reviewed} reviewed audit members", "Wilson"],
        ["lift over random", "n/a" if math.isnan(e.lift) else f"{e.lift:.2f}×", "–",
         "P@k / base rate", "ratio"],
        [f"R@{e.k}", pct(e.recall), f"{pct(e.recall_low)} – {pct(e.recall_high)}",
         f"the rest's rate from {r.reviewed} reviewed members ({r.relevant} needed review)",
         "stratified, Bonferroni-Wilson"],
    ]


def render(part: AuditPart, table: Callable[..., str]) -> str:
    """The section as HTML (``table(head, rows, left)`` draws a table)."""
    e = html.escape
    out = ["<h2>Review queue audit</h2>", f"<p>{e(heading(part))}</p>"]
    if part.estimate is not None:
        out.append(table(COLUMNS, [[e(c) for c in row] for row in rows(part)], 1))
    out.append(f"<p class=note>{e(NOTE)}</p>")
    return "\n".join(out)
