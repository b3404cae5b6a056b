"""Work packages for annotators on other machines: :func:`package` writes one zip for one
annotator, :func:`merge` takes their work back. Rules held here:

* **blind** — the package's project holds only that annotator's annotations, the decisions on
  them (returned annotations with their comments and reason tags), the reviewers' pins on the
  images of their returned annotations (what the annotator is shown there in the project), the
  guidelines with their entries, the questions and their batch; nothing of other annotators,
  no gold, no scores (see :meth:`slicereview.store.packages.PackagesMixin.write_subset`). Ids
  and case ids are the project's.
* **the owner's decision holds** — an annotator held back after onboarding gets no package of
  the phases they may not work in (:func:`slicereview.app.qa.workflow.why_not_start`'s sentence);
  without ``batch`` those phases' images are left out.
* **self-contained** — the zip holds ``project.srproj``, the image files under ``images/``
  (de-identified copies named by case id unless the owner chose otherwise,
  :mod:`.package_images`; stored, not recompressed: medical images are large and often
  compressed) and
  ``manifest.json``: format, the project's UUID, the annotator, the package's own id, each
  image's SHA-256 and the edit stamp of each annotation when packed (the merge base). The
  annotator opens the zip itself in slicereview (:func:`unpack`: verified, then unpacked once
  beside it) or unzips it and opens ``project.srproj``.
* **merge is verified** — a package from another project (UUID), a damaged zip or project
  file, a newer format, an image whose hash differs, an unknown annotator or a zip that would
  unpack to far more than its size (the limits of :mod:`~slicereview.app.qa.package_zip`,
  the same for merging, opening and describing a package) is refused before anything is
  written; the merge is one transaction, so the project is unchanged on refusal.
* **merge never overwrites** — per annotation (rater, image, phase, round): missing in the
  project → added; equal → nothing; changed in the package only → the project takes it;
  changed in the project only → kept; changed on both sides → a *conflict*: the project keeps
  its version, the package's is kept in ``merge_conflicts`` and reported. Merging the same
  package again adds nothing (idempotent). Guideline views are merged too, and pins: a pin of
  the package that the project lacks (same image, reviewer, place, comment and tags) is added
  (its reviewer must be in the project).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from slicereview import __version__
from slicereview.app.qa import package_images
from slicereview.app.qa.package_zip import (
    FORMAT,
    MANIFEST,
    PROJECT,
    PackageError,
    PackageZip,
    read_package,
    unpacked_folder,
    zip_unpacked,
)
from slicereview.app.qa.selection import ordered_images, packed_orders
from slicereview.app.qa.workflow import OnHold, may_start, why_not_start, work_images
from slicereview.model import Annotation, Phase, Polygon, Review, Role
from slicereview.store import NewerProjectError, Project, ProjectError
from slicereview.store._base import now_iso
from slicereview.store.schema import SCHEMA_VERSION


def _content(project: Project, ann: Annotation) -> dict:
    """What a merge compares and writes of an annotation; each polygon with its provenance
    (``t`` tool, ``e`` edited, ``m`` model: a package's project file carries them in its own
    schema, and one from before they existed opens as ``manual``, not edited)."""
    polys = [{"v": p.vertices.tolist(), "c": str(p.certainty), "l": p.label,
              "q": p.classifications, "t": str(p.tool), "e": p.edited, "m": p.model}
             for p in project.polygons.of(ann.id)]
    return {"status": str(ann.status), "classifications": ann.classifications,
            "active_ms": ann.active_ms, "polygons": polys}


def _digest(content: dict) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def project_uuid(project: Project) -> str:
    value = project.meta("project_uuid")
    if not value:
        value = uuid.uuid4().hex
        project.set_meta("project_uuid", value)
    return value


def package(project: Project, annotator: str, out: str | Path, batch: str | None = None,
            warnings: list[str] | None = None) -> Path:
    """Write the work package of ``annotator`` (optionally one ``batch``) to ``out`` (zip);
    ``warnings`` gets a line per image the owner should look at before sending it (text
    burned into the pixels, :mod:`.package_images`)."""
    rater = project.raters.by_name(annotator)
    if rater is None or rater.role is not Role.ANNOTATOR or rater.is_model:
        raise ValueError(f"no annotator named {annotator!r} in this project"
                         + (" (it is a model: a model gets no work package)"
                            if rater is not None and rater.is_model else ""))
    out = Path(out)
    if out.exists():
        raise FileExistsError(f"{out} exists: choose another name")
    batch_id = None
    if batch is not None:
        found = project.workflow.batch_by_name(batch)
        if found is None:
            raise ValueError(f"no batch named {batch!r} in this project")
        batch_id = found.id
        reason = why_not_start(project, rater.id, found.phase)
        if reason is not None:
            raise OnHold(reason)
        images = work_images(project, rater.id, batch_id)
        place = {i: k for k, i in enumerate(ordered_images(project, batch_id))}
        images.sort(key=lambda i: place.get(i, len(place)))
    else:
        allowed = {str(p) for p in Phase if may_start(project, rater.id, p)}
        images = sorted({i for b in project.workflow.batches() if str(b.phase) in allowed
                         for i in work_images(project, rater.id, b.id)}
                        | {a.image_id for a in project.annotations.all(rater_id=rater.id)
                           if str(a.phase) in allowed})
        if not images and len(allowed) < len(Phase):
            raise OnHold(str(why_not_start(project, rater.id, Phase.FORMAL)))
    if not images:
        raise ValueError(f"{annotator} has no images to work on"
                         + (f" in batch {batch}" if batch else ""))
    package_id = uuid.uuid4().hex
    base = {str(a.id): a.updated_at for a in project.annotations.all(rater_id=rater.id)
            if a.image_id in set(images)}
    with tempfile.TemporaryDirectory() as tmp:
        sub = Path(tmp) / PROJECT
        project.packages.write_subset(sub, rater.id, images, batch_id, {
            "package_id": package_id, "package_annotator": annotator,
            "package_created_at": now_iso(), "project_uuid": project_uuid(project),
            # the images in the batch's selection order, and its snapshot (app/qa/selection.py)
            "package_order": json.dumps(images), **packed_orders(project, batch_id)})
        with Project.open(sub) as pkg:
            # An image on a PACS or held in the project travels as its file (fetched into its
            # cache when written): the annotator's machine need reach neither.
            members, shared = package_images.plan(project, pkg, warnings)
            pkg.dicomweb.forget_sources()
        manifest = {"format": FORMAT, "schema": SCHEMA_VERSION, "slicereview": __version__,
                    "project_uuid": project_uuid(project), "package_id": package_id,
                    "annotator": annotator, "batch": batch, "base": base,
                    "deidentified": shared, "images": {m.name: m.sha256 for m in members}}
        partial = out.with_name(out.name + ".partial")
        with zipfile.ZipFile(partial, "w") as zf:
            zf.writestr(MANIFEST, json.dumps(manifest, indent=1))
            zf.write(sub, PROJECT, compress_type=zipfile.ZIP_DEFLATED)
            package_images.write(project, zf, members)
        partial.replace(out)
    return out


@dataclass
class MergeReport:
    """What a merge did: annotations ``added``, ``updated`` (changed in the package only),
    ``unchanged``, ``kept`` (changed in the project only) and ``conflicts`` (annotation ids of
    the project whose package version was kept apart; new ones only); ``pins`` added."""

    added: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    unchanged: int = 0
    kept: list[int] = field(default_factory=list)
    conflicts: list[int] = field(default_factory=list)
    pins: list[int] = field(default_factory=list)

    @property
    def text(self) -> str:
        return (f"{len(self.added)} added, {len(self.updated)} updated, {self.unchanged} "
                f"unchanged, {len(self.kept)} kept (changed here only), "
                f"{len(self.conflicts)} conflicts kept apart"
                + (f", {len(self.pins)} pinned comment(s) added" if self.pins else ""))


def merge(project: Project, file: str | Path) -> MergeReport:
    """Merge an annotator's package back (see the module doc); one transaction. ``file``: the
    zip, or the folder it was unpacked to (or that folder's project file)."""
    file = Path(file)
    with tempfile.TemporaryDirectory() as tmp:
        folder = unpacked_folder(file)  # (the folder the annotator worked in: packed back)
        if folder is not None:
            file = zip_unpacked(folder, Path(tmp) / f"{folder.name}.zip")
        manifest, sub = read_package(file, Path(tmp), "merged")
        # meta, not project_uuid(): a refusal must not write (a project never packaged has
        # no identity yet, and no package can be its own)
        if manifest.get("project_uuid") != project.meta("project_uuid"):
            raise PackageError(f"{file.name} belongs to another project: nothing merged")
        try:
            pkg = Project.open(sub)
        except NewerProjectError as exc:
            raise PackageError(f"{file.name} was written by a newer slicereview: update "
                               "slicereview to merge it; nothing was merged.") from exc
        except ProjectError as exc:
            # the store's message names the temporary copy it checked: say it of the zip
            raise PackageError(f"{file.name} holds a damaged project file ({PROJECT}): nothing "
                               "was merged; ask the annotator to send the package again.") \
                from exc
        with pkg:
            return _merge(project, pkg, manifest)


def _merge(project: Project, pkg: Project, manifest: dict) -> MergeReport:
    if pkg.meta("project_uuid") != project_uuid(project):
        raise PackageError("the package's project file belongs to another project")
    name = manifest["annotator"]
    here, there = project.raters.by_name(name), pkg.raters.by_name(name)
    if here is None or there is None:
        raise PackageError(f"annotator {name!r} is missing on one side")
    sources = {s.id: s for s in pkg.images.sources()}
    for image in pkg.images.all():
        sha = sources[image.source_id].sha256
        source = project.images.source_by_hash(sha)
        source_id = source.id if source is not None else project.privacy.source_of_copy(sha)
        try:
            same = source_id is not None and project.images.get(image.id).source_id == source_id
        except KeyError:
            same = False
        if not same:
            raise PackageError(f"image {image.case_id} differs from the project's (hash)")
    base = manifest.get("base", {})
    report = MergeReport()
    with project.transaction():
        for ann in pkg.annotations.all(rater_id=there.id):
            theirs = _content(pkg, ann)
            mine = project.annotations.for_image(here.id, ann.image_id, ann.phase, ann.round,
                                                 create=False)
            if mine is None:
                new = project.annotations.for_image(here.id, ann.image_id, ann.phase, ann.round)
                assert new is not None
                _write(project, new.id, theirs)
                report.added.append(new.id)
                continue
            ours = _content(project, mine)
            if _digest(ours) == _digest(theirs):
                report.unchanged += 1
                continue
            stamp = base.get(str(ann.id)) if ann.id == mine.id else None
            they_changed = stamp is None or ann.updated_at != stamp
            we_changed = stamp is None or mine.updated_at != stamp
            if they_changed and not we_changed:
                _write(project, mine.id, theirs)
                report.updated.append(mine.id)
            elif we_changed and not they_changed:
                report.kept.append(mine.id)
            elif project.packages.add_merge_conflict(manifest["package_id"], mine.id, theirs,
                                                     _digest(theirs)):
                report.conflicts.append(mine.id)
            else:
                report.unchanged += 1
        project.guidelines.merge_views(here.id, pkg.guidelines.views(there.id))
        report.pins = _merge_pins(project, pkg)
    return report


def _pin_key(project: Project, pin: Review) -> tuple:
    return (pin.image_id, project.raters.get(pin.reviewer_id).name, pin.pin_kind,
            tuple(round(v, 6) for v in pin.pin_at), pin.comment, tuple(pin.tags),
            pin.annotation_id)


def _merge_pins(project: Project, pkg: Project) -> list[int]:
    """Add the package's pins the project lacks (by content); returns the new review ids."""
    have = {_pin_key(project, r) for r in project.reviews.all() if r.is_pin}
    added = []
    for pin in (r for r in pkg.reviews.all() if r.is_pin):
        key = _pin_key(pkg, pin)
        reviewer = project.raters.by_name(key[1])
        if key in have or reviewer is None:
            continue
        # (on the same annotation when the project has it on that image, else on the image;
        # never for everyone: that is the owner's mark in the project)
        on = pin.annotation_id
        if on is not None and on not in {
                a.id for a in project.annotations.all(image_id=pin.image_id, repeats=None)}:
            on = None
        added.append(project.reviews.add(pin.image_id, reviewer.id, comment=pin.comment,
                                         tags=pin.tags, active_ms=pin.active_ms,
                                         alphas=pin.alphas, pin_kind=pin.pin_kind,
                                         pin_at=pin.pin_at, annotation_id=on))
        have.add(key)
    return added


def _write(project: Project, annotation_id: int, content: dict) -> None:
    import numpy as np

    polys = [Polygon(np.asarray(p["v"], dtype=float).reshape(-1, 2), p["c"], p["l"], p["q"],
                     tool=p.get("t", "manual"), edited=p.get("e", False), model=p.get("m"))
             for p in content["polygons"]]
    project.polygons.replace(annotation_id, polys)
    project.annotations.set_image_classifications(annotation_id, content["classifications"])
    current = project.annotations.get(annotation_id).active_ms
    if content["active_ms"] > current:
        project.annotations.add_active_time(annotation_id, content["active_ms"] - current)
    project.annotations.set_status(annotation_id, content["status"])


def copy_floor(files: list[Path], dest: Path) -> None:
    """The speed floor of packaging: ``shutil.copyfile`` of the same files."""
    dest.mkdir(parents=True, exist_ok=True)
    for k, f in enumerate(files):
        shutil.copyfile(f, dest / f"{k}_{f.name}")


__all__ = ["MergeReport", "PackageError", "PackageSummary", "Phase", "describe", "merge",
           "package", "unpack"]


def unpack(file: str | Path) -> Path:
    """Open a work package zip directly (the annotator's side): the path of its project.

    * **where** — the zip is unpacked once into a folder beside it named after it
      (``anna.zip`` → ``anna/``), in the layout :func:`merge` takes back zipped
      (``project.srproj``, ``images/``, ``manifest.json``); opening the zip again opens that
      folder's project, so the work done there is never replaced by the zip's copy;
    * **verified first** — the limits of :mod:`~slicereview.app.qa.package_zip` (a deflate
      bomb is refused before anything is inflated), the manifest's format, every member's
      checksum and each image's hash, as :func:`merge` checks them; nothing is written
      beside the zip before that (``PackageError``, in plain words);
    * **never over another folder** — a folder of that name holding anything but this package
      is left alone and ``anna (2)/`` is used. Only the manifest's members are extracted.
    """
    file = Path(file)
    with tempfile.TemporaryDirectory() as tmp:
        manifest, _ = read_package(file, Path(tmp), "unpacked")
    folder, found = _folder_beside(file, manifest["package_id"])
    if found:
        return folder / PROJECT
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        with PackageZip(file, "unpacked") as zipped:  # (its limits checked again)
            for name in zipped.members:
                zipped.extract(name, partial)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)  # (a full disk leaves no half folder)
        raise
    partial.rename(folder)  # the folder appears whole or not at all
    return folder / PROJECT


