"""Export annotations as DICOM Segmentations (``--format dicom-seg``), one per annotation or
one consensus per image, for images that came from DICOM (a file or a PACS).

Which annotations: those :func:`slicereview.app.exporting.masks.select` picks (one phase and round,
finished ones). Per annotation, a BINARY SEG with two segments, ``certain`` and ``uncertain``,
from the label image the PNG export writes (:func:`slicereview.engines.masks.rasterize`):
**where certain and uncertain polygons overlap, the pixel is certain**, so the segments never
overlap and read back to exactly the PNG's labels 1 and 2. With a consensus (``majority``:
BINARY, one segment; ``staple``: FRACTIONAL, STAPLE's probability), one SEG per image with two
or more finished annotations. Objects and codes: :mod:`slicereview.engines.dicomout.seg`.

**How each segment was made** (:func:`segment_algorithm`, from the provenance of the
segment's polygons, docs/annotate.md): *MANUAL* when every polygon was drawn by hand (polygon,
freehand, brush; edited or not) or there is none; *AUTOMATIC* when every polygon is one
model's prediction, unedited (Segment Algorithm Name and version: the model's, family
*Artificial Intelligence*); otherwise *SEMIAUTOMATIC*, named ``slicereview: `` and the tools
(``manual, wand``, ``model-edited NAME``), family a private *interactive segmentation tools*
code, with the polygons per tool and the edited ones as the algorithm's parameters. A segment
is one certainty level of one annotator, so one annotation's two segments may differ.

* An image not from DICOM (PNG, NIfTI...) is skipped with one line (:attr:`DicomReport.skipped`)
  and counted; so is an image whose source cannot be read now.
* An annotation with no pixel (``nothing to annotate``, or polygons outside the image) gets a
  SEG with empty segments only with ``include_empty``; otherwise it is skipped and counted.
* The SEG is in the source's study: one series per source study and annotator (or
  consensus), its description naming the project, phase and round. Its UIDs are derived from
  its content (:mod:`.identity`): exporting the same annotation again gives the same object.
* ``deidentify`` (:class:`Sources`): built on the source's de-identified copy, so it carries
  no patient data and references the de-identified UIDs (docs/privacy.md).

Files: ``{case_id}_{rater}.seg.dcm`` or ``{case_id}_consensus-{method}.seg.dcm``, and
``index.csv`` (file, case id, rater, SOP Instance UID of the SEG and of its source).

Example
-------
>>> from slicereview.app.exporting.seg import export_seg  # doctest: +SKIP
>>> export_seg(project, "out/").files  # doctest: +SKIP
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydicom import Dataset

from slicereview.app.exporting.identity import digest
from slicereview.app.exporting.masks import (
    DEFAULT_STATUSES,
    ExportItem,
    Progress,
    _unique,
    safe_name,
    select,
)
from slicereview.app.images.pacs import Credentials, Locator, local_file
from slicereview.engines.dicomout.common import Authoring
from slicereview.engines.imaging.formats import DICOM
from slicereview.engines.masks import CERTAIN, UNCERTAIN
from slicereview.model import Image, Polygon, Tool
from slicereview.store import Project

if TYPE_CHECKING:
    from slicereview.engines.dicomout.seg import Algorithm


@dataclass
class DicomReport:
    """What a DICOM export wrote: ``files`` (objects, then the index), ``objects`` per image
    or annotation id (what an SR references), and what was left out, one line each."""

    files: list[Path] = field(default_factory=list)
    written: int = 0
    #: annotation id (or ``-image id`` for a consensus) → the SEG written for it
    objects: dict[int, Dataset] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def skip(self, case_id: str, reason: str) -> None:
        """Leave ``case_id`` out for ``reason`` (listed once per image and reason)."""
        if (case_id, reason) not in self.skipped:
            self.skipped.append((case_id, reason))

    def summary(self, what: str) -> str:
        text = f"{self.written} {what} written"
        if self.skipped:
            text += f"; {len(self.skipped)} skipped"
        return text


class Sources:
    """The DICOM header of each image's source, read once (fetched from the PACS when the
    cache lost it), and the series of one export. ``deidentify``: the header of the source's
    shared copy (docs/privacy.md), so that the objects carry no patient data and reference the
    de-identified UIDs."""

    def __init__(self, project: Project, credentials: Credentials | None = None,
                 deidentify: bool = False) -> None:
        from slicereview.app.images.limits import project_limits

        self.project = project
        self.deidentify = deidentify
        self.locator = Locator(project, credentials)
        self.max_bytes = project_limits(project).max_decoded_bytes
        self.project_uid = project.meta("project_uuid") or project.name
        self._headers: dict[int, Dataset | str] = {}
        self._series: dict[tuple[str, str], Authoring] = {}

    def header(self, image: Image) -> Dataset | str:
        """The source's data set without pixel data, or why there is none (one line)."""
        if image.source_id not in self._headers:
            self._headers[image.source_id] = self._read(image)
        return self._headers[image.source_id]

    def _read(self, image: Image) -> Dataset | str:
        import pydicom

        if image.format != DICOM:
            return f"not from DICOM ({image.format})"
        try:
            if self.deidentify:
                ds = self._shared(image)
            else:
                path = local_file(self.locator.file_of(image), self.max_bytes)
                ds = pydicom.dcmread(path, stop_before_pixels=True)
            for keyword in ("StudyInstanceUID", "SeriesInstanceUID", "SOPInstanceUID",
                            "SOPClassUID", "Rows", "Columns"):
                if keyword not in ds:
                    return f"its DICOM source has no {keyword}"
            return ds
        except FileNotFoundError:
            return "its source file is missing (relink the project)"
        except Exception as exc:  # one unreadable source must not stop the export
            return " ".join(str(exc).split())[:200] or type(exc).__name__

    def _shared(self, image: Image) -> Dataset:
        import io

        import pydicom

        from slicereview.app.images import sharing

        if not self.project.privacy.is_owner_login():  # (this login reads shared copies)
            path = local_file(self.locator.file_of(image), self.max_bytes)
            return pydicom.dcmread(path, stop_before_pixels=True)
        source = next(s for s in self.project.images.sources() if s.id == image.source_id)
        data = sharing.copy_bytes(self.project, source, self.locator)
        return pydicom.dcmread(io.BytesIO(data), stop_before_pixels=True)

    def uid(self, *parts: object) -> str:
        """A UID derived from this project, the export's kind (de-identified or not) and
        ``parts`` (:mod:`.identity`)."""
        from slicereview.app.exporting.identity import derived_uid

        return derived_uid(self.project_uid, self.deidentify, *parts)

    def authoring(self, source: Dataset, who: str, description: str) -> Authoring:
        """The next instance of the series of ``who`` in ``source``'s study (a new series per
        study and author in one export)."""
        import dataclasses

        from slicereview import __version__

        key = (str(source.StudyInstanceUID), who)
        current = self._series.get(key)
        if current is None:
            current = Authoring(description, __version__,
                                self.uid("series", key[0], who, description),
                                series_number=900 + len(self._series), instance_number=0)
        current = dataclasses.replace(current, instance_number=current.instance_number + 1)
        self._series[key] = current
        return current


