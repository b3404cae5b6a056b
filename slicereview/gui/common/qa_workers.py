"""The owner's QA work off the GUI thread: the report's values and its HTML file, one matrix
cell's images, exporting, merging and opening a work package.

Plain functions ``work(control, ...)`` for :mod:`slicereview.gui.common.background` (see
:mod:`slicereview.gui.common.workers` for the pattern). The report and its HTML are long
pure-Python and matplotlib computations and run in a process worker (Cancel stops the child);
the others are short or I/O bound and run in a thread worker, each through a project connection
of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.gui.common.work import Control
from slicereview.store import Project
from slicereview.store.location import Location

if TYPE_CHECKING:
    from slicereview.app.qa.packages import MergeReport
    from slicereview.app.report.acceptance import AcceptanceRow
    from slicereview.app.report.owner_report import ReportData
    from slicereview.app.report.pairs import PairImage


def report(control: Control, location: Location, raters: list[int] | None = None,
           subset: str = "all annotators") -> ReportData:
    """Process worker: :func:`slicereview.app.report.owner_report.collect`. Cancel stops the
    pass at the next image (the report writes nothing, so nothing is left behind)."""
    from slicereview.app.report.owner_report import collect

    def step(done: int, total: int) -> None:
        control.check()
        control.progress(done, total, "report")

    with Project.open(location) as project:
        return collect(project, raters, step, subset)


def first_tables(control: Control, location: Location
                 ) -> tuple[list[AcceptanceRow], dict[str, int]]:
    """Thread worker: the Overview's first table -- acceptance per phase × group -- and the
    low-agreement rule's counts (images per kind), read from the project in milliseconds, so
    that they show while :func:`report` computes the rest."""
    from slicereview.app.report.acceptance import acceptance_table
    from slicereview.app.report.images import flag_counts

    with Project.open(location) as project:
        return (acceptance_table(project),
                flag_counts((f.kind, f.image_id) for f in project.workflow.image_flags()))


def write_html(control: Control, data: ReportData, out: Path) -> Path:
    """Process worker: render collected report values to ``out`` — the same file as
    ``slicereview report`` (matplotlib draws the embedded PNGs), with a progress step per plot
    section. Cancel stops it between steps; the file is written whole (beside ``out``, then
    renamed), so a cancelled or failed run leaves no half-written report."""
    from slicereview.app.report.owner_report import render, render_steps

    def step(done: int, total: int) -> None:
        control.check()
        control.progress(done, total, "html")

    control.progress(0, render_steps(data), "html")
    text = render(data, step)
    part = out.with_name(out.name + ".part")
    part.write_text(text, encoding="utf-8")
    part.replace(out)
    return out


def pair_images(control: Control, location: Location, a: int, b: int) -> list[PairImage]:
    """Thread worker: where annotators ``a`` and ``b`` disagree most."""
    from slicereview.app.report.pairs import pair_disagreements

    with Project.open(location) as project:
        return pair_disagreements(project, a, b)


def audit_estimate(control: Control, location: Location, method: str, phase: str, k: int,
                   round_: int | None = None, group: str | None = None
                   ) -> tuple[object, int] | str:
    """Thread worker: the review queue's live estimate from its audit slots
    (:func:`slicereview.app.review.audit.audit_estimate`) and the share's block length, or
    the sentence saying why there is none (no audit, an empty queue)."""
    from slicereview.app.review.audit import audit_estimate as estimate
    from slicereview.app.review.audit import audit_settings
    from slicereview.app.review.queue import QueueSpec

    with Project.open(location) as project:
        audit = audit_settings(project)
        try:
            found = estimate(project, QueueSpec(phase=phase, method=method, round=round_,
                                                group=group), k)
        except ValueError as exc:
            return str(exc)
        assert audit is not None
        return found, audit.block


def export_package(control: Control, location: Location, annotator: str, batch: str | None,
                   out: Path) -> Path:
    """Thread worker: write the work package of ``annotator`` (optionally one ``batch``)."""
    from slicereview.app.qa.packages import package

    control.progress(0, 0, "export")
    with Project.open(location) as project:
        return package(project, annotator, out, batch)


def merge_package(control: Control, location: Location, file: Path) -> MergeReport:
    """Thread worker: merge ``file`` into the project; a refusal raises with its one-line
    reason and leaves the project untouched."""
    from slicereview.app.qa.packages import merge

    control.progress(0, 0, "merge")
    with Project.open(location) as project:
        return merge(project, file)


def unpack_package(control: Control, file: Path) -> Path:
    """Thread worker: the project of a work package zip, checked and unpacked beside it (or
    found there from an earlier opening) by :func:`slicereview.app.qa.packages.unpack`; a
    refused zip (damaged, newer, far larger unpacked) raises with the reason."""
    from slicereview.app.qa.packages import unpack

    control.progress(0, 0, "unpack")
    return unpack(file)
