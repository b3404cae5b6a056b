"""Objects with known masks in real images, for measuring the assisted tools.

Three sets, deterministic from a seed, each object an image and its true mask:

* :func:`white_matter` — axial slices of the ICBM 2009a T1 template [Fonov2011] (``uint8``,
  1 mm) with its white-matter probability map, both shipped in nilearn's package folder (found
  on disk, nilearn is never imported); the objects are the 8-connected components of the map
  at probability ≥ 0.5 with at least :data:`MIN_WM_PIXELS` pixels (100 mm²: smaller specks
  are not something one outlines with a tool).
* :func:`blobs` — compact bright blobs (smooth random outlines, radius 8–32 px) drawn into
  the real demo mammograms [CBIS-DDSM] inside the breast: the mask is the outline's pixels;
  the image gets ``contrast × blur(mask)`` added, with a Gaussian blur of σ 1–2 px, a contrast
  of 1.5–3 times the local standard deviation of the tissue around it, and Gaussian noise of a
  sixth to a tenth of the contrast.
* :func:`tubes` — thin curved tubes 2–6 px wide, 80–200 px long (breast arterial
  calcification-like), drawn the same way (blur σ 0.6–1 px); the mask is the pixels whose
  centre lies within half the width of the centreline, which is kept for :func:`trace
  <slicereview.demo.clicker.trace_session>`.

Each mammogram gets its own copy with its objects drawn far enough apart not to touch.

Example
-------
>>> from slicereview.demo.assist_objects import tube_mask
>>> import numpy as np
>>> line = np.array([[5.5, 2.0], [5.5, 12.0]])   # a horizontal centreline (row, col)
>>> m = tube_mask(line, 3.0, (0, 0, 11, 15))
>>> m.sum(axis=1).tolist()[3:8], m.sum(axis=0).tolist()[:3]
([0, 12, 14, 12, 0], [1, 3, 3])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from slicereview.demo.clicker import Placed

#: The smallest white-matter component kept, in pixels (1 mm pixels: 100 mm²).
MIN_WM_PIXELS = 100
#: Axial slices of the template used (of 189), every tenth through the brain.
WM_SLICES = tuple(range(40, 150, 10))


@dataclass(frozen=True, eq=False)
class TruthObject:
    """One object: the ``image`` it is in (shared by the objects of one image), its true mask,
    and for a tube its centreline ``float64 (n, 2)`` ``(row, col)``."""

    name: str
    image: np.ndarray
    truth: Placed
    centreline: np.ndarray | None = None


def white_matter(slices: Sequence[int] = WM_SLICES, min_pixels: int = MIN_WM_PIXELS
                 ) -> list[TruthObject]:
    """The white-matter objects of the template's axial ``slices`` (module docstring)."""
    import SimpleITK as sitk
    from scipy import ndimage

    from slicereview.demo.project import mni_template_file, mni_white_matter_file

    t1 = sitk.GetArrayFromImage(sitk.ReadImage(str(mni_template_file())))
    wm = sitk.GetArrayFromImage(sitk.ReadImage(str(mni_white_matter_file())))
    scale = 255.0 if wm.max() > 1 else 1.0  # the converted map stores probability x 255
    out = []
    for z in slices:
        image = np.ascontiguousarray(t1[z])
        labels, n = ndimage.label(wm[z] / scale >= 0.5, structure=np.ones((3, 3), bool))
        for k, box in enumerate(ndimage.find_objects(labels), start=1):
            if box is None:
                continue
            part = labels[box] == k
            if part.sum() >= min_pixels:
                out.append(TruthObject(f"template z{z} #{k}", image,
                                       Placed(part, box[0].start, box[1].start)))
    return out


