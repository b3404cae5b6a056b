"""What an import from a PACS fetches, and the GUI's study list: the listing step of
:func:`~slicereview.app.images.pacs_import.import_dicomweb` (:func:`list_instances`) and
:func:`list_studies`.

Rules held here:

* **a cap on what is listed** — an import that names no study takes every study the PACS
  lists (of a modality and a date range, when given), at most :data:`MAX_STUDIES` of them
  (``max_studies``, ``--max-studies``): each study costs a series query and each series an
  instance query, so a PACS of 10,000 studies used to keep ``import`` at "listing the studies"
  for many minutes. More studies than the cap are refused before any series is asked for, with
  a sentence that says how many there are (counted up to :data:`COUNT_LIMIT`) and how to
  narrow them (:class:`TooManyStudiesError`); nothing is imported;
* **progress while listing** — ``progress(0, 0, "listing the studies")`` before the study
  query, then ``progress(k, n, "listing study k+1 of n")`` before each study's series;
* **Cancel while listing** — ``cancel()`` is polled before every request;
  :class:`ListingCancelled` when it says so (the import then adds nothing);
* **the study list says when it is not all** — the GUI's list shows at most
  :data:`STUDY_ROWS` studies and says when the PACS has more (:class:`StudyList`).

Light to import (the CLI parses its options before it imports the network): the DICOMweb
client is imported by the functions that use it.

Example
-------
>>> date_filter("2024-01-01-2024-01-31"), date_filter("")
('20240101-20240131', '')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slicereview.engines.dicomweb.client import InstanceRow, Server, StudyRow
    from slicereview.engines.dicomweb.http import Auth, NetLimits

#: Studies an import that names none takes at most (``--max-studies`` raises it).
MAX_STUDIES = 500
#: Studies counted at most for the refusal's sentence ("at least 50,000").
COUNT_LIMIT = 50_000
#: Rows of the GUI's study list (search to narrow it).
STUDY_ROWS = 500


class TooManyStudiesError(ValueError):
    """The PACS lists more studies than an import that names none may take.

    ``count`` studies were listed (at least that many when ``at_least``), ``cap`` is the cap.
    """

    def __init__(self, message: str, count: int, cap: int, at_least: bool) -> None:
        super().__init__(message)
        self.count, self.cap, self.at_least = count, cap, at_least


class ListingCancelled(Exception):
    """Cancel was pressed while the studies, series or instances were being listed."""


@dataclass(frozen=True)
class StudyList:
    """The studies a search found (``rows``, newest first) and whether the PACS has
    ``more`` than were listed."""

    rows: list[StudyRow]
    more: bool


def date_filter(text: str) -> str:
    """``text`` (``YYYYMMDD`` or ``YYYYMMDD-YYYYMMDD``, dashes inside the dates allowed) as a
    QIDO-RS StudyDate filter; ``""`` for none. Anything else is a ValueError."""
    compact = text.strip().replace("-", "")
    if not compact:
        return ""
    if compact.isdigit() and len(compact) in (8, 16):
        return compact if len(compact) == 8 else f"{compact[:8]}-{compact[8:]}"
    raise ValueError(f"--date {text!r} is not a date: give YYYYMMDD or a range "
                     "YYYYMMDD-YYYYMMDD, e.g. --date 20240101-20240131")


def list_studies(url: str, auth: Auth | None = None, search: str = "",
                 net_limits: NetLimits | None = None, rows: int = STUDY_ROWS) -> StudyList:
    """The studies of the service at ``url`` matching ``search`` (a description, or a date
    ``YYYYMMDD[-YYYYMMDD]``), at most ``rows`` of them (the first the PACS sends, shown newest
    first), as :class:`~slicereview.engines.dicomweb.client.StudyRow` (date, modalities,
    description, number of images)."""
    from slicereview.engines.dicomweb.client import Server

    with Server(url, auth, net_limits) as server:
        found = server.studies(search, limit=rows + 1)
    return StudyList(found[:rows] if len(found) > rows else found, len(found) > rows)


Progress = Callable[[int, int, str], None]


def list_instances(server: Server, studies: Sequence[str] = (), series: Sequence[str] = (),
                   modality: str | None = None, *, date: str = "",
                   max_studies: int = MAX_STUDIES, progress: Progress | None = None,
                   cancel: Callable[[], bool] | None = None) -> list[InstanceRow]:
    """The instances an import of ``studies`` (every study listed when empty, of ``modality``
    and ``date`` when given, at most ``max_studies``), restricted to ``series`` and
    ``modality`` when given, would fetch (see the module text for the cap, progress and
    Cancel)."""
    def step(done: int, total: int, what: str) -> None:
        if cancel is not None and cancel():
            raise ListingCancelled
        if progress is not None:
            progress(done, total, what)

    dates = date_filter(date)
    if studies:
        if dates:
            raise ValueError("--date narrows the studies an import lists; with --study the "
                             "studies are named: give one or the other")
        study_uids = list(studies)
    else:
        step(0, 0, "listing the studies")
        if max_studies < 1:
            raise ValueError(f"--max-studies must be at least 1, not {max_studies}")
        listed = server.studies(dates, modality=modality, limit=max_studies + 1)
        if len(listed) > max_studies:
            step(0, 0, "counting the studies")
            raise _too_many(server, dates, modality, max_studies)
        study_uids = [s.study_uid for s in listed]
    wanted = set(series)
    rows: list[InstanceRow] = []
    for k, study in enumerate(study_uids):
        step(k, len(study_uids), f"listing study {k + 1} of {len(study_uids)}")
        for s in server.series(study, modality=modality):
            if wanted and s.series_uid not in wanted:
                continue
            step(k, len(study_uids), f"listing study {k + 1} of {len(study_uids)}")
            rows.extend(server.instances(study, s.series_uid))
    return rows


def _too_many(server: Server, dates: str, modality: str | None, cap: int
              ) -> TooManyStudiesError:
    from slicereview.engines.dicomweb.errors import DicomwebError

    try:
        count = len(server.studies(dates, modality=modality, limit=COUNT_LIMIT))
    except DicomwebError:  # (an answer too large to count: say "more than the cap")
        count = cap + 1
    at_least = count >= COUNT_LIMIT or count <= cap
    count = max(count, cap + 1)
    scope = (f" of modality {modality}" if modality else "") + (
        f" of {dates[:8]}" if len(dates) == 8 else
        f" from {dates[:8]} to {dates[9:]}" if dates else "")
    listed = f"{'at least ' if at_least else ''}{count:,} studies{scope}"
    return TooManyStudiesError(
        f"The PACS at {server.where} lists {listed}, more than the {cap:,} an import without "
        "--study takes, so nothing was imported; name the studies to import with --study "
        "UID (File > Import from PACS… lists and searches them), narrow them with --modality "
        f"CODE or --date YYYYMMDD[-YYYYMMDD], or raise the cap with --max-studies {count}.",
        count, cap, at_least)
