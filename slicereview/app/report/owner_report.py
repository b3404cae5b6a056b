"""The owner's report: one stand-alone HTML file (plots embedded as base64 PNG) with where the
project stands — acceptance per phase × group with times and Welch tests ([CrowdSegQA, Table 2]),
the onboarding pre-filter and the owner's decisions, per-annotator quality (with STAPLE
sensitivity and specificity), the annotator × annotator agreement matrix with each model's row
and column marked apart (:mod:`slicereview.app.report.matrix`), inter- and
intra-rater α histograms ([CrowdSegQA, Fig. 5]), the queue evaluation curves
([CrowdSegQA, Fig. 6]),
annotation times per phase, for classification questions, majority vote against gold and
the generalizability coefficient, per tool the polygons, time, agreement and acceptance
(:mod:`slicereview.app.report.tools`), the model in QA
(:mod:`slicereview.app.report.model_qa`), what pre-annotation did
(:mod:`slicereview.app.report.preannotation`), the review queue's audit estimate
(:mod:`slicereview.app.report.queue_audit`), and per rated image set its rating sessions with the
Bradley–Terry scores ± SE of exhaustive sessions and the pooled ranking
(:mod:`slicereview.app.report.rating`). Every number names its method.

:func:`collect` gathers the values (with ``progress(done, total)``), :func:`render` writes the
HTML, :func:`write_report` does both.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Project.create(folder / "p.srproj") as project:
...     html = render(collect(project))
>>> "<h1>" in html and "No image has two finished annotations" in html
True
"""

from __future__ import annotations

import contextlib
import html
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from slicereview.app.qa.workflow import prefilter, score_pending
from slicereview.app.report import acceptance as qa_stats
from slicereview.app.report import matrix as report_matrix
from slicereview.app.report import model_qa as report_model
from slicereview.app.report import plots as report_plots
from slicereview.app.report import preannotation as report_preannotation
from slicereview.app.report import project_model as report_project_model
from slicereview.app.report import queue_audit as report_audit
from slicereview.app.report import rating as report_rating
from slicereview.app.report import tools as report_tools
from slicereview.app.report.agreement import FINISHED, InterRater, inter_rater
from slicereview.app.report.formatting import STAPLE_COLUMNS, STAPLE_NOTE, intra_note, staple_cells
from slicereview.app.report.formatting import fmt as _fmt
from slicereview.app.report.images import flag_counts, flag_rows, image_rows, rows_html
from slicereview.app.report.intra import IntraRater, intra_rater
from slicereview.app.report.questions import TARGET, QuestionAnalysis, analyse_questions
from slicereview.model import Phase, Role
from slicereview.store import Project

Progress = Callable[[int, int], None]
#: Steps of :func:`collect` besides the per-image agreement pass (which counts per image).
_STEPS = 9
#: Points of each queue evaluation curve ([CrowdSegQA, Fig. 6]).
CURVE_POINTS = 80


@dataclass
class ReportData:
    """Everything the report shows (see :func:`collect`)."""

    name: str
    raters: dict[int, tuple[str, str]]
    acceptance: list[qa_stats.AcceptanceRow]
    quality: list[dict[str, Any]]
    onboarding: list[tuple[str, list[dict[str, Any]]]]
    agreement: InterRater
    times: dict[str, list[float]]
    limits: dict[str, float]
    evaluations: dict[str, Any] = field(default_factory=dict)
    questions: list[QuestionAnalysis] = field(default_factory=list)
    #: How many images each kind of low-agreement flag acted on (an image flagged twice: once).
    flags: dict[str, int] = field(default_factory=dict)
    subset: str = "all annotators"
    intra: IntraRater = field(default_factory=IntraRater)
    #: The per-image agreement table and the flags (:mod:`slicereview.app.report.images`).
    per_image: list[dict[str, Any]] = field(default_factory=list)
    flagged: list[dict[str, Any]] = field(default_factory=list)
    #: Per rated image set, the rating part (:mod:`slicereview.app.report.rating`).
    rating: list[report_rating.ImageSetRating] = field(default_factory=list)
    #: Per tool that made polygons (:mod:`slicereview.app.report.tools`).
    tools: list[report_tools.ToolRow] = field(default_factory=list)
    #: Per pre-annotated batch (:mod:`slicereview.app.report.preannotation`).
    preannotation: list[report_preannotation.BatchEffect] = field(default_factory=list)
    #: Per model rater (:mod:`slicereview.app.report.model_qa`).
    models: list[report_model.ModelPart] = field(default_factory=list)
    #: Per trained version of the project model (:mod:`slicereview.app.report.project_model`).
    project_model: list[dict[str, Any]] = field(default_factory=list)
    #: The review queue's audit estimate (:mod:`slicereview.app.report.queue_audit`).
    audit: report_audit.AuditPart = field(default_factory=lambda: report_audit.AuditPart(
        "box-score", "formal", 20, reason="not computed"))