def describe(project: Project, phase: str, round: int) -> str:
    """The series description: project, phase and round."""
    return f"{project.name}: {phase}, round {round}"


def export_seg(project: Project, out_dir: str | Path, *, consensus: str | None = None,
               level: str = "relaxed", include_empty: bool = False,
               credentials: Credentials | None = None, progress: Progress | None = None,
               sources: Sources | None = None, **filters) -> DicomReport:
    """Write DICOM SEG files (see the module text); ``filters`` (``phase``, ``round``,
    ``raters``) go to :func:`~slicereview.app.exporting.masks.select`."""
    from slicereview.engines.dicomout.seg import Segment

    filters.pop("statuses", None)
    phase, round_ = str(filters.get("phase", "formal")), int(filters.get("round", 1))
    items = select(project, statuses=DEFAULT_STATUSES, **filters)
    sources = sources or Sources(project, credentials)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = DicomReport()
    rows: list[list[str]] = []
    description = describe(project, phase, round_)
    tasks: list[tuple[Sequence[ExportItem], Callable[[], tuple[list, dict]]]] = []
    if consensus is None:
        for item in items:
            def task(item: ExportItem = item) -> tuple[list, dict]:
                labels = item.labels()
                made = {c: _made(item, c) for c in ("certain", "uncertain")}
                return ([Segment("certain", labels == CERTAIN, "drawn as certain",
                                 made["certain"]),
                         Segment("uncertain", labels == UNCERTAIN,
                                 "drawn as uncertain (certain wins where both)",
                                 made["uncertain"])],
                        {"creator": item.rater.label})
            tasks.append(([item], task))
    else:
        tasks = _consensus_tasks(items, consensus, level, report)
    for k, (group, make) in enumerate(tasks):
        first = group[0]
        case = first.image.case_id
        if progress is not None:
            progress(k, len(tasks), case)
        source = sources.header(first.image)
        if isinstance(source, str):
            report.skip(case, source)
            continue
        segments, options = make()
        if not include_empty and not any(np.any(s.mask) for s in segments):
            report.skip(case, "empty annotation (use --include-empty to write it)")
            continue
        who = options["creator"] if consensus is None else f"consensus {consensus}"
        key = first.annotation.id if consensus is None else -first.image.id
        options["sop_uid"] = sources.uid("seg", key, round_, level, consensus,
                                         source.SOPInstanceUID,
                                         digest([s.mask for s in segments]))
        try:
            seg = _build(source, segments, sources.authoring(
                source, who, f"{description}, {who}"), first.image, include_empty, options)
        except Exception as exc:  # one image highdicom refuses must not stop the export
            report.skip(case, " ".join(str(exc).split())[:200])
            continue
        stem = (f"{safe_name(case)}_{safe_name(who)}" if consensus is None
                else f"{safe_name(case)}_consensus-{consensus}")
        path = _unique(out, stem, ".seg.dcm", report.files)
        seg.save_as(path, enforce_file_format=True)
        report.files.append(path)
        report.written += 1
        report.objects[key] = seg
        rows.append([path.name, case, who, seg.SOPInstanceUID, source.SOPInstanceUID])
    if progress is not None:
        progress(len(tasks), len(tasks), "")
    report.files.append(_write_index(out, rows))
    return report


