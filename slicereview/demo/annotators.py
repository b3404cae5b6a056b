"""Simulated annotators: polygons with realistic disagreement, for demos and tests.

Clearly simulated: the raters this module creates are stored with ``simulated = 1`` and named
"Simulated annotator ...". Given some *true* regions (outlines found as bright spots in an image
with :func:`find_bright_regions`, or made up with :func:`random_regions`), each simulated
annotator

* **misses** regions (small ones more often),
* **adds** regions that are not there (false positives, mostly marked uncertain),
* draws **jittered** outlines: a random overall size change (some annotators draw tight, some
  loose), a smooth low-frequency wobble and a little hand tremor, then simplified like a
  freehand stroke,
* marks regions **uncertain** (faint ones more often), or draws a certain core with an
  **uncertain margin** around it.

Everything is deterministic from ``seed`` (each annotator has its own stream, so adding a fourth
annotator does not change the first three).

Example
-------
>>> from slicereview.demo.annotators import random_regions, simulate_annotators
>>> regions = random_regions((400, 300), 6, seed=1)
>>> sims = simulate_annotators((400, 300), regions, seed=1)
>>> sorted(sims)[0], all(len(p.vertices) >= 3 for ps in sims.values() for p in ps)
('Simulated annotator A (careful)', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from slicereview.engines import geometry
from slicereview.model import AnnotationStatus, Certainty, Phase, Polygon, Role


@dataclass(frozen=True)
class Profile:
    """How one simulated annotator behaves (probabilities per region; lengths in pixels or as
    a fraction of the region's radius)."""

    name: str
    miss: float  #: chance of missing a region of median size
    extra: float  #: expected number of false-positive regions per image
    uncertain: float  #: chance of marking a found region uncertain
    margin: float  #: chance of drawing a certain core with an uncertain margin instead
    scale: float  #: mean relative size of drawn outlines (1.0: on the true outline)
    scale_sd: float  #: spread of that size, relative
    wobble: float  #: low-frequency outline wobble, fraction of the radius
    tremor: float  #: per-vertex hand tremor in pixels


#: Three annotators who disagree the way real ones do.
DEFAULT_PROFILES = (
    Profile("Simulated annotator A (careful)", miss=0.10, extra=0.3, uncertain=0.15,
            margin=0.25, scale=1.00, scale_sd=0.06, wobble=0.05, tremor=0.4),
    Profile("Simulated annotator B (liberal)", miss=0.05, extra=1.5, uncertain=0.35,
            margin=0.35, scale=1.15, scale_sd=0.10, wobble=0.08, tremor=0.8),
    Profile("Simulated annotator C (conservative)", miss=0.35, extra=0.1, uncertain=0.10,
            margin=0.05, scale=0.88, scale_sd=0.08, wobble=0.06, tremor=0.6),
)


# -- true regions ------------------------------------------------------------------------------
def blob(center: Sequence[float], radius: float, rng: np.random.Generator, n: int = 64
         ) -> np.ndarray:
    """A smooth random blob outline ``float64 (n, 2)`` ``(x, y)`` round ``center``."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = np.full(n, float(radius))
    for k in (2, 3, 5):
        r += radius * rng.uniform(0, 0.25 / k) * np.cos(k * t + rng.uniform(0, 2 * np.pi))
    return np.c_[center[0] + r * np.cos(t), center[1] + r * np.sin(t)]


def random_regions(shape: tuple[int, int], n: int, seed: int = 0,
                   radius: tuple[float, float] = (8.0, 40.0)) -> list[np.ndarray]:
    """``n`` random non-overlapping blobs inside an image of ``shape`` ``(H, W)``."""
    rng = np.random.default_rng(seed)
    h, w = shape
    out: list[np.ndarray] = []
    centres: list[tuple[float, float, float]] = []
    for _ in range(50 * n):
        if len(out) == n:
            break
        r = rng.uniform(*radius)
        if w <= 3 * r or h <= 3 * r:
            continue
        c = (rng.uniform(1.5 * r, w - 1.5 * r), rng.uniform(1.5 * r, h - 1.5 * r))
        if any(np.hypot(c[0] - x, c[1] - y) < 1.6 * (r + q) for x, y, q in centres):
            continue
        centres.append((*c, r))
        out.append(blob(c, r, rng))
    return out


def tissue_mask(image: np.ndarray, factor: int = 1) -> np.ndarray:
    """``bool`` mask of the largest bright object (the breast, the body) of a grey image,
    holes filled; burned-in labels and markers (smaller separate objects) are left out.

    ``factor`` > 1 computes it on an image reduced by that factor (the result has the reduced
    shape).
    """
    from scipy import ndimage
    from skimage.filters import threshold_otsu

    img = _reduce(np.asarray(image, dtype=np.float32), factor)
    if img.size == 0 or np.ptp(img) == 0:
        return np.zeros(img.shape, dtype=bool)
    labels, n = ndimage.label(img > threshold_otsu(img))
    if n == 0:
        return np.zeros(img.shape, dtype=bool)
    sizes = np.bincount(labels.ravel())[1:]
    return ndimage.binary_fill_holes(labels == int(np.argmax(sizes)) + 1)


def _reduce(img: np.ndarray, f: int) -> np.ndarray:
    if f <= 1:
        return img
    h, w = (img.shape[0] // f) * f, (img.shape[1] // f) * f
    return img[:h, :w].reshape(h // f, f, w // f, f).mean(axis=(1, 3))


def find_bright_regions(image: np.ndarray, max_regions: int = 12, *, sigma: float = 2.5,
                        work_size: int = 600, min_area: float = 20.0,
                        percentile: float = 97.0) -> list[np.ndarray]:
    """Outlines ``(x, y)`` of the brightest blob-like spots inside the tissue of a grey image
    ``(H, W)`` (the largest bright object, see :func:`tissue_mask`).

    The image is reduced to about ``work_size`` pixels on its long side, blobs of scale
    ``sigma`` (in reduced pixels) are enhanced with a difference of Gaussians, local maxima above
    the ``percentile`` of the tissue's response are taken strongest first, and each becomes the
    connected region around it where the response exceeds half its peak. Outlines are in
    full-image coordinates; ``min_area`` is in full-image pixels. Returns ``[]`` for a flat
    image.
    """
    from scipy import ndimage
    from skimage.feature import peak_local_max
    from skimage.measure import find_contours

    img = np.asarray(image, dtype=np.float32)
    if img.ndim != 2:
        raise ValueError(f"a grey image (H, W) is needed, got shape {img.shape}")
    f = max(1, int(np.ceil(max(img.shape) / work_size)))
    small = _reduce(img, f)
    tissue = ndimage.binary_erosion(tissue_mask(small), iterations=max(1, int(2 * sigma)))
    if not tissue.any():
        return []
    dog = ndimage.gaussian_filter(small, sigma) - ndimage.gaussian_filter(small, 3 * sigma)
    threshold = float(np.percentile(dog[tissue], percentile))
    if not np.isfinite(threshold) or threshold <= 0:
        return []
    peaks = peak_local_max(np.where(tissue, dog, 0), min_distance=max(1, int(3 * sigma)),
                           threshold_abs=threshold, num_peaks=4 * max_regions)
    taken = np.zeros(small.shape, dtype=bool)
    regions = []
    for r, c in peaks:
        if taken[r, c]:
            continue
        labels, _ = ndimage.label(dog > 0.5 * dog[r, c])
        mask = labels == labels[r, c]
        if (mask & taken).any() or mask.sum() > 0.02 * tissue.sum():
            continue
        taken |= mask
        contours = find_contours(np.pad(mask, 1).astype(np.float32), 0.5)
        c_ = max(contours, key=len)
        # find_contours gives (row, col) on the padded reduced grid with pixel centres at
        # integers; reduced pixel j covers full-image [j*f, (j+1)*f).
        v = np.c_[(c_[:, 1] - 1 + 0.5) * f, (c_[:, 0] - 1 + 0.5) * f]
        v = geometry.simplify(v, 0.25 * f)
        if len(v) >= 3 and geometry.area(v) >= min_area:
            regions.append(v)
        if len(regions) == max_regions:
            break
    return regions


# -- simulated annotators ----------------------------------------------------------------------
def simulate_annotators(
    shape: tuple[int, int], regions: Sequence[np.ndarray], seed: int = 0,
    profiles: Sequence[Profile] = DEFAULT_PROFILES, faintness: Sequence[float] | None = None,
    where: np.ndarray | None = None,
) -> dict[str, list[Polygon]]:
    """Each profile's polygons for one image of ``shape`` ``(H, W)`` with true ``regions``.

    ``faintness`` (0 obvious .. 1 barely visible, one per region; default from size: small
    regions count as faint) raises the chance of missing a region or marking it uncertain.
    ``where`` is an optional ``bool`` mask (any resolution with the image's aspect, e.g. a
    reduced :func:`tissue_mask`) of where false positives may be centred; default anywhere.
    Returns ``{annotator name: polygons}``; polygons are clipped to the image.
    """
    regions = [geometry.as_vertices(r) for r in regions]
    radii = np.array([np.sqrt(geometry.area(r) / np.pi) for r in regions])
    if faintness is None:
        med = float(np.median(radii)) if len(radii) else 1.0
        faintness = [float(np.clip(0.5 - 0.5 * np.log2(r / med), 0, 1)) for r in radii]
    out = {}
    for k, prof in enumerate(profiles):
        rng = np.random.default_rng([seed, k])
        polys: list[Polygon] = []
        for region, radius, faint in zip(regions, radii, faintness, strict=True):
            if rng.random() < min(0.95, prof.miss * (0.5 + 1.5 * faint)):
                continue
            polys.extend(_draw(region, radius, faint, prof, rng, shape))
        for _ in range(rng.poisson(prof.extra)):
            r = float(rng.uniform(0.5, 1.2) * (np.median(radii) if len(radii) else 15.0))
            c = _extra_centre(shape, r, where, rng)
            if c is not None:
                certainty = Certainty.UNCERTAIN if rng.random() < 0.7 else Certainty.CERTAIN
                polys.append(Polygon(_outline(blob(c, r, rng), r, prof, rng, shape), certainty))
        out[prof.name] = polys
    return out


def _extra_centre(shape: tuple[int, int], r: float, where: np.ndarray | None,
                  rng: np.random.Generator) -> tuple[float, float] | None:
    h, w = shape
    if w <= 3 * r or h <= 3 * r:
        return None
    if where is None or not np.any(where):
        return rng.uniform(r, w - r), rng.uniform(r, h - r)
    rows, cols = np.nonzero(where)
    k = rng.integers(len(rows))
    fy, fx = h / where.shape[0], w / where.shape[1]
    x = float(np.clip((cols[k] + rng.random()) * fx, r, w - r))
    y = float(np.clip((rows[k] + rng.random()) * fy, r, h - r))
    return x, y


def _draw(region: np.ndarray, radius: float, faint: float, prof: Profile,
          rng: np.random.Generator, shape: tuple[int, int]) -> list[Polygon]:
    if rng.random() < prof.margin:
        core = _outline(_scaled(region, 0.8), radius, prof, rng, shape)
        rim = _outline(_scaled(region, 1.25), radius, prof, rng, shape)
        return [Polygon(rim, Certainty.UNCERTAIN), Polygon(core, Certainty.CERTAIN)]
    uncertain = rng.random() < min(0.95, prof.uncertain * (0.5 + 1.5 * faint))
    certainty = Certainty.UNCERTAIN if uncertain else Certainty.CERTAIN
    return [Polygon(_outline(region, radius, prof, rng, shape), certainty)]


def _scaled(v: np.ndarray, s: float) -> np.ndarray:
    c = v.mean(axis=0)
    return c + s * (v - c)


def _outline(region: np.ndarray, radius: float, prof: Profile, rng: np.random.Generator,
             shape: tuple[int, int]) -> np.ndarray:
    """A hand-drawn version of ``region``: resized, wobbled, trembling, simplified, clipped."""
    dense = _resample(region, max(24, int(2 * np.pi * radius / 2)))
    c = dense.mean(axis=0)
    d = dense - c
    t = np.arctan2(d[:, 1], d[:, 0])
    s = max(0.3, rng.normal(prof.scale, prof.scale_sd))
    wobble = np.ones(len(dense)) * s
    for k in (1, 2, 3):
        wobble += prof.wobble / k * rng.normal() * np.cos(k * t + rng.uniform(0, 2 * np.pi))
    v = c + d * wobble[:, None] + rng.normal(0, prof.tremor, dense.shape)
    v = geometry.simplify(v, max(0.3, prof.tremor))
    h, w = shape
    v[:, 0] = np.clip(v[:, 0], 0, w)
    v[:, 1] = np.clip(v[:, 1], 0, h)
    return v


def _resample(v: np.ndarray, n: int) -> np.ndarray:
    """``n`` points evenly spaced along the closed outline ``v``."""
    ring = np.vstack([v, v[:1]])
    seg = np.hypot(*np.diff(ring, axis=0).T)
    s = np.r_[0, np.cumsum(seg)]
    u = np.linspace(0, s[-1], n, endpoint=False)
    return np.c_[np.interp(u, s, ring[:, 0]), np.interp(u, s, ring[:, 1])]


# -- into a project ----------------------------------------------------------------------------
def store_simulated(
    project, image_id: int, polygons: Mapping[str, Sequence[Polygon]],
    phase: Phase | str = Phase.FORMAL, round: int = 1,
) -> dict[str, int]:
    """Write simulated annotations of one image: raters are created with ``simulated=True``,
    each annotation gets its polygons and is ``submitted`` (``nothing_to_annotate`` when the
    annotator drew nothing). Re-running replaces the polygons. Returns ``{name: annotation id}``.
    """
    ids = {}
    with project.transaction():
        for name, polys in polygons.items():
            rater = project.raters.ensure(name, Role.ANNOTATOR, simulated=True)
            ann = project.annotations.for_image(rater, image_id, phase, round)
            project.polygons.replace(ann.id, list(polys))
            status = (AnnotationStatus.SUBMITTED if polys
                      else AnnotationStatus.NOTHING_TO_ANNOTATE)
            project.annotations.set_status(ann.id, status)
            ids[name] = ann.id
    return ids
