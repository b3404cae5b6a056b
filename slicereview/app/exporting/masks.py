"""Export annotations as PNG label masks, NIfTI masks with the image geometry, or COCO JSON.

Which annotations: one phase and round (default ``formal``, round 1), finished ones by default
(``submitted`` and ``nothing_to_annotate``; the latter exports an all-background mask, which is
an answer, not a gap), optionally only some raters. Masks are the label images of
:func:`slicereview.engines.masks.rasterize`: 0 background, 1 certain, 2 uncertain.

Files (``DIR`` is created):

* ``png``: ``{case_id}_{rater}.png``, 8-bit grey, values 0/1/2, the image's ``(rows, cols)``.
* ``nifti``: 2-D images give ``{case_id}_{rater}.nii.gz`` with the image's pixel spacing (and
  origin/direction when the image came from a file that has them). Slices of one volume are
  gathered into one label *volume* per rater, ``{source}_axis{axis}_{rater}.nii.gz``, with the
  volume's size, spacing, origin and direction (what ``CopyInformation`` from the source
  volume would give; taken from the geometry stored at import, so the source file need not be
  present). Slices nobody annotated stay 0; ``index.csv`` lists which slices each file holds.
* ``coco``: ``annotations.json`` with categories ``certain`` (1) and ``uncertain`` (2), one COCO
  image per project image (``file_name`` is the case id: no paths or patient data) and one COCO
  annotation per polygon with ``segmentation`` ``[[x0, y0, x1, y1, ...]]`` in the same continuous
  pixel coordinates as the project (pixel ``(r, c)`` covers ``[c, c+1) x [r, r+1)``), shoelace
  ``area``, ``bbox`` ``[x, y, w, h]`` and ``attributes`` (rater, annotation status, polygon
  label and classifications, and its provenance: ``tool``, ``edited`` and ``model``, the
  model's ``NAME@VERSION`` or ``null``; docs/annotate.md, "Provenance").

``png`` and ``nifti`` also write ``index.csv``: file, case ids, rater, phase, round, status,
polygon count, certain/uncertain pixel counts and ``error``: an image whose file cannot be
written (a damaged header's negative pixel spacing, say) is listed there with the reason and
no file, and the export goes on with the others (:attr:`ExportReport.failed`; the CLI prints
them and exits with 1).

Example
-------
>>> from slicereview.app.exporting.masks import export_masks  # doctest: +SKIP
>>> export_masks(project, "out/", "png").files  # doctest: +SKIP
[PosixPath('out/C000001_ann1.png'), ...]
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from slicereview.engines.geometry import area
from slicereview.engines.masks import CERTAIN, UNCERTAIN, rasterize
from slicereview.model import Annotation, AnnotationStatus, Image, Phase, Polygon, Rater

FORMATS = ("png", "nifti", "coco")
DEFAULT_STATUSES = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class ExportItem:
    """One annotation to export, with what it needs."""

    annotation: Annotation
    image: Image
    rater: Rater
    polygons: list[Polygon]

    def labels(self) -> np.ndarray:
        return rasterize(self.polygons, (self.image.rows, self.image.cols))


@dataclass
class ExportReport:
    files: list[Path] = field(default_factory=list)
    annotations: int = 0
    #: ``(case ids, reason)`` of each file that could not be written; the rest was exported
    #: and ``index.csv`` lists these with an empty ``file`` and the reason in ``error``.
    failed: list[tuple[str, str]] = field(default_factory=list)


def select(
    project, *, phase: Phase | str = Phase.FORMAL, round: int = 1,
    statuses: Iterable[AnnotationStatus | str] | None = DEFAULT_STATUSES,
    raters: Sequence[str] | None = None,
) -> list[ExportItem]:
    """The annotations to export, ordered by image then rater. ``statuses=None``: all.

    ``raters``: names of people, or models as ``NAME@VERSION`` (or ``NAME`` when the project
    has one version of it). Raises ``KeyError`` for an unknown rater name.
    """
    rater_ids = None
    if raters:
        from slicereview.app.models.raters import find_model

        rater_ids = set()
        for name in raters:
            r = project.raters.by_name(name)
            if r is None:
                try:
                    r = find_model(project, name)
                except (LookupError, ValueError) as why:
                    raise KeyError(f"no rater named {name!r} in this project"
                                   + ("" if "No model" in str(why) else f" ({why})")) from None
            rater_ids.add(r.id)
    found = project.annotations.all(phase=phase, round=round,
                                    status=None if statuses is None else list(statuses))
    items, images, people = [], {}, {}
    for a in found:
        if rater_ids is not None and a.rater_id not in rater_ids:
            continue
        if a.image_id not in images:
            images[a.image_id] = project.images.get(a.image_id)
        if a.rater_id not in people:
            people[a.rater_id] = project.raters.get(a.rater_id)
        items.append(ExportItem(a, images[a.image_id], people[a.rater_id],
                                project.polygons.of(a.id)))
    return items


def export_masks(project, out_dir: str | Path, fmt: str, *, progress: Progress | None = None,
                 **filters) -> ExportReport:
    """Export in ``fmt`` (``"png"``, ``"nifti"`` or ``"coco"``) to ``out_dir``; ``filters`` go
    to :func:`select`."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    items = select(project, **filters)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = ExportReport(annotations=len(items))
    if fmt == "coco":  # one JSON file: geometry only, no per-image geometry to fail on
        report.files = write_coco(items, out, progress=progress)
    else:
        writer = write_png if fmt == "png" else write_nifti
        report.files = writer(items, out, progress=progress, failed=report.failed)
    return report


