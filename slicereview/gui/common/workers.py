"""The work the main window and the Review tab run off the GUI thread: importing files or PACS
studies, building the demo, computing a review queue's features.

Each is a plain function ``work(control, ...)`` for :func:`~slicereview.gui.common.background.
thread_worker` or :func:`~slicereview.gui.common.background.process_worker`: plain data in
(project locations, not connections: SQLite connections stay in the thread that opened them),
plain data out, progress and Cancel through the :class:`~slicereview.gui.common.work.Control`.
Nothing here touches Qt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.gui.common.work import Control
from slicereview.store import Project
from slicereview.store.location import Location

if TYPE_CHECKING:  # the imaging engines (pydicom, SimpleITK) load when an import starts
    from slicereview.app.images.importing import ImportReport
    from slicereview.app.images.pacs_listing import StudyList
    from slicereview.app.models.importing import ImportReport as PredictionReport
    from slicereview.app.models.running import RunReport
    from slicereview.app.review.queue import QueueResult, QueueSpec
    from slicereview.engines.dicomweb.auth import Auth
    from slicereview.engines.imaging.importer import SliceSelection


def import_files(control: Control, location: Location, paths: list[Path],
                 slices: SliceSelection | None = None) -> ImportReport:
    """Thread worker: import ``paths`` into the project at ``location`` (``slices``:
    ``None`` for the default selection). Cancel keeps what was imported (a report of it)."""
    from slicereview.app.images.importing import import_paths
    from slicereview.engines.imaging.importer import SliceSelection

    with Project.open(location) as project:
        return import_paths(project, paths, slices=slices or SliceSelection(),
                            progress=control.progress, cancel=control.cancelled)


def import_pacs(control: Control, location: Location, url: str, auth: Auth | None,
                studies: list[str]) -> ImportReport:
    """Thread worker: import ``studies`` from the DICOMweb service at ``url`` (all or
    nothing, see :func:`slicereview.app.images.pacs_import.import_dicomweb`)."""
    from slicereview.app.images.pacs_import import import_dicomweb

    with Project.open(location) as project:
        return import_dicomweb(project, url, studies=studies, auth=auth,
                               progress=control.progress, cancel=control.cancelled)


def list_pacs_studies(control: Control, url: str, auth: Auth | None, search: str
                      ) -> StudyList:
    """Thread worker: the studies of a DICOMweb service (a ``StudyList`` of ``StudyRow`` s,
    saying whether the PACS has more)."""
    from slicereview.app.images.pacs_listing import list_studies

    return list_studies(url, auth, search)


def build_demo(control: Control, folder: Path) -> Path:
    """Process worker: build (or find) the demo project in ``folder``; its path. Cancel
    stops it at the next step (a half-built demo is never used: it is renamed into place only
    when complete)."""
    from slicereview.demo.project import build_demo as build

    def step(done: int, total: int, what: str) -> None:
        control.check()
        control.progress(done, total, what)

    return build(folder, progress=step)


def review_features(control: Control, location: Location, spec: QueueSpec) -> QueueResult:
    """Thread worker: compute (or read from the cache) the features of a review queue (the
    engine fans out to worker processes). Cancel keeps what is finished, cached too."""
    from slicereview.app.review.queue import compute_features

    with Project.open(location) as project:
        return compute_features(
            project, spec, progress=lambda done, total: control.progress(done, total, "features"),
            cancelled=control.cancelled)


def import_predictions(control: Control, location: Location, model: str, paths: list[Path],
                       certain: float, uncertain: float) -> PredictionReport:
    """Thread worker: store the predictions in ``paths`` as model ``model``'s (``NAME[@VERSION]``)
    annotations (:func:`slicereview.app.models.importing.import_predictions`); Cancel keeps the
    files done."""
    from slicereview.app.models.importing import check_thresholds, import_predictions
    from slicereview.app.models.raters import model_rater, parse_label

    check_thresholds(certain, uncertain)
    name, version = parse_label(model)
    with Project.open(location) as project:
        rater = model_rater(project, name, version)
        return import_predictions(project, rater, paths, certain=certain, uncertain=uncertain,
                                  progress=control.progress, cancelled=control.cancelled)


def run_model(control: Control, location: Location, model: Path, card: Path,
              image_ids: list[int] | None) -> RunReport:
    """Thread worker: run an ONNX model on ``image_ids`` (``None``: all) and store its
    predictions (:func:`slicereview.app.models.running.run_model`, which does the work in the
    model's inference process); Cancel stops at once and keeps the images done."""
    from slicereview.app.models.running import run_model as run

    with Project.open(location) as project:
        return run(project, model, card, image_ids, progress=control.progress,
                   cancelled=control.cancelled)
