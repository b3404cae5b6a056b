"""Importing a model's predictions from files: ``slicereview predictions import``.

Each file (PNG/TIFF, NIfTI, DICOM SEG; what its values mean:
:mod:`slicereview.engines.imaging.predictions`) is **matched** to the project's images:

1. a SEG by the SOP Instance UIDs its frames reference (and the frame number of a
   multi-frame source); a reference to a de-identified copy's UID is mapped back to the
   original (docs/privacy.md);
2. any other file by its name without the format's endings (``C000012.nii.gz`` → ``C000012``):
   first an image's **case id**, then a source file's **stem** (``mammo_L_CC.png`` matches the
   images of ``mammo_L_CC.dcm``), then the longest case id the name starts with, followed by
   ``_``, ``-`` or ``.`` (``C000012_model.png``, what ``export`` writes). A source with several
   images (frames, a volume's slices) takes a prediction of the same shape as one image only
   when exactly one matches; a 3-D NIfTI gives each slice image of a volume source its slice.

A probability becomes a label image at the two thresholds (:data:`CERTAIN` and
:data:`UNCERTAIN` by default): *certain* where ``p ≥ certain``, *uncertain* where
``uncertain ≤ p < certain``. Labels are taken as they are. Every matched image's prediction is
stored as the model rater's finished annotation (:func:`~.predictions.store_prediction`).

The report says, one line each, what was **matched** (file → image), **unmatched** (a file or
SEG reference with no image) and **refused** (a file that is not a prediction, a size that is
not the image's), so the command never stops half-way on one bad file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from slicereview.model import Image, Rater
from slicereview.store import Project

#: Default thresholds of ``--certain`` and ``--uncertain`` (a probability's usual decision
#: threshold, and an uncertain band below it as wide as the certain band's lower half).
CERTAIN = 0.5
UNCERTAIN = 0.3

Progress = Callable[[int, int, str], None]


@dataclass
class ImportReport:
    """``matched``: ``(file, case id)``; ``unmatched`` and ``refused``: ``(file, why)``."""

    model: str = ""
    matched: list[tuple[str, str]] = field(default_factory=list)
    unmatched: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per file or reference, in the order matched, unmatched, refused."""
        return ([f"matched    {f} -> {case}" for f, case in self.matched]
                + [f"unmatched  {f}: {why}" for f, why in self.unmatched]
                + [f"refused    {f}: {why}" for f, why in self.refused])

    def summary(self) -> str:
        return (f"{self.model}: {len(self.matched)} matched, {len(self.unmatched)} unmatched, "
                f"{len(self.refused)} refused")


def check_thresholds(certain: float, uncertain: float) -> None:
    """``0 < uncertain ≤ certain ≤ 1``, else ``ValueError`` with one sentence."""
    if not (0 < uncertain <= certain <= 1):
        raise ValueError(f"The thresholds must satisfy 0 < uncertain ≤ certain ≤ 1 (given: "
                         f"certain {certain:g}, uncertain {uncertain:g}).")


class Matcher:
    """The project's images by case id, source stem and (read when first needed) SOP
    Instance UID."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.images = project.images.all()
        self.by_case = {im.case_id: im for im in self.images}
        self.by_stem: dict[str, list[Image]] = {}
        for im in self.images:
            self.by_stem.setdefault(_path_stem(im.path), []).append(im)
        self._by_sop: dict[tuple[str, int], Image] | None = None

    def by_name(self, stem: str) -> list[Image]:
        if stem in self.by_case:
            return [self.by_case[stem]]
        if stem in self.by_stem:
            return self.by_stem[stem]
        prefixes = [c for c in self.by_case if stem.startswith(c) and len(stem) > len(c)
                    and stem[len(c)] in "_-."]
        return [self.by_case[max(prefixes, key=len)]] if prefixes else []

    def by_sop(self, sop_uid: str, frame: int) -> Image | None:
        if self._by_sop is None:
            self._by_sop = self._read_sops()
        original = self.project.privacy.original_uid(sop_uid)
        return (self._by_sop.get((sop_uid, frame))
                or (self._by_sop.get((original, frame)) if original else None))

    def _read_sops(self) -> dict[tuple[str, int], Image]:
        from slicereview.app.images.pacs import Locator, local_file
        from slicereview.engines.imaging.formats import DICOM

        refs = self.project.dicomweb.refs()
        sources = {s.id: s for s in self.project.images.sources()}
        found: dict[tuple[str, int], Image] = {}
        uids: dict[int, str | None] = {}
        locator = None
        for im in self.images:
            if sources[im.source_id].format != DICOM:
                continue
            if im.source_id not in uids:
                if im.source_id in refs:
                    uids[im.source_id] = refs[im.source_id][0].sop_uid
                else:
                    locator = locator or Locator(self.project)
                    uids[im.source_id] = _sop_uid(local_file(locator.file_of(im, original=True),
                                                             1 << 31))
            uid = uids[im.source_id]
            if uid:
                found[(uid, im.frame)] = im
        return found


def _path_stem(path: str) -> str:
    from slicereview.engines.imaging.predictions import stem_of

    return stem_of(path.rsplit("/", 1)[-1])


def _sop_uid(path: Path) -> str | None:
    from pydicom import dcmread

    try:
        ds = dcmread(path, stop_before_pixels=True, specific_tags=["SOPInstanceUID"],
                     force=True)
        return str(ds.get("SOPInstanceUID", "")) or None
    except Exception:  # (a source that cannot be read now matches nothing)
        return None


def to_labels(kind: str, values: np.ndarray, certain: float, uncertain: float) -> np.ndarray:
    """A part's values as a label image (probabilities at the two thresholds)."""
    if kind == "labels":
        return values.astype(np.uint8, copy=False)
    from slicereview.engines.prediction import label_image

    return label_image(values, certain=certain, uncertain=uncertain)