def _made(item: ExportItem, certainty: str) -> Algorithm | None:
    """How the ``certainty`` segment of ``item`` was made; an empty segment was made as the
    whole annotation was (a model's, even with nothing found: the model), so that a model's
    SEG names the model in every segment (``predictions import --dicomweb`` keeps a SEG by
    that, :mod:`slicereview.app.models.seg_origin`)."""
    polygons = [p for p in item.polygons if str(p.certainty) == certainty]
    if polygons:
        return segment_algorithm(polygons)
    if item.polygons:
        return segment_algorithm(item.polygons)
    if item.rater.is_model:
        stand_in = Polygon(np.array([[0, 0], [1, 0], [1, 1]], float), tool=Tool.MODEL,
                           model=item.rater.label)
        return segment_algorithm([stand_in])
    return None


def segment_algorithm(polygons: Sequence[Polygon]) -> Algorithm | None:
    """How a segment of ``polygons`` was made, as its SEG says it (see the module text):
    ``None`` for MANUAL, else the AUTOMATIC or SEMIAUTOMATIC :class:`Algorithm`.

    >>> from slicereview.model import Polygon
    >>> v = [[0, 0], [4, 0], [4, 4]]
    >>> segment_algorithm([Polygon(v), Polygon(v, tool="freehand", edited=True)]) is None
    True
    >>> made = segment_algorithm([Polygon(v), Polygon(v, tool="wand", edited=True)])
    >>> made.kind, made.name, made.parameters
    ('SEMIAUTOMATIC', 'slicereview: manual, wand', {'manual': '1', 'wand': '1', 'edited': '1'})
    >>> made = segment_algorithm([Polygon(v, tool="model", model="net@2.1")])
    >>> made.kind, made.name, made.version, made.family.meaning
    ('AUTOMATIC', 'net', '2.1', 'Artificial Intelligence')
    """
    from slicereview import __version__
    from slicereview.app.annotating import HAND_TOOLS, in_tool_order, tool_name
    from slicereview.engines.dicomout.seg import ASSISTED_FAMILY, MODEL_FAMILY, Algorithm

    if all(p.tool in HAND_TOOLS for p in polygons):
        return None
    models = {p.model for p in polygons}
    if len(models) == 1 and all(p.tool is Tool.MODEL and not p.edited for p in polygons):
        name, _, version = str(polygons[0].model).partition("@")
        return Algorithm(name, version or "unversioned", {}, "AUTOMATIC", MODEL_FAMILY)
    counts: dict[str, int] = {}
    for p in in_tool_order(polygons):
        key = (f"model-edited {p.model}" if p.tool is Tool.MODEL and p.edited
               else tool_name(p.tool, p.model))
        counts[key] = counts.get(key, 0) + 1
    parameters = {k: str(n) for k, n in counts.items()}
    parameters["edited"] = str(sum(p.edited for p in polygons))
    return Algorithm("slicereview: " + ", ".join(counts), __version__, parameters,
                     "SEMIAUTOMATIC", ASSISTED_FAMILY)