def mammograms(files: Sequence[Path] | None = None) -> list[np.ndarray]:
    """The demo mammograms' pixels (writable ``uint16 (rows, cols)`` copies); ``files``
    default to all eight."""
    from slicereview.demo.project import mammogram_files
    from slicereview.engines.imaging.loader import load_display
    from slicereview.model import Image

    paths = list(mammogram_files() if files is None else files)
    return [np.array(load_display(p, Image(id=1, source_id=1, case_id="C000001", path=str(p),
                                           format="dicom")).data) for p in paths]


def _places(tissue: np.ndarray, factor: int, n: int, radius: float,
            rng: np.random.Generator) -> list[tuple[float, float]]:
    """``n`` centres ``(row, col)`` in full-image pixels, at least ``radius`` from the edge of
    the (reduced) tissue mask and from the image's border, and ``2 * radius`` from each
    other."""
    from scipy import ndimage

    # The image's border counts as the tissue's edge (the chest wall side touches it).
    inside = ndimage.distance_transform_edt(np.pad(tissue, 1))[1:-1, 1:-1] * factor
    rows, cols = np.nonzero(inside > radius)
    centres: list[tuple[float, float]] = []
    for _ in range(200 * n):
        if len(centres) == n or len(rows) == 0:
            break
        i = int(rng.integers(len(rows)))
        c = ((rows[i] + rng.uniform()) * factor, (cols[i] + rng.uniform()) * factor)
        if all(np.hypot(c[0] - a, c[1] - b) > 2 * radius for a, b in centres):
            centres.append(c)
    return centres


def _draw(image: np.ndarray, mask: Placed, contrast: float, blur: float, noise: float,
          rng: np.random.Generator) -> None:
    """Add ``contrast * blur(mask)`` plus noise to ``image`` around the mask, in place."""
    from scipy import ndimage

    pad = int(np.ceil(4 * blur)) + 2
    r0, c0 = max(mask.row0 - pad, 0), max(mask.col0 - pad, 0)
    r1 = min(mask.end[0] + pad, image.shape[0])
    c1 = min(mask.end[1] + pad, image.shape[1])
    local = np.zeros((r1 - r0, c1 - c0), np.float64)
    local[mask.row0 - r0:mask.end[0] - r0, mask.col0 - c0:mask.end[1] - c0] = mask.mask
    signal = ndimage.gaussian_filter(local, blur) * contrast
    signal += rng.normal(0.0, noise, local.shape) * (signal > 0.01 * contrast)
    info = np.iinfo(image.dtype) if image.dtype.kind in "iu" else None
    out = image[r0:r1, c0:c1].astype(np.float64) + signal
    if info is not None:
        out = np.clip(np.rint(out), info.min, info.max)
    image[r0:r1, c0:c1] = out.astype(image.dtype)


def _local_std(image: np.ndarray, row: float, col: float, half: int) -> float:
    r, c = int(row), int(col)
    part = image[max(r - half, 0):r + half, max(c - half, 0):c + half].astype(np.float64)
    return float(part.std()) or 1.0


def blobs(files: Sequence[Path] | None = None, per_image: int = 6, seed: int = 29, *,
          images: Sequence[np.ndarray] | None = None) -> list[TruthObject]:
    """Blobs in the demo mammograms (module docstring); ``files`` default to all eight.
    ``images`` (e.g. from :func:`mammograms`) are drawn into in place instead."""
    from slicereview.demo.annotators import blob, tissue_mask
    from slicereview.engines.masks import polygon_crop

    rng = np.random.default_rng(seed)
    out = []
    for k, image in enumerate(mammograms(files) if images is None else images):
        tissue = tissue_mask(image, factor=8)
        for j, (r, c) in enumerate(_places(tissue, 8, per_image, 90.0, rng)):
            radius = float(rng.uniform(8, 32))
            outline = blob((c, r), radius, rng)  # (x, y)
            crop = polygon_crop(outline, image.shape)
            if crop is None:
                continue
            r0, c0, inside = crop
            truth = Placed(inside, r0, c0)
            contrast = float(rng.uniform(1.5, 3.0)) * _local_std(image, r, c, int(3 * radius))
            _draw(image, truth, contrast, float(rng.uniform(1.0, 2.0)),
                  contrast / float(rng.uniform(6, 10)), rng)
            out.append(TruthObject(f"mammogram {k} blob {j}", image, truth))
    return out