def import_predictions(project: Project, rater: Rater, paths: Sequence[str | Path], *,
                       certain: float = CERTAIN, uncertain: float = UNCERTAIN,
                       progress: Progress | None = None,
                       cancelled: Callable[[], bool] | None = None) -> ImportReport:
    """Read, match and store the predictions in ``paths`` (files, or folders read in name
    order, not below) as model ``rater``'s annotations (see the module text)."""
    from slicereview.app.models.predictions import check_labels, store_prediction
    from slicereview.engines.imaging.predictions import read

    check_thresholds(certain, uncertain)
    files = _files(paths)
    report = ImportReport(rater.label)
    matcher = Matcher(project)
    for k, path in enumerate(files):
        if cancelled is not None and cancelled():
            break
        if progress is not None:
            progress(k, len(files), path.name)
        try:
            parts = read(path)
        except (ValueError, OSError) as why:
            report.refused.append((path.name, str(why)))
            continue
        for part in parts:
            label = path.name if part.sop_uid is None else (
                f"{path.name} [{part.sop_uid}" + (f" frame {part.frame + 1}]"
                                                   if part.frame else "]"))
            targets = _targets(matcher, part)
            if isinstance(targets, str):
                report.unmatched.append((label, targets))
                continue
            for image, values in targets:
                try:
                    labels = check_labels(to_labels(part.kind, values, certain, uncertain),
                                          image.rows, image.cols)
                    store_prediction(project, rater, image.id, labels)
                except ValueError as why:
                    report.refused.append((label, f"{image.case_id}: {why}"))
                    continue
                report.matched.append((label, image.case_id))
    if progress is not None:
        progress(len(files), len(files), "")
    return report


def _files(paths: Sequence[str | Path]) -> list[Path]:
    """The files named, and in each folder named the prediction files (by their endings, or a
    DICOM file's preamble): an export's ``index.csv`` beside its masks is left out."""
    from slicereview.engines.imaging.predictions import DICOM, NIFTI, RASTER, is_dicom

    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")
                            and (f.name.lower().endswith((*RASTER, *NIFTI, *DICOM))
                                 or is_dicom(f)))
        else:
            found.append(p)
    return found


def _targets(matcher: Matcher, part) -> list[tuple[Image, np.ndarray]] | str:
    """The images a part goes to, with each one's values, or why there is none."""
    if part.sop_uid is not None:
        image = matcher.by_sop(part.sop_uid, part.frame)
        if image is None:
            return "no image of the project has this SOP Instance UID (and frame)"
        return [(image, part.values)]
    images = matcher.by_name(part.stem)
    if not images:
        return f"no image has the case id or file name {part.stem!r}"
    values = part.values
    if values.ndim == 3 and values.shape[0] == 1:
        values = values[0]
    if values.ndim == 3:
        slices = [im for im in images if im.is_slice]
        if not slices:
            return f"a 3-D prediction, but {part.stem!r} is no volume of the project"
        out = []
        for im in slices:
            if not 0 <= im.slice_index < values.shape[im.axis]:
                return (f"the volume prediction has {values.shape[im.axis]} slices along axis "
                        f"{im.axis}; the image needs slice {im.slice_index}")
            out.append((im, np.take(values, im.slice_index, axis=im.axis)))
        return out
    if len(images) == 1:
        return [(images[0], values)]
    same = [im for im in images if (im.rows, im.cols) == values.shape]
    if len(same) != 1:
        return (f"{part.stem!r} has {len(images)} images ({len(same)} of its size); name the "
                f"file by the image's case id")
    return [(same[0], values)]