def _build(source: Dataset, segments: list, authoring: Authoring, image: Image,
           include_empty: bool, options: dict) -> Dataset:
    from slicereview.engines.dicomout.seg import segmentation

    return segmentation(source, segments, authoring, creator=options["creator"],
                        fractional=options.get("fractional", False),
                        algorithm=options.get("algorithm"), frame=image.frame,
                        include_empty=include_empty, sop_uid=options.get("sop_uid"),
                        content_label="CONSENSUS" if "algorithm" in options else "ANNOTATION")


def _consensus_tasks(items: list[ExportItem], method: str, level: str, report: DicomReport
                    ) -> list[tuple[Sequence[ExportItem], Callable[[], tuple[list, dict]]]]:
    from slicereview import __version__
    from slicereview.engines.agreement.consensus_masks import (
        CONSENSUS_METHODS,
        majority_vote,
        staple,
    )
    from slicereview.engines.dicomout.seg import Algorithm, Segment

    if method not in CONSENSUS_METHODS:
        raise ValueError(f"consensus must be one of {', '.join(CONSENSUS_METHODS)}, "
                         f"got {method!r}")
    by_image: dict[int, list[ExportItem]] = {}
    for item in items:
        if not item.rater.is_model:  # (the people's consensus: a model is no voter)
            by_image.setdefault(item.image.id, []).append(item)
    tasks: list[tuple[Sequence[ExportItem], Callable[[], tuple[list, dict]]]] = []
    for group in by_image.values():
        if len(group) < 2:
            report.skip(group[0].image.case_id,
                        "a single finished annotation (a consensus needs two or more)")
            continue

        def task(group: list[ExportItem] = group) -> tuple[list, dict]:
            labels = np.stack([item.labels() for item in group])
            names = ", ".join(item.rater.label for item in group)
            algorithm = Algorithm("STAPLE" if method == "staple" else "majority vote",
                                  __version__, {"level": level, "annotators": str(len(group))})
            if method == "staple":
                mask = staple(labels, level).probability  # type: ignore[arg-type]
            else:
                mask = majority_vote(labels, level)  # type: ignore[arg-type]
            segment = Segment(f"consensus ({method})", mask, f"{method} of {names}")
            return [segment], {"creator": f"slicereview {method}", "algorithm": algorithm,
                               "fractional": method == "staple"}
        tasks.append((group, task))
    return tasks


def _write_index(out: Path, rows: list[list[str]]) -> Path:
    path = out / "index.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["file", "case_id", "author", "sop_instance_uid",
                         "source_sop_instance_uid"])
        writer.writerows(rows)
    return path