def tube_mask(centreline: np.ndarray, width: float, crop: tuple[int, int, int, int]
              ) -> np.ndarray:
    """``bool`` of ``crop`` ``(row0, col0, row1, col1)``: the pixels whose centre lies within
    ``width / 2`` of the polyline ``centreline`` (``(n, 2)`` ``(row, col)``)."""
    from scipy.spatial import cKDTree

    line = np.asarray(centreline, dtype=np.float64)
    seg = np.hypot(*np.diff(line, axis=0).T)
    steps = np.maximum(np.ceil(seg / 0.1).astype(int), 1)
    dense = np.vstack([np.linspace(a, b, s, endpoint=False)
                       for a, b, s in zip(line[:-1], line[1:], steps, strict=True)]
                      + [line[-1:]])
    r0, c0, r1, c1 = crop
    rr, cc = np.mgrid[r0:r1, c0:c1] + 0.5
    dist, _ = cKDTree(dense).query(np.c_[rr.ravel(), cc.ravel()])
    return (dist <= width / 2 + 0.05).reshape(rr.shape)


def centreline(start: Sequence[float], length: float, rng: np.random.Generator
               ) -> np.ndarray:
    """A smooth random curve ``(n, 2)`` ``(row, col)`` from ``start``, sampled every pixel:
    its direction swings sinusoidally (amplitude 0.2–0.8 rad, period 60–200 px)."""
    theta0 = rng.uniform(0, 2 * np.pi)
    amp, period, phase = rng.uniform(0.2, 0.8), rng.uniform(60, 200), rng.uniform(0, 2 * np.pi)
    s = np.arange(0.0, length + 1.0)
    theta = theta0 + amp * np.sin(2 * np.pi * s / period + phase)
    steps = np.c_[np.sin(theta), np.cos(theta)]
    return np.asarray(start, dtype=np.float64) + np.vstack([[0, 0], np.cumsum(steps[:-1], 0)])


def tubes(files: Sequence[Path] | None = None, per_image: int = 5, seed: int = 31, *,
          images: Sequence[np.ndarray] | None = None) -> list[TruthObject]:
    """Tubes in the demo mammograms (module docstring); ``files`` default to all eight.
    ``images`` (e.g. from :func:`mammograms`) are drawn into in place instead."""
    from slicereview.demo.annotators import tissue_mask

    rng = np.random.default_rng(seed)
    out = []
    for k, image in enumerate(mammograms(files) if images is None else images):
        tissue = tissue_mask(image, factor=8)
        for j, (r, c) in enumerate(_places(tissue, 8, per_image, 220.0, rng)):
            length, width = float(rng.uniform(80, 200)), float(rng.uniform(2, 6))
            line = centreline((r, c), length, rng)
            pad = int(np.ceil(width)) + 2
            lo = np.floor(line.min(axis=0)).astype(int) - pad
            hi = np.ceil(line.max(axis=0)).astype(int) + pad
            r0, c0 = max(int(lo[0]), 0), max(int(lo[1]), 0)
            crop = (r0, c0, min(int(hi[0]), image.shape[0]), min(int(hi[1]), image.shape[1]))
            truth = Placed(tube_mask(line, width, crop), r0, c0)
            contrast = float(rng.uniform(1.5, 3.0)) * _local_std(image, r, c, 60)
            _draw(image, truth, contrast, float(rng.uniform(0.6, 1.0)),
                  contrast / float(rng.uniform(6, 10)), rng)
            out.append(TruthObject(f"mammogram {k} tube {j}", image, truth, line))
    return out
