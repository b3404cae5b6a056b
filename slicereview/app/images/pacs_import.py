"""Import images from a PACS over DICOMweb: QIDO-RS lists, WADO-RS retrieves, and the project
stores references (service URL + UIDs) with the pixels in the bounded cache.

:func:`import_dicomweb` runs in three steps, **all or nothing**:

1. *listing* — the studies given (or every study the server lists, optionally of one
   modality and a date range, at most a cap: :mod:`~slicereview.app.images.pacs_listing`),
   their series (optionally only some, or of one modality) and instances, with progress and
   Cancel; instances already in the project (same server and SOP Instance UID, or the same
   SOP Instance UID from another server) are duplicates and not fetched;
2. *fetching* — each instance is retrieved into the cache; an instance whose SHA-256 is that
   of a source already in the project (a file imported from disk, say) is a duplicate;
3. *checking and storing* — the decoding child reads each cached file exactly as it reads a
   file from disk (the same header checks, limits and refusals, the same allow-list of
   technical metadata: no patient data), and the readable ones are added in one transaction.

A PACS that misbehaves (unreachable, an error status, a redirect to another server, a wrong
content type, a cut-off or oversized answer, a server too slow) stops the import with one
plain sentence (:class:`~slicereview.engines.dicomweb.errors.DicomwebError`) and nothing is
added; the files it had fetched are removed from the cache. Cancel does the same. An instance
the checks refuse is listed as unreadable, as a file would be, and the others are added.

Example
-------
>>> from slicereview.app.images.pacs_import import import_dicomweb  # doctest: +SKIP
>>> import_dicomweb(project, "http://localhost:8042/dicom-web",  # doctest: +SKIP
...                 studies=["1.2.3"]).summary()
'2 files added (2 images); 0 duplicates skipped; 0 unreadable'
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from slicereview.app.images.importing import (
    CancelFn,
    ImportReport,
    ProgressFn,
    _intent_warning,
    _share,
)
from slicereview.app.images.limits import DECODED_AT_IMPORT, project_limits
from slicereview.app.images.pacs_listing import MAX_STUDIES, ListingCancelled, list_instances
from slicereview.engines.dicomweb.cache import cache_file, trim
from slicereview.engines.dicomweb.client import InstanceRow, Server
from slicereview.engines.dicomweb.http import Auth, NetLimits, check_url
from slicereview.engines.imaging.errors import ImagingError
from slicereview.engines.imaging.formats import DICOM
from slicereview.engines.imaging.importer import SliceSelection, read_entries_many
from slicereview.engines.imaging.limits import Limits
from slicereview.model import DicomwebRef
from slicereview.store import Project

#: Instances checked per round trip to the decoding child.
_GROUP = 8


def import_dicomweb(project: Project, url: str, *, studies: Sequence[str] = (),
                    series: Sequence[str] = (), modality: str | None = None, date: str = "",
                    max_studies: int = MAX_STUDIES, auth: Auth | None = None,
                    progress: ProgressFn | None = None, cancel: CancelFn | None = None,
                    limits: Limits | None = None, net_limits: NetLimits | None = None
                    ) -> ImportReport:
    """Import instances from the DICOMweb service at ``url`` (see the module text).

    Without ``studies``, every study listed (of ``modality`` and the StudyDate range ``date``,
    ``YYYYMMDD[-YYYYMMDD]``, when given), at most ``max_studies``
    (:func:`~slicereview.app.images.pacs_listing.list_instances`: more is refused with
    :class:`~slicereview.app.images.pacs_listing.TooManyStudiesError`). ``progress(done,
    total, what)`` is called while listing (``"listing study 3 of 40"``), before each fetch
    and at the end; ``cancel()`` is polled before each request (Cancel while listing or
    fetching: ``report.cancelled``, nothing added). Raises
    :class:`~slicereview.engines.dicomweb.errors.DicomwebError` when the server fails or
    misbehaves (nothing added).
    """
    url = check_url(url)
    limits = limits or project_limits(project)
    report = ImportReport()
    fetched: list[Path] = []
    with Server(url, auth, net_limits) as server:
        try:
            rows = list_instances(server, studies, series, modality, date=date,
                                  max_studies=max_studies, progress=progress, cancel=cancel)
        except ListingCancelled:
            report.cancelled = True
            return report
        todo: list[tuple[InstanceRow, Path, str, int]] = []
        seen: set[str] = set()
        try:
            for k, row in enumerate(rows):
                if cancel is not None and cancel():
                    report.cancelled = True
                    break
                if progress is not None:
                    progress(k, len(rows), row.sop_uid)
                if row.sop_uid in seen or project.dicomweb.sop_known(row.sop_uid):
                    report.duplicates.append(_ref(url, row).wado_url)
                    continue
                seen.add(row.sop_uid)
                path = cache_file(url, row.sop_uid)
                digest, size = server.retrieve(row, path, limits.max_decoded_bytes)
                fetched.append(path)
                if project.images.source_by_hash(digest) is not None or digest in {
                        t[2] for t in todo}:
                    report.duplicates.append(_ref(url, row).wado_url)
                    continue
                todo.append((row, path, digest, size))
            if report.cancelled:
                raise _Cancelled
            _check_and_store(project, url, todo, report, limits)
        except BaseException as exc:  # nothing was added: the fetched files go
            for path in fetched:
                with contextlib.suppress(OSError):
                    path.unlink()
            if isinstance(exc, _Cancelled):
                return report
            raise
    for path in fetched:  # duplicates need no cache copy
        if path not in {p for _, p, _, _ in todo}:
            with contextlib.suppress(OSError):
                path.unlink()
    trim()
    _share(project, report)
    if progress is not None:
        progress(len(rows), len(rows), "")
    warning = _intent_warning(project, _intents(project, report.image_ids))
    if warning:
        report.warnings.append(warning)
    return report


class _Cancelled(Exception):
    pass


def _ref(url: str, row: InstanceRow) -> DicomwebRef:
    return DicomwebRef(url, row.study_uid, row.series_uid, row.sop_uid)


def _check_and_store(project: Project, url: str, todo: list[tuple[InstanceRow, Path, str, int]],
                     report: ImportReport, limits: Limits) -> None:
    """Read the fetched files in the decoding child, then add the readable ones in one
    transaction."""
    results = []
    for start in range(0, len(todo), _GROUP):
        group = todo[start:start + _GROUP]
        results.extend(read_entries_many([(path, DICOM) for _, path, _, _ in group],
                                         SliceSelection(), limits=limits))
    with project.transaction():
        for (row, path, digest, size), result in zip(todo, results, strict=True):
            ref = _ref(url, row)
            if isinstance(result, Exception):
                reason = (str(result) if isinstance(result, ImagingError)
                          else "slicereview could not read this instance, so it was left out.")
                report.failed.append((ref.wado_url, reason.replace(path.name, ref.sop_uid)))
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            info, images = result
            images = [replace(images[0], info={**(images[0].info or {}),
                                               DECODED_AT_IMPORT: True}), *images[1:]]
            ids = project.dicomweb.add_source(ref, digest, size, images, info)
            report.added_files += 1
            report.added_images += len(ids)
            report.image_ids.extend(ids)


def _intents(project: Project, image_ids: list[int]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for image in project.images.all(image_ids):
        intent = str(image.info.get("presentation_intent") or "").upper()
        if intent:
            counts[intent] = counts.get(intent, 0) + 1
    return counts
