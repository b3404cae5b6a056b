"""Pulling a model's SEG objects from a PACS: ``predictions import --dicomweb URL``.

AI results on a PACS are DICOM SEG objects stored in the study of the images they segment.
For every study of the project's DICOM images (the Study Instance UID of each source: from
its PACS reference, or read from its file's header), the service is asked (QIDO-RS) for its
series of modality ``SEG`` and their instances, and each SEG is fetched (WADO-RS) into the
DICOMweb cache (:mod:`slicereview.engines.dicomweb.cache`), at most
:attr:`~slicereview.engines.imaging.limits.Limits.max_decoded_bytes` each. The files are then
imported like any SEG file (:mod:`.importing`: matched by the SOP Instance UIDs they
reference). With ``model=(NAME, VERSION)`` only the SEGs that model made are kept
(:mod:`.seg_origin`: each fetched SEG's header is read, its pixels are not); every other SEG
is one ``skipped`` line of the report. The series list (QIDO-RS) cannot say which algorithm
made a SEG (slicereview's own export, for one, describes the series by project and phase),
so every SEG series is fetched and its header read. A study the service does not know, or a
SEG that cannot be fetched, is one line of the report; the others go on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from slicereview.model import Image
from slicereview.store import Project

Progress = Callable[[int, int, str], None]


@dataclass
class PulledSegs:
    """``files``: the SEG files fetched and kept; ``failed``: ``(what, why)``; ``studies``:
    asked; ``skipped``: ``(SOP Instance UID, who made it)`` of the SEGs another algorithm or
    a person made; ``model``: the label the SEGs were kept for (``""``: every SEG)."""

    studies: int = 0
    files: list[Path] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    model: str = ""

    def lines(self) -> list[str]:
        more = f", {len(self.skipped)} skipped" if self.skipped else ""
        return ([f"pulled     {len(self.files)} SEG object(s) from {self.studies} "
                 f"stud{'y' if self.studies == 1 else 'ies'}{more}"]
                + [f"skipped    SEG {uid}: made by {who}, not {self.model}"
                   for uid, who in self.skipped]
                + [f"refused    {what}: {why}" for what, why in self.failed])


def project_studies(project: Project) -> list[str]:
    """The Study Instance UIDs of the project's DICOM sources, in source order."""
    from pydicom import dcmread

    from slicereview.app.images.pacs import Locator, local_file
    from slicereview.engines.imaging.formats import DICOM

    refs = project.dicomweb.refs()
    found: dict[str, None] = {}
    locator = None
    first_image: dict[int, Image] = {}
    for image in project.images.all():
        first_image.setdefault(image.source_id, image)
    for source in project.images.sources():
        if source.id in refs:
            found.setdefault(refs[source.id][0].study_uid, None)
            continue
        if source.format != DICOM or source.id not in first_image:
            continue
        locator = locator or Locator(project)
        try:
            path = local_file(locator.file_of(first_image[source.id], original=True), 1 << 31)
            ds = dcmread(path, stop_before_pixels=True, specific_tags=["StudyInstanceUID"],
                         force=True)
        except Exception:  # (a file missing now: its study is not asked for)
            continue
        uid = str(ds.get("StudyInstanceUID", ""))
        if uid:
            found.setdefault(uid, None)
    return list(found)


def pull_segs(project: Project, url: str, *, auth=None, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None,
              model: tuple[str, str | None] | None = None) -> PulledSegs:
    """Fetch the SEG objects of the project's studies from the DICOMweb service at ``url``
    (see the module text). ``auth``: the service's credentials (default: the environment's,
    :class:`~slicereview.app.images.pacs.Credentials`); ``model``: ``(name, version)`` of the
    model whose SEGs are kept (``None``: every SEG)."""
    from slicereview.app.images.limits import project_limits
    from slicereview.app.images.pacs import Credentials
    from slicereview.engines.dicomweb import cache
    from slicereview.engines.dicomweb.auth import check_url
    from slicereview.engines.dicomweb.client import Server
    from slicereview.engines.dicomweb.errors import AuthenticationError, DicomwebError

    url = check_url(url)
    auth = auth if auth is not None else Credentials().get(url)
    limit = project_limits(project).max_decoded_bytes
    studies = project_studies(project)
    report = PulledSegs(len(studies))
    if model is not None:
        report.model = model[0] + (f"@{model[1]}" if model[1] else "")
    with Server(url, auth) as server:
        for k, study in enumerate(studies):
            if cancelled is not None and cancelled():
                break
            if progress is not None:
                progress(k, len(studies), study)
            try:
                rows = [i for s in server.series(study, modality="SEG")
                        for i in server.instances(study, s.series_uid)]
            except AuthenticationError:
                raise
            except DicomwebError as why:
                report.failed.append((f"study {study}", str(why)))
                continue
            for row in rows:
                dest = cache.cache_file(url, row.sop_uid)
                try:
                    if not dest.is_file():
                        server.retrieve(row, dest, limit)
                except DicomwebError as why:
                    report.failed.append((f"SEG {row.sop_uid}", str(why)))
                    continue
                if model is not None:
                    who = _other_maker(dest, model)
                    if who is not None:
                        report.skipped.append((row.sop_uid, who))
                        continue
                report.files.append(dest)
    if progress is not None:
        progress(len(studies), len(studies), "")
    return report


def _other_maker(path: Path, model: tuple[str, str | None]) -> str | None:
    """``None`` when ``model`` made the SEG at ``path``, else who did (a report's words)."""
    from pydicom import dcmread

    from slicereview.app.models.seg_origin import maker_text, matches

    try:
        seg = dcmread(path, stop_before_pixels=True, force=True)
    except Exception:  # (unreadable: the import reports it)
        return None
    return None if matches(seg, *model) else maker_text(seg)
