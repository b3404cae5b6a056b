"""Shared copies: each source's de-identified copy, which everyone but the owner gets
(docs/privacy.md). Rules held here:

* **made once per source, kept** -- :func:`prepare` makes the copy of every source that has
  none (or one made by older rules) with :func:`slicereview.engines.deid.deidentify`, the
  project's seed and the UID map, and keeps it: a DICOM file as its de-identified header and
  the byte range of the original's pixel data, other formats as their SHA-256 (made again
  when needed); on a server the copy's bytes themselves, which the logins that cannot read
  the original are served. Import makes the copies of what it adds.
* **consistent UIDs, the map with the owner** -- every UID replaced is added to the owner's
  UID map (``project.privacy``), never to a package.
* **neutral names** -- a copy is named after its first image's case id (``C000012.dcm``); on a
  server whose images are named by case id, ``sources.path`` takes that name too and the
  original path moves to the owner's ``source_origins``.
* **burned-in text is flagged, not cleaned** -- pixels are never changed; an image with
  BurnedInAnnotation YES or of a kind that often burns text in (US, SC, secondary capture)
  carries warnings that the owner is shown before sharing (:func:`flagged`).
* **a file no rule can de-identify is never shared** -- :class:`NotShareable` lists it.

Example
-------
>>> import tempfile, pathlib, shutil
>>> from pydicom.data import get_testdata_file
>>> from slicereview.app.images.importing import import_paths
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = shutil.copy(get_testdata_file("CT_small.dcm"), folder / "Smith_John.dcm")
>>> with Project.create(folder / "p.srproj") as project:
...     _ = import_paths(project, [folder / "Smith_John.dcm"])
...     copy = project.privacy.copies()[1]
...     data = copy_bytes(project, project.images.sources()[0])
>>> copy.name, b"CompressedSamples" in data, len(data) == copy.size_bytes
('C000001.dcm', False, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slicereview.app.images.file_cache import NO_COPY_YET
from slicereview.app.images.limits import project_limits
from slicereview.app.images.pacs import Locator, local_file
from slicereview.engines.deid import RULES_VERSION, NotShareableError, SharedCopy, deidentify
from slicereview.engines.deid.parallel import copies_of
from slicereview.model import Image, SharedNames, SharedSource, Source
from slicereview.store import Project

Progress = Callable[[int, int, str], None]


class NotShareable(ValueError):
    """Images that have no shared copy (the message lists their case ids and why)."""


@dataclass
class PrepareReport:
    """What :func:`prepare` did: copies ``made``, ``kept`` (up to date already) and
    ``refused`` (case id, why)."""

    made: int = 0
    kept: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)

    @property
    def text(self) -> str:
        said = f"{self.made} de-identified cop{'y' if self.made == 1 else 'ies'} made, " \
               f"{self.kept} up to date"
        if self.refused:
            said += f"; {len(self.refused)} cannot be de-identified: " + "; ".join(
                f"{case} ({why})" for case, why in self.refused[:5])
        return said


def _case_ids(project: Project) -> dict[int, str]:
    """The first image's case id of every source."""
    first: dict[int, str] = {}
    for image in project.images.all():
        first.setdefault(image.source_id, image.case_id)
    return first


def original_bytes(project: Project, source: Source, locator: Locator | None = None,
                   image: Image | None = None) -> bytes:
    """The original file's bytes: held ones from the project itself (never through this
    machine's file cache), else the file or the PACS image's cached copy (``image``: one
    image of ``source``, found when not given)."""
    if project.blobs.has(source.sha256):
        return b"".join(project.blobs.parts(source.sha256))
    locator = locator or Locator(project)
    if image is None:
        image = next(i for i in project.images.all() if i.source_id == source.id)
    return local_file(locator.file_of(image, original=True),
                      project_limits(project).max_decoded_bytes).read_bytes()


def _deidentified(project: Project, source: Source, case_id: str, data: bytes
                  ) -> tuple[SharedSource, SharedCopy]:
    """``source``'s shared copy made from its original bytes ``data`` (nothing stored);
    :class:`~slicereview.engines.deid.NotShareableError` when no rule can."""
    seed = project.privacy.seed()
    if seed is None:
        raise NotShareableError("only the owner's login can make de-identified copies")
    made = deidentify(data, source.format, seed, name=source.path)
    return _record(source, case_id, made), made


def _record(source: Source, case_id: str, made: SharedCopy) -> SharedSource:
    """What the project keeps of ``made``: its header when the rest is a range of the
    original (a DICOM file's header before its pixel data); a copy made whole (PNG, TIFF,
    JPEG, ``.nii.gz``) is made again when needed, so the project never holds a second copy of
    a whole file."""
    return SharedSource(source.id, made.sha256, f"{case_id}{made.suffix}", made.size,
                        made.header if made.keep is not None else None, made.keep,
                        made.warnings, RULES_VERSION)


def _keep(project: Project, record: SharedSource, made: SharedCopy, data: bytes) -> None:
    with project.transaction():
        project.privacy.put_copy(record)
        project.privacy.add_uids(made.uids)
        if project.is_server:
            project.privacy.hold_copy(made.sha256, made.chunks(data))


def make_copy(project: Project, source: Source, case_id: str, data: bytes) -> SharedSource:
    """Make, keep and return ``source``'s shared copy from its original bytes ``data``;
    :class:`~slicereview.engines.deid.NotShareableError` when no rule can."""
    record, made = _deidentified(project, source, case_id, data)
    _keep(project, record, made, data)
    return record


