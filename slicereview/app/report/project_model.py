"""The owner's report's section on the project model: each trained version's held-out score
against the number of accepted images it learnt from (docs/models.md, "Held-out scores").

* **what** — every stored version (``project.project_models``), oldest first: its model rater
  ``project@vN``, the accepted images it was trained on, and the Dice, sensitivity and
  specificity of its cross-validation by image with their 95 % t intervals over images, as
  stored when it was trained (a version is never scored again: what the owner saw is what the
  report shows);
* **the figure** — held-out Dice (mean and interval) and sensitivity against the number of
  accepted images, one point per version; a version without a score (one accepted image) is
  listed, not drawn.

Example
-------
>>> rows = [{"version": "project@v1", "accepted": 4, "trained": "2026-01-01 10:00",
...          "dice": {"mean": 0.7, "low": 0.6, "high": 0.8, "n": 4},
...          "sensitivity": {"mean": 0.8, "low": 0.7, "high": 0.9, "n": 4},
...          "specificity": {"mean": 0.99, "low": 0.98, "high": 1.0, "n": 4},
...          "method": "4-fold cross-validation by image", "reason": ""}]
>>> score_curve(rows)[:8]
'iVBORw0K'
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from slicereview.app.report.plots import _figure, to_base64
from slicereview.store import Project

COLUMNS = ("version", "trained", "accepted images", "Dice [95 % CI]",
           "sensitivity [95 % CI]", "specificity [95 % CI]", "held out by")
NOTE = ("Each version is scored when it is trained, on images it never saw: k-fold "
        "cross-validation by image (k = min(5, accepted images)); Dice, sensitivity and "
        "specificity of its certain region against the truth (gold, else the consensus of the "
        "accepted annotations; uncertain pixels left out), mean over images with a 95 % "
        "Student-t interval over images.")


def collect(project: Project) -> list[dict[str, Any]]:
    """One row per version (see the module text), oldest first."""
    return [{"version": v.name, "accepted": v.accepted,
             "trained": v.trained_at[:16].replace("T", " "),
             "dice": v.score.get("dice", {}), "sensitivity": v.score.get("sensitivity", {}),
             "specificity": v.score.get("specificity", {}),
             "method": v.score.get("method", "") if v.score.get("folds") else "",
             "reason": v.score.get("reason", "")} for v in project.project_models.all()]


def _cell(summary: dict[str, Any]) -> str:
    if summary.get("mean") is None:
        return "–"
    if summary.get("low") is None:
        return f"{summary['mean']:.3f}"
    return f"{summary['mean']:.3f} [{summary['low']:.3f}, {summary['high']:.3f}]"


def score_curve(rows: list[dict[str, Any]]) -> str:
    """The figure of the module text as base64 PNG."""
    fig = _figure(8, 3.6)
    ax = fig.subplots()
    for key, colour, label in (("dice", "#1f77b4", "Dice"),
                               ("sensitivity", "#ff7f0e", "sensitivity")):
        drawn = [(r["accepted"], r[key]) for r in rows if r[key].get("mean") is not None]
        if not drawn:
            continue
        x = [a for a, _ in drawn]
        y = [s["mean"] for _, s in drawn]
        low = [s["mean"] - (s["low"] if s.get("low") is not None else s["mean"])
               for _, s in drawn]
        high = [(s["high"] if s.get("high") is not None else s["mean"]) - s["mean"]
                for _, s in drawn]
        ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, color=colour, label=label)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("accepted images the version learnt from")
    ax.set_ylabel("held-out score (95 % CI)")
    ax.set_title("The project model: held-out score against accepted images")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    return to_base64(fig)


def render(rows: list[dict[str, Any]], table: Callable[[list[str], list[list[str]]], str]
           ) -> str:
    """The report's section: heading, figure, table and note."""
    e = html.escape
    head = "<h2>The project model</h2>"
    if not rows:
        return head + ("<p>Not trained yet (slicereview model train, or Owner ▸ Project "
                       "model…).</p>")
    body = [[e(r["version"]), e(r["trained"]), str(r["accepted"]), _cell(r["dice"]),
             _cell(r["sensitivity"]), _cell(r["specificity"]),
             e(r["method"] or r["reason"] or "–")] for r in rows]
    figure = ""
    if any(r["dice"].get("mean") is not None for r in rows):
        figure = ('<img alt="project model scores" src="data:image/png;base64,'
                  f'{score_curve(rows)}">')
    return f"{head}{figure}{table(list(COLUMNS), body)}<p class=note>{e(NOTE)}</p>"