def _failure(exc: Exception) -> str:
    """One line saying why one export file failed (the others go on)."""
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def safe_name(text: str) -> str:
    """A file-name-safe version of a rater name or case id.

    >>> safe_name("Dr. A/B c")
    'Dr._A_B_c'
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")
    return cleaned or "unnamed"


def _unique(out: Path, stem: str, suffix: str, taken: Sequence[Path]) -> Path:
    """``out/stem+suffix``, or with ``-2``, ``-3``... when two raters' names sanitise alike."""
    path, n = out / f"{stem}{suffix}", 1
    while path in taken:
        n += 1
        path = out / f"{stem}-{n}{suffix}"
    return path


# -- PNG ---------------------------------------------------------------------------------------
def write_png(items: Sequence[ExportItem], out: Path, progress: Progress | None = None,
              failed: list[tuple[str, str]] | None = None) -> list[Path]:
    """One PNG per annotation; a failing one is listed in ``failed`` and the index."""
    from PIL import Image as PILImage

    files: list[Path] = []
    rows: list[dict] = []
    for k, item in enumerate(items):
        path = _unique(out, f"{safe_name(item.image.case_id)}_{safe_name(item.rater.label)}",
                       ".png", files)
        try:
            labels = item.labels()
            PILImage.fromarray(labels).save(path)
        except Exception as exc:  # one bad image must not stop the export
            rows.append(_failed_row([item], _failure(exc), failed))
            path.unlink(missing_ok=True)
            continue
        files.append(path)
        rows.append(_index_row(path, [item], labels))
        if progress:
            progress(k + 1, len(items), path.name)
    return [*files, _write_index(out, rows)]


# -- NIfTI -------------------------------------------------------------------------------------
def write_nifti(items: Sequence[ExportItem], out: Path, progress: Progress | None = None,
                failed: list[tuple[str, str]] | None = None) -> list[Path]:
    """One ``.nii.gz`` per 2-D image or volume and rater; a failing one (e.g. a negative
    pixel spacing in a damaged header) is listed in ``failed`` and the index, the rest is
    written."""
    import SimpleITK as sitk

    groups: dict[tuple, list[ExportItem]] = {}
    for item in items:
        im = item.image
        volume = im.info.get("volume") if im.is_slice else None
        key = (("volume", im.source_id, im.axis, item.rater.id) if volume
               else ("image", im.id, item.rater.id))
        groups.setdefault(key, []).append(item)
    files: list[Path] = []
    rows: list[dict] = []
    for k, (key, group) in enumerate(groups.items()):
        rater = safe_name(group[0].rater.label)
        path = None
        try:
            if key[0] == "volume":
                image, labels = _volume_labels(group, sitk)
                stem = f"S{key[1]:06d}_axis{key[2]}_{rater}"
            else:
                labels = group[0].labels()
                image = _image_2d(group[0].image, labels, sitk)
                stem = f"{safe_name(group[0].image.case_id)}_{rater}"
            path = _unique(out, stem, ".nii.gz", files)
            sitk.WriteImage(image, str(path), useCompression=True)
        except Exception as exc:  # one bad image must not stop the export
            rows.append(_failed_row(group, _failure(exc), failed))
            if path is not None:
                path.unlink(missing_ok=True)
            continue
        name = path.name
        files.append(path)
        rows.append(_index_row(path, group, labels))
        if progress:
            progress(k + 1, len(groups), name)
    return [*files, _write_index(out, rows)]


def _image_2d(image: Image, labels: np.ndarray, sitk):
    """A SimpleITK image of one 2-D label image with the image's geometry.

    A 2-D SimpleITK source keeps its origin and direction; a single-slice 3-D source (z = 1)
    becomes a 3-D image with one slice and the source's full geometry; DICOM and raster images
    get their pixel spacing (``info["pixel_spacing"]``, ``[row, col]`` mm) with origin 0 and
    identity direction (their position in the patient is not stored).
    """
    info = image.info
    size = info.get("size") or []
    if len(size) == 3 and len(info.get("direction", ())) == 9:
        out = sitk.GetImageFromArray(labels[None, :, :])
        out.SetSpacing([float(s) for s in info["spacing"]])
        out.SetOrigin([float(s) for s in info["origin"]])
        out.SetDirection([float(s) for s in info["direction"]])
        return out
    out = sitk.GetImageFromArray(labels)
    if len(size) == 2 and len(info.get("direction", ())) == 4:
        out.SetSpacing([float(s) for s in info["spacing"][:2]])
        out.SetOrigin([float(s) for s in info["origin"][:2]])
        out.SetDirection([float(s) for s in info["direction"]])
        return out
    row, col = (float(s) for s in info.get("pixel_spacing", (1.0, 1.0)))
    out.SetSpacing([col, row])  # SimpleITK spacing is (x, y) = (col, row)
    return out


