"""Export consensus masks: one mask per image from its annotators' finished annotations.

Which annotations: those :func:`slicereview.app.exporting.masks.select` picks (one phase and round,
default ``formal`` round 1, finished ones, optionally some raters; repeats are never included,
nor a model's predictions: a consensus is the people's).
An image gets a consensus when it has **two or more** finished annotations; images with one
are listed in the report (``skipped``) and get no file.

Methods (:mod:`slicereview.engines.agreement.consensus_masks`), at a level (``relaxed``, the
default: certain and uncertain pixels count as marked; ``strict``: certain only):

* ``majority`` — pixels marked by strictly more than half of the annotators (ties out);
* ``staple`` — STAPLE (ITK's EM, run over vote patterns), mask ``probability > 0.5``.

Files (``DIR`` is created), in the per-rater export's formats:

* ``png``: ``{case_id}_consensus-{method}.png``, 8-bit grey, 0 background, 1 consensus, the
  image's ``(rows, cols)``.
* ``nifti``: ``{case_id}_consensus-{method}.nii.gz`` with the image's geometry; slices of one
  volume are gathered into ``S{source}_axis{axis}_consensus-{method}.nii.gz`` with the volume's
  geometry (slices without a consensus stay 0).
* ``index.csv``: file, case ids, method, level, number of annotators, their names, consensus
  pixels.
* ``consensus.csv``: one row per image and annotator: ``sensitivity`` and ``specificity`` of the
  annotator. For ``staple`` they are STAPLE's EM estimates (``estimate`` = ``"STAPLE"``); for
  ``majority`` they are measured against the majority mask (``estimate`` =
  ``"vs majority mask"``: marked ∩ consensus / consensus, unmarked ∩ outside / outside). Empty
  where undefined (no consensus pixels, or no pixels outside it).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from slicereview.app.exporting.masks import (
    DEFAULT_STATUSES,
    ExportItem,
    Progress,
    _image_2d,
    _unique,
    safe_name,
    select,
)
from slicereview.engines.agreement.consensus_masks import (
    CONSENSUS_METHODS,
    consensus_mask,
    roi_masks,
)

CONSENSUS_FORMATS = ("png", "nifti")


@dataclass
class ConsensusReport:
    """What :func:`export_consensus` wrote: files, images with a consensus, images skipped
    (one finished annotation)."""

    files: list[Path] = field(default_factory=list)
    images: int = 0
    skipped: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Consensus:
    group: list[ExportItem]
    mask: np.ndarray  # bool (H, W)
    sensitivity: tuple[float, ...]
    specificity: tuple[float, ...]


def export_consensus(project, out_dir: str | Path, fmt: str, method: str = "majority", *,
                     level: str = "relaxed", progress: Progress | None = None,
                     **filters) -> ConsensusReport:
    """Write one consensus mask per image with ≥ 2 finished annotations (see the module
    docstring); ``filters`` (``phase``, ``round``, ``raters``) go to
    :func:`~slicereview.app.exporting.masks.select` (finished annotations only)."""
    if fmt not in CONSENSUS_FORMATS:
        raise ValueError(f"a consensus is exported as {' or '.join(CONSENSUS_FORMATS)}, "
                         f"not {fmt!r}")
    if method not in CONSENSUS_METHODS:
        raise ValueError(f"consensus must be one of {', '.join(CONSENSUS_METHODS)}, "
                         f"got {method!r}")
    if level not in ("strict", "relaxed"):
        raise ValueError(f"level must be 'strict' or 'relaxed', got {level!r}")
    filters.pop("statuses", None)
    items = [i for i in select(project, statuses=DEFAULT_STATUSES, **filters)
             if not i.rater.is_model]  # (the people's consensus: a model is no voter)
    by_image: dict[int, list[ExportItem]] = {}
    for item in items:
        by_image.setdefault(item.image.id, []).append(item)
    report = ConsensusReport()
    results = []
    todo = [g for g in by_image.values() if len(g) >= 2]
    report.skipped = [g[0].image.case_id for g in by_image.values() if len(g) < 2]
    for k, group in enumerate(todo):
        results.append(_consensus(group, method, level))
        if progress:
            progress(k + 1, len(todo), group[0].image.case_id)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    suffix = f"consensus-{method}"
    names: dict[int, str] = {}  # image id → the file holding its consensus
    files = (_write_png(results, out, suffix, names) if fmt == "png"
             else _write_nifti(results, out, suffix, names))
    report.files = [*files, _write_index(out, results, names, method, level),
                    _write_scores(out, results, method, level)]
    report.images = len(results)
    return report


def _consensus(group: list[ExportItem], method: str, level: str) -> _Consensus:
    labels = np.stack([item.labels() for item in group])
    mask, staple_result = consensus_mask(labels, method, level)  # type: ignore[arg-type]
    if staple_result is not None:
        return _Consensus(group, mask, staple_result.sensitivity, staple_result.specificity)
    marked = roi_masks(labels, level)  # type: ignore[arg-type]
    inside, outside = int(mask.sum()), int((~mask).sum())
    sens = tuple(float((m & mask).sum() / inside) if inside else math.nan for m in marked)
    spec = tuple(float((~m & ~mask).sum() / outside) if outside else math.nan for m in marked)
    return _Consensus(group, mask, sens, spec)


def _write_png(results: Sequence[_Consensus], out: Path, suffix: str,
               names: dict[int, str]) -> list[Path]:
    from PIL import Image as PILImage

    files: list[Path] = []
    for r in results:
        path = _unique(out, f"{safe_name(r.group[0].image.case_id)}_{suffix}", ".png", files)
        PILImage.fromarray(r.mask.astype(np.uint8)).save(path)
        files.append(path)
        names[r.group[0].image.id] = path.name
    return files


def _write_nifti(results: Sequence[_Consensus], out: Path, suffix: str,
                 names: dict[int, str]) -> list[Path]:
    import SimpleITK as sitk

    volumes: dict[tuple[int, int], list[_Consensus]] = {}
    files: list[Path] = []
    for r in results:
        im = r.group[0].image
        if im.is_slice and im.info.get("volume"):
            volumes.setdefault((im.source_id, im.axis), []).append(r)
            continue
        mask = r.mask.astype(np.uint8)
        path = _unique(out, f"{safe_name(im.case_id)}_{suffix}", ".nii.gz", files)
        sitk.WriteImage(_image_2d(im, mask, sitk), str(path), useCompression=True)
        files.append(path)
        names[im.id] = path.name
    for (source, axis), group in volumes.items():
        volume = group[0].group[0].image.info["volume"]
        sx, sy, sz = (int(s) for s in volume["size"][:3])
        labels = np.zeros((sz, sy, sx), dtype=np.uint8)  # numpy (z, y, x) as the source
        for r in group:
            np.moveaxis(labels, axis, 0)[r.group[0].image.slice_index] = r.mask
        image = sitk.GetImageFromArray(labels)
        image.SetSpacing([float(s) for s in volume["spacing"][:3]])
        image.SetOrigin([float(s) for s in volume["origin"][:3]])
        image.SetDirection([float(s) for s in volume["direction"][:9]])
        path = _unique(out, f"S{source:06d}_axis{axis}_{suffix}", ".nii.gz", files)
        sitk.WriteImage(image, str(path), useCompression=True)
        files.append(path)
        names.update((r.group[0].image.id, path.name) for r in group)
    return files


def _write_index(out: Path, results: Sequence[_Consensus], names: dict[int, str],
                 method: str, level: str) -> Path:
    path = out / "index.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "case_id", "method", "level", "annotators", "raters",
                    "consensus_px"])
        for r in results:
            w.writerow([names[r.group[0].image.id], r.group[0].image.case_id, method, level,
                        len(r.group), "; ".join(i.rater.label for i in r.group),
                        int(r.mask.sum())])
    return path


def _write_scores(out: Path, results: Sequence[_Consensus], method: str, level: str) -> Path:
    path = out / "consensus.csv"
    estimate = "STAPLE" if method == "staple" else "vs majority mask"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["case_id", "rater", "simulated", "annotation_id", "method", "level",
                    "estimate", "sensitivity", "specificity"])
        for r in results:
            for item, sens, spec in zip(r.group, r.sensitivity, r.specificity, strict=True):
                w.writerow([item.image.case_id, item.rater.label, int(item.rater.simulated),
                            item.annotation.id, method, level, estimate,
                            "" if math.isnan(sens) else f"{sens:.6f}",
                            "" if math.isnan(spec) else f"{spec:.6f}"])
    return path
