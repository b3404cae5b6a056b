"""The image files of a work package (the writing side of :mod:`.packages`). Rules held here:

* **de-identified unless the owner chose otherwise** -- a package carries each image's shared
  copy (:mod:`slicereview.app.images.sharing`: patient data removed, UIDs replaced, pixels
  unchanged), never the original, unless the project shares originals
  (:mod:`slicereview.app.images.privacy`); the package's project then names the copy's
  SHA-256 and never holds the UID map, the seed or the original paths;
* **neutral names** -- a member is ``images/<case id><suffix>`` (``images/C000012.dcm``);
  only when the owner shows file names is it ``images/<sha>/<file name>``, as before;
* **flagged before it is shared** -- the images the owner should look at (text burned into
  the pixels) are listed to whoever makes the package (``warnings``);
* **one file at a time** -- a member is written from one file's bytes, never all at once;
  on a server from the copy the server holds (a login but the owner's reads no original).
"""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.app.images import sharing
from slicereview.app.images.limits import project_limits
from slicereview.app.images.pacs import Locator, local_file
from slicereview.app.images.privacy import setting
from slicereview.model import Image, SharedImages, SharedNames, SharedSource, Source
from slicereview.store import Project

if TYPE_CHECKING:
    from slicereview.app.images.file_cache import HeldFile
    from slicereview.engines.dicomweb.cache import RemoteInstance


@dataclass(frozen=True)
class Member:
    """One image file of a package: its name in the zip, the SHA-256 of its bytes, and
    where they come from (an original file, or a source whose shared copy is written)."""

    name: str
    sha256: str
    original: Path | RemoteInstance | HeldFile | None
    source: Source | None
    image: Image | None = None
    copy: SharedSource | None = None


def plan(project: Project, pkg: Project, warnings: list[str] | None = None
         ) -> tuple[list[Member], bool]:
    """The members of the package whose project is ``pkg`` (a subset copy of ``project``),
    with ``pkg``'s sources renamed (and, when shared, re-hashed) to match; returns the
    members and whether they are de-identified copies."""
    policy = setting(project)
    shared = policy.images is SharedImages.DEIDENTIFIED
    locator = Locator(project)
    here = {s.id: s for s in project.images.sources()}
    sources = {s.id: s for s in pkg.images.sources()}
    if shared:
        report = sharing.prepare(project, sources)
        if report.refused:
            raise sharing.NotShareable(
                f"{len(report.refused)} image(s) cannot be de-identified, so no package was "
                "written: " + "; ".join(f"{c} ({w})" for c, w in report.refused[:5])
                + ". Leave them out of the batch, or share originals "
                "(`slicereview privacy PROJECT --share originals`).")
        if warnings is not None:
            warnings.extend(f"{case}: {'; '.join(why)}"
                            for case, why in sharing.flagged(project, sorted(sources)))
    copies = project.privacy.copies() if shared else {}
    images = {i.id: i for i in project.images.all()} if shared else {}
    members: dict[int, Member] = {}
    for image in pkg.images.all():
        if image.source_id in members:
            continue
        source = sources[image.source_id]
        if shared:
            copy = copies[source.id]
            name = (f"images/{copy.name}" if policy.names is SharedNames.CASE_IDS
                    else f"images/{copy.sha256[:16]}/{Path(here[source.id].path).name}")
            members[source.id] = Member(name, copy.sha256, None, here[source.id],
                                        images[image.id], copy)
        else:
            name = (f"images/{image.case_id}{_suffix(source.path)}"
                    if policy.names is SharedNames.CASE_IDS
                    else f"images/{source.sha256[:16]}/{Path(here[source.id].path).name}")
            members[source.id] = Member(name, source.sha256, locator.file_of(image, True),
                                        None)
    sizes = {s.id: s.size_bytes for s in pkg.images.sources()}
    pkg.packages.rename_sources({i: (m.name, m.sha256, m.copy.size_bytes if m.copy
                                     else sizes[i]) for i, m in members.items()})
    return list(members.values()), shared


def write(project: Project, zf: zipfile.ZipFile, members: list[Member]) -> None:
    """Write each member into ``zf`` (stored, not recompressed), one file at a time; a
    shared copy kept as a header and a range of its original is written as the header, then
    that range read from the original file (never the whole file in memory)."""
    max_bytes = project_limits(project).max_decoded_bytes
    locator = Locator(project)
    held = project.blobs.held() if project.is_server or project.blobs.total_bytes() else set()
    for member in members:
        if member.source is None:  # an original (a bounded cache may drop one copy when it
            # fetches the next: one at a time)
            assert member.original is not None
            zf.write(local_file(member.original, max_bytes), member.name,
                     compress_type=zipfile.ZIP_STORED)
            continue
        copy = member.copy
        if copy is not None and project.is_server and project.privacy.holds_copy(copy.sha256):
            # a server holds each copy's bytes (the only ones a login but the owner's reads)
            with tempfile.TemporaryDirectory() as tmp:
                file = Path(tmp) / "copy"
                project.privacy.write_copy_to(copy.sha256, file)
                zf.write(file, member.name, compress_type=zipfile.ZIP_STORED)
            continue
        if (copy is not None and copy.header is not None and copy.keep is not None
                and member.image is not None and member.source.sha256 not in held):
            original = local_file(locator.file_of(member.image, original=True), max_bytes)
            with zf.open(member.name, "w", force_zip64=copy.size_bytes >= 1 << 31) as out, \
                    open(original, "rb") as fh:
                out.write(copy.header)
                fh.seek(copy.keep[0])
                left = copy.keep[1] - copy.keep[0]
                while left > 0 and (chunk := fh.read(min(left, 1 << 20))):
                    out.write(chunk)
                    left -= len(chunk)
            continue
        zf.writestr(member.name, sharing.copy_bytes(project, member.source, locator,
                                                    member.image),
                    compress_type=zipfile.ZIP_STORED)


def _suffix(path: str) -> str:
    lower = path.lower()
    if lower.endswith(".nii.gz"):
        return ".nii.gz"
    suffix = Path(lower).suffix
    return suffix if suffix.isascii() and suffix.isprintable() and len(suffix) <= 8 else ""