def _folder_beside(file: Path, package_id: str) -> tuple[Path, bool]:
    """The folder beside ``file`` that holds the package ``package_id`` unpacked (``True``),
    else the first free one of ``anna/``, ``anna (2)/``, … (``False``)."""
    for k in range(1, 1000):
        folder = file.with_name(file.stem if k == 1 else f"{file.stem} ({k})")
        if not folder.exists():
            return folder, False
        if _package_id(folder) == package_id:
            return folder, True
    raise PackageError(f"{file.name}: a thousand folders of its name lie beside it, so "
                       "nothing was unpacked; move the zip to another folder.")


def _package_id(folder: Path) -> str | None:
    try:
        found = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return found.get("package_id") if isinstance(found, dict) else None


@dataclass(frozen=True)
class PackageSummary:
    """What ``slicereview info anna.zip`` says of a work package (read, verified, not
    unpacked): its annotator, batch (``None``: every phase they may work in), the project's
    name, when and by which slicereview it was written, the row counts of its project, and
    the folder it was unpacked to beside the zip (``None``: not opened there yet)."""

    annotator: str
    batch: str | None
    project: str
    written: str
    version: str
    counts: dict[str, int]
    unpacked: Path | None


def describe(file: str | Path) -> PackageSummary:
    """The :class:`PackageSummary` of the package ``file``: read with the checks and limits of
    :func:`merge` and :func:`unpack` (:mod:`~slicereview.app.qa.package_zip`), its project
    opened read-only in a temporary folder; nothing is written beside the zip."""
    file = Path(file)
    with tempfile.TemporaryDirectory() as tmp:
        manifest, sub = read_package(file, Path(tmp), "read")
        try:
            with Project.open(sub, read_only=True) as pkg:
                name, written = pkg.name, pkg.meta("package_created_at") or ""
                counts = pkg.counts()
        except ProjectError as exc:
            raise PackageError(f"{file.name} holds a damaged project file ({PROJECT}), so "
                               "nothing was read; ask the annotator to send the package "
                               "again.") from exc
    folder, found = _folder_beside(file, manifest["package_id"])
    batch = manifest.get("batch")
    return PackageSummary(manifest["annotator"], batch if isinstance(batch, str) else None,
                          name, written, str(manifest.get("slicereview", "")), counts,
                          folder if found else None)