def _quality(project: Project, agreement: InterRater) -> list[dict[str, Any]]:
    scores = project.workflow.gold_scores()
    by_rater: dict[int, list[float]] = {}
    for ann in project.annotations.all(phase=Phase.ONBOARDING):
        if ann.id in scores and scores[ann.id]["dice"] is not None:
            by_rater.setdefault(ann.rater_id, []).append(scores[ann.id]["dice"])
    accept = qa_stats.acceptance_by_annotator(project)
    counts = project.polygons.certainty_counts()
    annotated = {a.rater_id for a in project.annotations.all(status=FINISHED)}
    rows = []
    for r in project.raters.all():
        if r.role is not Role.ANNOTATOR or r.is_model or r.id not in annotated:
            continue  # (a model is no annotator; who never finished one has no quality yet)
        dices = by_rater.get(r.id, [])
        certain, uncertain = counts.get(r.id, (0, 0))
        acc = accept.get(r.id, (0, 0, math.nan))
        rows.append({
            "rater": r.name, "group": r.group or qa_stats.NO_GROUP, "scored": len(dices),
            "dice": sum(dices) / len(dices) if dices else math.nan,
            "accepted": acc[0], "rejected": acc[1], "ratio": acc[2],
            "uncertain": uncertain / (certain + uncertain) if certain + uncertain else math.nan,
            "loo": agreement.loo.get(r.id, math.nan),
            "sensitivity": agreement.sensitivity.get(r.id, math.nan),
            "specificity": agreement.specificity.get(r.id, math.nan),
            "staple_images": agreement.staple_images.get(r.id, 0)})
    return rows


def _onboarding(project: Project) -> list[tuple[str, list[dict[str, Any]]]]:
    found = []
    for batch in project.workflow.batches(Phase.ONBOARDING):
        decisions = {q.rater_id: q for q in project.workflow.qualifications(batch_id=batch.id)}
        rows = []
        for row in prefilter(project, batch.id):
            q = decisions.get(row.rater_id)
            rows.append({
                "rater": project.raters.get(row.rater_id).name, "scored": row.scored,
                "dice": row.mean_dice, "passes": row.passes,
                "decision": None if q is None else ("go on" if q.go_on else "stop"),
                "by": None if q is None or q.decided_by is None else project.raters.get(
                    q.decided_by).name,
                "when": None if q is None else q.created_at[:16].replace("T", " ") + " UTC",
                "why": "" if q is None else q.reason})
        found.append((f"{batch.name} (pre-filter: mean Dice ≥ {_fmt(batch.min_dice, 2)})", rows))
    return found


def _cutoffs(m: int, points: int = CURVE_POINTS) -> list[int]:
    """Cut-offs of the queue evaluation curves: every k up to ``points``, else ``points`` evenly
    spaced ones (each P@k costs O(M), so all M cut-offs of many images would cost O(M²)).

    >>> _cutoffs(5), _cutoffs(1000, 5)
    ([1, 2, 3, 4, 5], [1, 251, 500, 750, 1000])
    """
    if m <= points:
        return list(range(1, m + 1))
    return sorted({int(round(k)) for k in np.linspace(1, m, points)} | {1, m})


def collect(project: Project, raters: Iterable[int] | None = None,
            progress: Progress | None = None, subset: str = "all annotators") -> ReportData:
    """Gather the report's values. ``raters`` limits the agreement part to a subset of
    annotators (e.g. without one group). ``progress(done, total)``: the per-image agreement
    pass, then the other steps."""
    from slicereview.app.review.queue import QueueSpec, compute_features, evaluate

    score_pending(project)
    raters = None if raters is None else list(raters)  # (read by several parts)
    total = [0]

    def agreement_progress(done: int, n: int) -> None:
        total[0] = n
        if progress is not None:
            progress(done, n + _STEPS)

    def step(k: int) -> None:
        if progress is not None:
            progress(total[0] + k, total[0] + _STEPS)

    agreement = inter_rater(project, raters, agreement_progress)
    intra = intra_rater(project, raters)
    step(1)
    acceptance = qa_stats.acceptance_table(project)
    step(2)
    quality = _quality(project, agreement)
    onboarding = _onboarding(project)
    step(3)
    evaluations: dict[str, Any] = {}
    for phase in Phase:
        # ValueError: no image of the phase has two finished annotations
        with contextlib.suppress(ValueError):
            spec = QueueSpec(phase=str(phase))
            evaluations[str(phase)] = evaluate(project, spec, ks=_cutoffs(
                len(compute_features(project, spec).features)))
    step(4)
    questions = analyse_questions(project)
    step(5)
    times = qa_stats.times_by_phase(project)
    flags = flag_counts((f.kind, f.image_id) for f in project.workflow.image_flags())
    flagged = flag_rows(project)
    step(6)
    rating = report_rating.collect(project)
    step(7)
    tools = report_tools.collect(project, raters, agreement)
    step(8)
    audit = report_audit.collect(project)
    step(9)
    return ReportData(
        project.name, {r.id: (r.name, r.group or qa_stats.NO_GROUP) for r in project.raters.all()},
        acceptance, quality, onboarding, agreement, times,
        {p: qa_stats.outlier_limit(t) for p, t in times.items()}, evaluations, questions,
        flags, subset, intra, image_rows(project, agreement.per_image, flagged), flagged,
        rating, tools, report_preannotation.collect(project), report_model.collect(project),
        report_project_model.collect(project), audit)


