"""A DICOMweb service: study, series and instance lists (QIDO-RS), one instance into a file
(WADO-RS) and storing objects (STOW-RS), under the bounds of :mod:`.http`.

Lists come back as small row values with only what the user needs to choose (date, modality,
description, number of images); nothing from them is stored in a project but the UIDs of what
is imported.

Example
-------
>>> Server("http://127.0.0.1:1/dicom-web").url
'http://127.0.0.1:1/dicom-web'
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slicereview.engines.dicomweb import http
from slicereview.engines.dicomweb.errors import DicomwebError
from slicereview.engines.dicomweb.multipart import boundary_of, read_parts

_DICOM_ACCEPT = 'multipart/related; type="application/dicom"; transfer-syntax=*'


@dataclass(frozen=True)
class StudyRow:
    study_uid: str
    date: str
    modalities: str
    description: str
    images: int | None


@dataclass(frozen=True)
class SeriesRow:
    series_uid: str
    modality: str
    description: str
    images: int | None


@dataclass(frozen=True)
class InstanceRow:
    study_uid: str
    series_uid: str
    sop_uid: str


@dataclass
class StowReport:
    """What the server did with each object sent: ``stored`` SOP Instance UIDs and ``refused``
    ``(SOP Instance UID, the server's reason)``."""

    stored: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    #: SOP Instance UIDs the server held already (not sent again)
    held: list[str] = field(default_factory=list)


def _value(item: Any, tag: str) -> str:
    """The first value of ``tag`` in a DICOM JSON object as text ("" when absent or odd)."""
    try:
        values = item[tag].get("Value") or []
        first = values[0] if values else ""
        if isinstance(first, dict):  # a person name
            first = first.get("Alphabetic", "")
        return str(first)
    except (KeyError, TypeError, AttributeError, IndexError):
        return ""


def _values(item: Any, tag: str) -> str:
    try:
        return "/".join(str(v) for v in item[tag].get("Value") or [] if not isinstance(v, dict))
    except (KeyError, TypeError, AttributeError):
        return ""


def _count(item: Any, tag: str) -> int | None:
    text = _value(item, tag)
    return int(text) if text.isdigit() else None


def _date(text: str) -> str:
    return f"{text[:4]}-{text[4:6]}-{text[6:8]}" if len(text) == 8 and text.isdigit() else text


_UID_CHARS = set("0123456789.")


def _uid(text: str) -> str:
    return text if text and len(text) <= 64 and set(text) <= _UID_CHARS else ""


class Server:
    """One DICOMweb service at ``url`` (its base address, e.g. ``http://host/dicom-web``)."""

    def __init__(self, url: str, auth: http.Auth | None = None,
                 limits: http.NetLimits | None = None) -> None:
        self.url = http.check_url(url)
        self.where = http.origin(self.url)
        self.limits = limits or http.NetLimits()
        self.auth = auth
        self._session = http.session(auth, self.limits)
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The dicomweb-client ``DICOMwebClient`` (created on first use; no retries: a failing
        server gets one plain sentence at once)."""
        if self._client is None:
            from dicomweb_client import DICOMwebClient

            self._client = DICOMwebClient(self.url, session=self._session)
            self._client.set_http_retry_params(retry=False)
        return self._client

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _list(self, what: str, route: str, params: dict[str, Any]) -> list[dict]:
        """A QIDO-RS search. The query is built here with ``*`` left as it is: the client
        library percent-encodes wildcards, which Orthanc then matches literally."""
        from urllib.parse import urlencode

        query = urlencode(params, doseq=True, safe="*")
        with http.translate(self.where):
            response = self._session.get(f"{self.url}/{route}?{query}", headers={
                "Accept": "application/dicom+json, application/json"})
            if not response.ok:
                raise http.http_error(self.where, response)
            result = response.json() if response.content else []
        if not isinstance(result, list) or not all(isinstance(r, dict) for r in result):
            raise DicomwebError(f"The PACS at {self.where} sent a {what} list slicereview "
                                "cannot read (not a list of DICOM JSON objects).")
        return result

    # -- QIDO-RS ---------------------------------------------------------------------------
    def studies(self, search: str = "", modality: str | None = None,
                limit: int = 500) -> list[StudyRow]:
        """Studies, newest first; ``search`` matches the description (``*`` wildcards added),
        or the date when it is ``YYYYMMDD`` or ``YYYYMMDD-YYYYMMDD``."""
        filters: dict[str, str] = {}
        text = search.strip()
        if text:
            compact = text.replace("-", "")
            if compact.isdigit() and len(compact) in (8, 16):
                filters["StudyDate"] = (compact if len(compact) == 8
                                        else f"{compact[:8]}-{compact[8:]}")
            else:
                filters["StudyDescription"] = f"*{text}*"
        if modality:
            filters["ModalitiesInStudy"] = modality
        fields = ["StudyDate", "StudyDescription", "ModalitiesInStudy",
                  "NumberOfStudyRelatedInstances"]
        rows = self._list("study", "studies",
                          {"limit": limit, "includefield": fields, **filters})
        out = [StudyRow(_uid(_value(r, "0020000D")), _date(_value(r, "00080020")),
                        _values(r, "00080061"), _value(r, "00081030"),
                        _count(r, "00201208")) for r in rows]
        out = [r for r in out if r.study_uid]
        return sorted(out, key=lambda r: r.date, reverse=True)

    def series(self, study_uid: str, modality: str | None = None) -> list[SeriesRow]:
        filters = {"Modality": modality} if modality else {}
        fields = ["Modality", "SeriesDescription", "NumberOfSeriesRelatedInstances"]
        rows = self._list("series", f"studies/{study_uid}/series",
                          {"includefield": fields, **filters})
        out = [SeriesRow(_uid(_value(r, "0020000E")), _value(r, "00080060"),
                         _value(r, "0008103E"), _count(r, "00201209")) for r in rows]
        return [r for r in out if r.series_uid]

    def instances(self, study_uid: str, series_uid: str) -> list[InstanceRow]:
        rows = self._list("instance", f"studies/{study_uid}/series/{series_uid}/instances", {})
        out = [InstanceRow(study_uid, series_uid, _uid(_value(r, "00080018"))) for r in rows]
        return [r for r in out if r.sop_uid]

    def holds(self, sop_uid: str) -> bool:
        """Whether the server holds the instance ``sop_uid`` (a QIDO-RS search by its SOP
        Instance UID)."""
        rows = self._list("instance", "instances", {"SOPInstanceUID": sop_uid})
        return any(_uid(_value(r, "00080018")) == sop_uid for r in rows)

    # -- WADO-RS ---------------------------------------------------------------------------
    def retrieve(self, instance: InstanceRow, dest: Path, max_bytes: int) -> tuple[str, int]:
        """Write one instance's DICOM file (Part 10, as the server stores it: any transfer
        syntax) to ``dest``; returns ``(SHA-256, size)``. ``dest`` is written through a
        temporary file beside it, so it is whole or absent."""
        url = (f"{self.url}/studies/{instance.study_uid}/series/{instance.series_uid}"
               f"/instances/{instance.sop_uid}")
        deadline = time.monotonic() + self.limits.total_timeout_s
        dest.parent.mkdir(parents=True, exist_ok=True)
        with http.translate(self.where):
            response = self._session.get(url, headers={"Accept": _DICOM_ACCEPT}, stream=True)
        with response:
            if not response.ok:
                raise http.http_error(self.where, response)
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) > max_bytes:
                raise DicomwebError(
                    f"The PACS at {self.where} announced {int(length) / (1 << 30):.1f} GB for "
                    f"one image, more than the limit of {max_bytes >> 20} MB "
                    "(max_decoded_bytes); nothing was read.")
            boundary = boundary_of(response.headers.get("content-type", ""))
            if boundary is None:
                raise DicomwebError(f"The PACS at {self.where} sent an image without a "
                                    "multipart boundary; it is not a DICOMweb answer.")
            tmp = dest.with_name(f".{dest.name}.{os.getpid()}")
            parts = read_parts(http.read_chunks(response, deadline, self.where), boundary,
                               lambda k: tmp.with_suffix(f".{k}"), max_bytes, self.where)
        try:
            if len(parts) != 1:
                raise DicomwebError(f"The PACS at {self.where} sent {len(parts)} objects for "
                                    "one image; nothing was kept.")
            with open(parts[0], "rb") as fh:
                head = fh.read(132)
            if len(head) < 132 or head[128:132] != b"DICM":
                raise DicomwebError(f"The PACS at {self.where} sent something that is not a "
                                    "DICOM file for an image; nothing was kept.")
            digest = _sha256(parts[0])
            size = parts[0].stat().st_size
            os.replace(parts[0], dest)
            return digest, size
        finally:
            for part in parts:
                part.unlink(missing_ok=True)

    # -- STOW-RS ---------------------------------------------------------------------------
    def store(self, files: Sequence[Path], progress: Callable[[int, int, str], None]
              | None = None) -> StowReport:
        """Send each DICOM file in its own request (so one refused object never takes the
        others with it) and report what was stored and what was refused, with the server's
        reason. An object the server holds already (asked by its SOP Instance UID first,
        :meth:`holds`) is not sent again: it is reported ``held``."""
        import pydicom
        import requests

        report = StowReport()
        for k, path in enumerate(files):
            if progress is not None:
                progress(k, len(files), Path(path).name)
            ds = pydicom.dcmread(path)
            uid = str(ds.SOPInstanceUID)
            try:
                with http.translate(self.where):
                    if self.holds(uid):
                        report.held.append(uid)
                        continue
                    try:
                        answer = self.client.store_instances([ds])
                    except requests.HTTPError as exc:
                        if exc.response is None or exc.response.status_code in (401, 403):
                            raise
                        report.refused.append((uid, _refusal(exc.response)))
                        continue
            except DicomwebError:
                raise  # unreachable, refused log-in, misbehaving: the rest would fail alike
            failed = answer.get("FailedSOPSequence") or []
            if failed:
                report.refused.append((uid, "the server refused it (failure reason "
                                            f"{_failure(failed[0].get('FailureReason'))})"))
            else:
                report.stored.append(uid)
        if progress is not None:
            progress(len(files), len(files), "")
        return report


#: STOW-RS failure reasons ([DICOM-PS3.18, Table 10.5.3-1]; [DICOM-PS3.4] status codes).
_FAILURES = {0xA700: "out of resources", 0xA900: "data set does not match SOP class",
             0xC000: "cannot understand", 0x0110: "processing failure",
             0x0122: "SOP class not supported", 0xA7FF: "out of resources"}


def _failure(reason: Any) -> str:
    try:
        code = int(reason)
    except (TypeError, ValueError):
        return "unknown"
    return f"0x{code:04X}, {_FAILURES.get(code, 'unknown')}"


def _refusal(response: Any) -> str:
    """The server's reason for refusing one object: the STOW-RS failure reason of its answer,
    else the message of Orthanc's error answer, else the HTTP status."""
    status = f"HTTP {response.status_code} {response.reason or ''}".strip()
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        failed = body.get("00081198", {}).get("Value") or []
        if failed and isinstance(failed[0], dict):
            code = (failed[0].get("00081197", {}).get("Value") or [None])[0]
            return f"the server refused it ({status}: failure reason {_failure(code)})"
        message = " ".join(str(body.get(k, "")) for k in ("Message", "Details")).strip()
        if message:
            return f"the server refused it ({status}: {message[:200]})"
    return f"the server refused it ({status})"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
