"""Workers of the owner's QA views (see :mod:`slicereview.gui.common.workers` for the pattern): the
report's values, one matrix cell's images, exporting, merging and opening a work package. Each opens
its own :class:`~slicereview.store.Project` (SQLite connections stay in their thread).

Cancel: :func:`slicereview.app.report.owner_report.collect` reports progress but takes no
cancel flag, so the report worker's progress callback raises :class:`Cancelled`, which stops the
pass at the next image; nothing is written by the report, so stopping leaves nothing behind.
"""

from __future__ import annotations

from pathlib import Path

from slicereview.gui.common.workers import Worker
from slicereview.store import Project
from slicereview.store.location import Location


class Cancelled(Exception):
    """Raised inside a worker's progress callback after Cancel."""


class ReportWorker(Worker):
    """``finished(ReportData)`` of :func:`slicereview.app.report.owner_report.collect`;
    ``finished(None)`` after Cancel."""

    def __init__(self, location: Location, raters: list[int] | None = None,
                 subset: str = "all annotators") -> None:
        super().__init__()
        self.location = location
        self.raters = raters
        self.subset = subset

    def _progress(self, done: int, total: int) -> None:
        if self._cancel:
            raise Cancelled
        self.progress.emit(done, total, "report")

    def work(self) -> object:
        from slicereview.app.report.owner_report import collect

        try:
            with Project.open(self.location) as project:
                return collect(project, self.raters, self._progress, self.subset)
        except Cancelled:
            return None


class PairWorker(Worker):
    """``finished(list[PairImage])``: where annotators ``a`` and ``b`` disagree most."""

    def __init__(self, location: Location, a: int, b: int) -> None:
        super().__init__()
        self.location, self.a, self.b = location, a, b

    def work(self) -> object:
        from slicereview.app.report.pairs import pair_disagreements

        with Project.open(self.location) as project:
            return pair_disagreements(project, self.a, self.b)


class ExportPackageWorker(Worker):
    """``finished(Path)``: the work package of ``annotator`` (optionally one ``batch``)."""

    def __init__(self, location: Location, annotator: str, batch: str | None, out: Path
                 ) -> None:
        super().__init__()
        self.location, self.annotator, self.batch = location, annotator, batch
        self.out = Path(out)

    def work(self) -> object:
        from slicereview.app.qa.packages import package

        self.progress.emit(0, 0, "export")
        with Project.open(self.location) as project:
            return package(project, self.annotator, self.out, self.batch)


class MergePackageWorker(Worker):
    """``finished(MergeReport)`` of merging ``file`` into the project (refusals: ``failed``
    with the one-line reason; the project is untouched then)."""

    def __init__(self, location: Location, file: Path) -> None:
        super().__init__()
        self.location, self.file = location, Path(file)

    def work(self) -> object:
        from slicereview.app.qa.packages import merge

        self.progress.emit(0, 0, "merge")
        with Project.open(self.location) as project:
            return merge(project, self.file)


class UnpackPackageWorker(Worker):
    """``finished(Path)``: the project of a work package zip, checked and unpacked beside the
    zip (or found there from an earlier opening) by :func:`slicereview.app.qa.packages.unpack`;
    a refused zip (damaged, newer, far larger unpacked) is ``failed`` with the reason."""

    def __init__(self, file: Path) -> None:
        super().__init__()
        self.file = Path(file)

    def work(self) -> object:
        from slicereview.app.qa.packages import unpack

        self.progress.emit(0, 0, "unpack")
        return unpack(self.file)


class HtmlReportWorker(Worker):
    """``finished(Path)``: renders collected report values to ``out`` — the same file as
    ``slicereview report`` (matplotlib draws the embedded PNGs, off the GUI thread)."""

    def __init__(self, data: object, out: Path) -> None:
        super().__init__()
        self.data, self.out = data, Path(out)

    def work(self) -> object:
        # matplotlib draws in a child process: drawing it in a thread of the GUI process
        # deadlocked when the GUI thread's garbage collector finalised an earlier figure
        # (matplotlib's Agg renderer lock is held by the drawing thread).
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.progress.emit(0, 0, "html")
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            pool.submit(_write_html, self.data, self.out).result()
        return self.out


def _write_html(data: object, out: Path) -> None:
    """Child process: render the report values to ``out``."""
    from slicereview.app.report.owner_report import render

    out.write_text(render(data), encoding="utf-8")  # type: ignore[arg-type]