# -- HTML ------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1150px;color:#222}
h1{margin-bottom:0}h2{border-bottom:2px solid #ccd;padding-bottom:3px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0 4px}td,th{border:1px solid #bbc;padding:3px 8px;
text-align:right}th{background:#eef}td.l,th.l{text-align:left}p.note{color:#555;font-size:90%}
img{max-width:100%;border:1px solid #ddd;margin:6px 0}
"""


def _table(head: list[str], rows: list[list[str]], left: int = 1) -> str:
    def cells(tag: str, values: list[str]) -> str:
        return "".join(f"<{tag}{' class=l' if k < left else ''}>{v}</{tag}>"
                       for k, v in enumerate(values))
    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f"<table><tr>{cells('th', head)}</tr>{body}</table>"


def _img(b64: str, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


def render_steps(data: ReportData) -> int:
    """How many steps :func:`render` reports: the tables, then each plot section (inter- and
    intra-rater histograms, one queue evaluation per phase, times, questions, rating)."""
    return 6 + len(data.evaluations)


def render(data: ReportData, progress: Progress | None = None) -> str:
    """The report as one HTML document (plots embedded). ``progress(done, total)`` is called
    after each of the :func:`render_steps` steps (drawing the plots takes most of the time)."""
    e = html.escape
    total, done = render_steps(data), 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>"
             f"{e(data.name)} — QA report</title><style>{_CSS}</style></head><body>",
             f"<h1>{e(data.name)}: QA report</h1>",
             f"<p class=note>Agreement over {e(data.subset)}; {data.agreement.images} image "
             f"selections with two or more finished annotations.</p>"]
    parts.append("<h2>Acceptance per phase and group (round 1)</h2>")
    rows = [[e(r.phase), e(r.group), str(r.images), r.all_time.text, r.accepted_time.text,
             r.rejected_time.text, _fmt(r.test.p), "†" if r.test.significant() else "",
             f"{r.accepted}/{r.accepted + r.rejected}",
             _fmt(100 * r.ratio, 0), str(len(r.outliers))] for r in data.acceptance]
    parts.append(_table(["phase", "group", "images", "time all (s)", "accepted (s)",
                         "rejected (s)", "Welch p", "p < 0.05", "accepted", "acc. ratio (%)",
                         "time outliers"], rows, 2) if rows else "<p>No finished round-1 "
                 "annotation yet.</p>")
    parts.append("<p class=note>Acceptance ratio: accepted / (accepted + rejected) among the "
                 "finished round-1 annotations, by the decision in force (expert review and "
                 "undecided left out). Times: active time, mean ± sample sd. Welch p: "
                 "two-sided Welch t-test, accepted vs rejected; † p &lt; 0.05. Outliers: over "
                 "Tukey's far-out fence Q3 + 3·IQR, flagged and kept.</p>")
    for title, rows_ in data.onboarding:
        parts.append(f"<h2>Onboarding: {e(title)}</h2>")
        parts.append(_table(["annotator", "images scored", "mean Dice vs gold", "pre-filter",
                             "decision", "by", "when", "why"],
                            [[e(r["rater"]), str(r["scored"]), _fmt(r["dice"]),
                              {True: "passes", False: "fails", None: "–"}[r["passes"]],
                              e(r["decision"] or "not decided"), e(r["by"] or ""),
                              e(r["when"] or ""), e(r["why"])] for r in rows_]))
    if data.flags:
        said = {"assign": "given one more annotator", "review": "sent to review first"}
        parts.append("<p>Low-agreement rule: " + ", ".join(
            f"{n} image{'s' * (n != 1)} {said[k]}" for k, n in sorted(data.flags.items()))
            + " (listed below, under the per-image agreement).</p>")
    parts.append("<h2>Per-annotator quality</h2>")
    parts.append(_table(
        ["annotator", "group", "gold images", "mean Dice vs gold (relaxed)", "accepted",
         "rejected", "acc. ratio (%)", "uncertain polygons (%)", "LOO Δ strict α"]
        + list(STAPLE_COLUMNS),
        [[e(q["rater"]), e(q["group"]), str(q["scored"]), _fmt(q["dice"]), str(q["accepted"]),
          str(q["rejected"]), _fmt(100 * q["ratio"], 0), _fmt(100 * q["uncertain"], 0),
          _fmt(q["loo"])] + staple_cells(q) for q in data.quality], 2))
    parts.append("<p class=note>Annotators who have not finished an annotation yet are left "
                 "out.</p>")
    parts.append(f"<p class=note>LOO Δ strict α: mean over images with three or more annotators "
                 f"of α (nominal, strict, image level) without the annotator minus α with all; "
                 f"positive means agreement rises without them. {e(STAPLE_NOTE)}</p>")
    parts.append("<h2>Annotator × annotator agreement</h2>" + report_matrix.render(data)
                 + report_matrix.notes(data))
    parts.append("<h2>Per-image agreement</h2>" + rows_html(data.per_image, data.flagged))
    parts.append(report_tools.render(data.tools, _table))
    parts.append(report_model.render(data.models, data.raters, _table))
    parts.append(report_preannotation.render(data.preannotation, _table))
    parts.append(report_audit.render(data.audit, _table))
    step()
    parts.append("<h2>Inter-rater agreement: image level vs box level</h2>")
    if data.agreement.images:
        parts.append(_img(report_plots.alpha_histograms(
            data.agreement.image_alpha, data.agreement.box_alpha, "inter-rater"),
            "alpha histograms"))
    else:
        parts.append("<p>No image has two finished annotations yet.</p>")
    step()
    parts.append("<h2>Intra-rater agreement: image level vs box level</h2>")
    if data.intra.image_alpha["strict"] or data.intra.image_alpha["relaxed"]:
        parts.append(_img(report_plots.alpha_histograms(
            data.intra.image_alpha, data.intra.box_alpha, "intra-rater"),
            "intra-rater alpha histograms"))
        parts.append(f"<p class=note>{e(intra_note(data.intra))}</p>")
    else:
        parts.append(f"<p>{e(intra_note(data.intra))}</p>")
    step()
    for phase, evaluation in data.evaluations.items():
        step()
        parts.append(f"<h2>Review queue evaluation, {e(phase)}</h2>")
        if all(math.isnan(v) for series in evaluation.recall.values() for v in series):
            parts.append("<p>No image of this phase is relevant yet (no expert review, "
                         "comment or strict α ≤ 0.667): R@k and NDCG@k are undefined.</p>")
            continue
        parts.append(_img(report_plots.curves_png(evaluation), f"queue curves {phase}"))
        parts.append("<p class=note>P@k, R@k and NDCG@k of each priority method against the "
                     "reviews (graded: expert review 3, commented 2, strict α ≤ 0.667 1).</p>")
    if data.times:
        parts.append("<h2>Annotation times per phase</h2>")
        parts.append(_img(report_plots.times_by_phase(data.times, data.limits), "times"))
    step()
    if data.questions:
        parts.append("<h2>Classification questions: majority vote and generalizability</h2>")
        parts.append(_table(
            ["question", "images (≥ 2 answers)", "with gold", "ICC(2,1)",
             f"annotators for G ≥ {TARGET}"] + [f"accuracy k={k}" for k in range(1, 6)],
            [[e(q.title or q.name), str(q.images), str(q.gold_images), _fmt(q.icc21),
              "–" if q.needed is None else str(q.needed)]
             + [_fmt(q.accuracy[k][0]) if k in q.accuracy else "–" for k in range(1, 6)]
             for q in data.questions]))
        curves = {q.title or q.name: {k: v[0] for k, v in q.accuracy.items()}
                  for q in data.questions if q.accuracy}
        if curves:
            parts.append(_img(report_plots.majority_curves(curves), "majority vote"))
        parts.append("<p class=note>Accuracy: share of majority votes of k annotators equal to "
                     "the gold answer, ties wrong. ICC(2,1): generalizability coefficient of one "
                     "random annotator (two-way ANOVA, answers coded by option position); "
                     "annotators needed by Spearman–Brown.</p>")
    step()
    parts.append(report_rating.render(data.rating, _table))
    parts.append(report_project_model.render(data.project_model, _table))
    step()
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(project: Project, out: str | Path, raters: Iterable[int] | None = None,
                 progress: Progress | None = None, subset: str = "all annotators") -> Path:
    """Collect, render and write the report to ``out``; returns the path."""
    out = Path(out)
    out.write_text(render(collect(project, raters, progress, subset)), encoding="utf-8")
    return out