#: Copies kept per transaction, and the original bytes held for them at most (a commit is a
#: disk flush: one per copy made 1,000 copies take 30 s, the de-identification itself 3 s).
BATCH_FILES, BATCH_BYTES = 200, 64 << 20


def prepare(project: Project, source_ids: Iterable[int] | None = None,
            progress: Progress | None = None) -> PrepareReport:
    """Make the shared copy of every source (or of ``source_ids``) that has none under the
    current rules, and on a server name its sources neutrally (see the module text); the
    copies are kept :data:`BATCH_FILES` to a transaction."""
    report = PrepareReport()
    wanted = None if source_ids is None else set(source_ids)
    sources = [s for s in project.images.sources() if wanted is None or s.id in wanted]
    rules, cases = project.privacy.copy_rules(), _case_ids(project)
    locator = Locator(project)
    # (only the owner's login reads and writes the original paths and the seed: another
    # login -- an annotator packaging their own work -- uses the copies the owner made)
    owner = not project.is_server or project.privacy.is_owner_login()
    neutral = (owner and project.is_server
               and project.privacy.setting().names is SharedNames.CASE_IDS)
    origins = project.privacy.origins() if neutral else {}
    firsts: dict[int, Image] = {}
    for image in project.images.all():
        firsts.setdefault(image.source_id, image)
    pending: list[tuple[Source, SharedSource, SharedCopy, bytes]] = []

    def flush() -> None:
        with project.transaction():
            for source, record, made, data in pending:
                _keep(project, record, made, data)
                if neutral and source.id not in origins:
                    project.privacy.set_origin(source.id, source.path, record.name)
        pending.clear()

    todo = []
    for source in sources:
        if rules.get(source.id) == RULES_VERSION:
            report.kept += 1
            have = project.privacy.copy_of(source.id) if neutral else None
            if have is not None and source.id not in origins:
                project.privacy.set_origin(source.id, source.path, have.name)
        else:
            todo.append(source)
    on_disk = {s.id: where for s in todo if s.id in firsts and not project.blobs.has(s.sha256)
               and isinstance(where := locator.file_of(firsts[s.id], original=True), Path)}
    seed = project.privacy.seed() if owner else None
    made_in_workers = iter(copies_of([(on_disk[s.id], s.format, s.path) for s in todo
                                      if s.id in on_disk], seed or ""))
    for k, source in enumerate(todo):
        if progress is not None:
            progress(k, len(todo), "making de-identified copies")
        case = cases.get(source.id, f"S{source.id:06d}")
        if not owner:
            report.refused.append((case, NO_COPY_YET))
            continue
        try:
            if source.id in on_disk and seed is not None:
                made, why = next(made_in_workers)
                if made is None:
                    raise NotShareableError(why)
                data = (original_bytes(project, source, locator, firsts[source.id])
                        if project.is_server else b"")
                record = _record(source, case, made)
            else:
                data = original_bytes(project, source, locator, firsts.get(source.id))
                record, made = _deidentified(project, source, case, data)
        except Exception as exc:  # (one file's failure, a PACS out of reach, must not stop
            # the others; it is listed, and that image is not shared)
            report.refused.append((case, " ".join(str(exc).split())[:200]))
            continue
        pending.append((source, record, made, data if project.is_server else b""))
        report.made += 1
        if len(pending) >= BATCH_FILES or sum(len(p[3]) for p in pending) >= BATCH_BYTES:
            flush()
    if pending:
        flush()
    return report


def copy_bytes(project: Project, source: Source, locator: Locator | None = None,
               image: Image | None = None) -> bytes:
    """The bytes of ``source``'s shared copy (made now if it has none; ``image``: one image
    of ``source``, found when not given)."""
    copy = project.privacy.copy_of(source.id)
    if copy is None or copy.rules != RULES_VERSION:
        case = _case_ids(project).get(source.id, f"S{source.id:06d}")
        copy = make_copy(project, source, case,
                         original_bytes(project, source, locator, image))
    if copy.header is not None and copy.keep is None:
        return copy.header
    data = original_bytes(project, source, locator, image)
    if copy.header is not None:
        return copy.header + data[copy.keep[0]:copy.keep[1]] if copy.keep else copy.header
    seed = project.privacy.seed()
    assert seed is not None
    made = deidentify(data, source.format, seed, name=source.path)
    if made.sha256 != copy.sha256:
        raise NotShareableError("its de-identified copy came out different from the one "
                                "recorded; run `slicereview privacy PROJECT --prepare`")
    return made.bytes_from(data)


def write_copy(project: Project, source: Source, dest: Path,
               locator: Locator | None = None) -> SharedSource:
    """Write ``source``'s shared copy into the file ``dest``; returns its record."""
    dest.write_bytes(copy_bytes(project, source, locator))
    copy = project.privacy.copy_of(source.id)
    assert copy is not None
    return copy


def flagged(project: Project, source_ids: Sequence[int] | None = None
            ) -> list[tuple[str, tuple[str, ...]]]:
    """``(case id, warnings)`` of each shared copy the owner should look at before sharing
    (text burned into the pixels), in case id order."""
    cases, wanted = _case_ids(project), None if source_ids is None else set(source_ids)
    found = [(cases.get(c.source_id, ""), c.warnings)
             for c in project.privacy.copies().values()
             if c.warnings and (wanted is None or c.source_id in wanted)]
    return sorted(found)