def _volume_labels(group: Sequence[ExportItem], sitk):
    volume = group[0].image.info["volume"]
    sx, sy, sz = (int(s) for s in volume["size"][:3])
    labels = np.zeros((sz, sy, sx), dtype=np.uint8)  # numpy (z, y, x) of the source volume
    for item in group:
        im = item.image
        # Slices are shown as stored: rows/cols are the remaining axes in order (volume.py).
        np.moveaxis(labels, im.axis, 0)[im.slice_index] = item.labels()
    out = sitk.GetImageFromArray(labels)
    out.SetSpacing([float(s) for s in volume["spacing"][:3]])
    out.SetOrigin([float(s) for s in volume["origin"][:3]])
    out.SetDirection([float(s) for s in volume["direction"][:9]])
    return out, labels


# -- COCO --------------------------------------------------------------------------------------
def write_coco(items: Sequence[ExportItem], out: Path, progress: Progress | None = None
               ) -> list[Path]:
    images: dict[int, dict] = {}
    annotations: list[dict] = []
    for k, item in enumerate(items):
        im = item.image
        images.setdefault(im.id, {"id": im.id, "file_name": im.case_id, "case_id": im.case_id,
                                  "width": im.cols, "height": im.rows})
        for p in item.polygons:
            v = p.vertices
            if len(v) < 3:
                continue
            (x0, y0), (x1, y1) = v.min(axis=0), v.max(axis=0)
            annotations.append({
                "id": len(annotations) + 1, "image_id": im.id,
                "category_id": CERTAIN if str(p.certainty) == "certain" else UNCERTAIN,
                "segmentation": [v.reshape(-1).tolist()],
                "area": area(v), "bbox": [float(x0), float(y0), float(x1 - x0), float(y1 - y0)],
                "iscrowd": 0,
                "attributes": {
                    "rater": item.rater.label, "simulated_rater": item.rater.simulated,
                    "annotation_id": item.annotation.id, "polygon_id": p.id,
                    "status": str(item.annotation.status), "phase": str(item.annotation.phase),
                    "round": item.annotation.round, "label": p.label,
                    "classifications": p.classifications,
                    "tool": str(p.tool), "edited": p.edited, "model": p.model,
                },
            })
        if progress:
            progress(k + 1, len(items), im.case_id)
    doc = {
        "info": {"description": "slicereview annotations",
                 "pixel_convention": "pixel (row r, col c) covers [c, c+1) x [r, r+1); "
                                     "a pixel is inside when its centre is"},
        "images": list(images.values()),
        "categories": [{"id": CERTAIN, "name": "certain", "supercategory": "roi"},
                       {"id": UNCERTAIN, "name": "uncertain", "supercategory": "roi"}],
        "annotations": annotations,
        "slicereview_annotations": [
            {"annotation_id": i.annotation.id, "image_id": i.image.id, "rater": i.rater.label,
             "status": str(i.annotation.status), "classifications": i.annotation.classifications}
            for i in items
        ],
    }
    path = out / "annotations.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return [path]


# -- index -------------------------------------------------------------------------------------
_INDEX_FIELDS = ("file", "case_ids", "rater", "simulated", "phase", "round", "statuses",
                 "polygons", "certain_px", "uncertain_px", "error")


def _failed_row(group: Sequence[ExportItem], reason: str,
                failed: list[tuple[str, str]] | None) -> dict:
    row = _index_row(None, group, None)
    row["error"] = reason
    if failed is not None:
        failed.append((row["case_ids"], reason))
    return row


def _index_row(path: Path | None, group: Sequence[ExportItem],
               labels: np.ndarray | None) -> dict:
    first = group[0]
    return {
        "file": path.name if path else "", "error": "",
        "case_ids": " ".join(i.image.case_id for i in group),
        "rater": first.rater.label, "simulated": int(first.rater.simulated),
        "phase": str(first.annotation.phase), "round": first.annotation.round,
        "statuses": " ".join(str(i.annotation.status) for i in group),
        "polygons": sum(len(i.polygons) for i in group),
        "certain_px": "" if labels is None else int((labels == CERTAIN).sum()),
        "uncertain_px": "" if labels is None else int((labels == UNCERTAIN).sum()),
    }


def _write_index(out: Path, rows: list[dict]) -> Path:
    path = out / "index.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=_INDEX_FIELDS)
        w.writeheader()
        w.writerows(rows)
    return path
