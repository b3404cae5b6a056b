"""Training samples of one image: balanced, capped, from a few patches, uncertain pixels left out.

Training must stay bounded whatever the images' size, so an image gives at most
``samples_per_image`` pixels, computed from at most ``patches_per_image`` patches of
``patch × patch`` pixels (plus the features' margin), never from the whole image:

1. **Patches.** Half of them (more if the tissue is too small for the rest) are centred on
   region pixels drawn at random, so the region and the background right around it are seen;
   the others on tissue pixels drawn at random (every pixel without a tissue mask). Patches
   are clipped to the image and may overlap.
2. **Classes.** Region = *certain* pixels of the label image (1); background = pixels of the
   tissue (every pixel without a mask) that no polygon covers (0). **Uncertain pixels (2) are
   left out** of training: the annotator said they are not sure, and teaching the forest
   either answer there would teach it a guess. (They are left out of the held-out scores too,
   :mod:`.scores`.)
3. **Balance and cap.** Up to half the cap from each class, drawn uniformly without
   replacement from the patches' pixels of that class (pixels in two overlapping patches count
   once); an image with less of one class gives less of it — an image without a region gives
   background only.

Everything is drawn from ``numpy.random.default_rng((seed, key))``, so an image gives the
same samples whatever other images are trained with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slicereview.engines.learning.features import Normalisation, box_features
from slicereview.engines.learning.settings import Settings
from slicereview.engines.prediction import Box, CancelCheck, check


@dataclass(frozen=True, eq=False)
class Samples:
    """One image's training samples: ``X`` ``float32 (n, F)``, ``y`` ``uint8 (n,)`` (1
    region, 0 background) and the image's ``key``."""

    key: int
    X: np.ndarray
    y: np.ndarray

    @property
    def positives(self) -> int:
        return int(np.count_nonzero(self.y == 1))

    @property
    def negatives(self) -> int:
        return int(np.count_nonzero(self.y == 0))


def sample_image(image: np.ndarray, labels: np.ndarray, tissue: np.ndarray | None,
                 settings: Settings, key: int, cancelled: CancelCheck | None = None,
                 norm: Normalisation | None = None) -> Samples:
    """The samples of one image (see the module text).

    Parameters
    ----------
    image : (H, W)
        The grey image: normalised already (:func:`~.features.normalise`), or mapped patch
        by patch with ``norm`` (:func:`~.features.normalisation`).
    labels : uint8 (H, W)
        The truth as a label image: 0 background, 1 certain, 2 uncertain.
    tissue : bool (H, W) or None
        Where background may be drawn from; ``None``: everywhere.
    key : int
        The image's key (e.g. its id): seeds the draw.
    """
    patches, picks = choose_pixels(labels, tissue, settings, key)
    return _gather(image, norm, labels, picks, patches, settings, key, cancelled)


def choose_pixels(labels: np.ndarray, tissue: np.ndarray | None, settings: Settings,
                  key: int) -> tuple[list[Box], np.ndarray]:
    """``(patches, picks)``: the sampling patches (boxes) of an image and the ``bool (H, W)``
    mask of the pixels drawn from them (see the module text)."""
    rng = np.random.default_rng((settings.seed, key & 0xFFFFFFFF))
    shape = labels.shape
    region = labels == 1
    background = labels == 0
    if tissue is not None:
        background &= tissue
    patches = _patches(region, background, settings, rng)
    chosen = np.zeros(shape, bool)
    for r0, c0, r1, c1 in patches:
        chosen[r0:r1, c0:c1] = True
    quota = settings.samples_per_image // 2
    picks = np.zeros(shape, bool)
    for pool in (region & chosen, background & chosen):
        flat = np.flatnonzero(pool)
        take = flat if len(flat) <= quota else rng.choice(flat, quota, replace=False)
        picks.flat[take] = True
    return patches, picks


def _patches(region: np.ndarray, background: np.ndarray, settings: Settings,
             rng: np.random.Generator) -> list[Box]:
    n = settings.patches_per_image
    on_region = _centres(region, (n + 1) // 2, rng)
    elsewhere = _centres(background, n - len(on_region), rng)
    if len(on_region) + len(elsewhere) < n:  # little background: more patches on the region
        on_region += _centres(region, n - len(on_region) - len(elsewhere), rng)
    half = settings.patch // 2
    rows, cols = region.shape
    boxes = []
    for r, c in on_region + elsewhere:
        r0 = min(max(r - half, 0), max(rows - settings.patch, 0))
        c0 = min(max(c - half, 0), max(cols - settings.patch, 0))
        boxes.append((r0, c0, min(r0 + settings.patch, rows), min(c0 + settings.patch, cols)))
    return boxes


def _centres(mask: np.ndarray, n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    if n <= 0:
        return []
    count = int(np.count_nonzero(mask))
    if count == 0:
        return []
    # The k-th pixel of the mask in row-major order, for n distinct k, without listing them all.
    ks = np.sort(rng.choice(count, min(n, count), replace=False))
    cumulative = np.cumsum(np.count_nonzero(mask, axis=1))
    out = []
    for k in ks:
        row = int(np.searchsorted(cumulative, k, side="right"))
        before = int(cumulative[row - 1]) if row else 0
        col = int(np.flatnonzero(mask[row])[k - before])
        out.append((row, col))
    return out


def _gather(image: np.ndarray, norm: Normalisation | None, labels: np.ndarray,
            picks: np.ndarray, patches: list[Box], settings: Settings, key: int,
            cancelled: CancelCheck | None) -> Samples:
    """The features of the picked pixels, each computed once, from the patch it falls in."""
    margin = settings.margin()
    rows, cols = labels.shape
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    left = picks.copy()
    for r0, c0, r1, c1 in patches:
        check(cancelled)
        here = left[r0:r1, c0:c1]
        if not here.any():
            continue
        span = (max(r0 - margin, 0), max(c0 - margin, 0), min(r1 + margin, rows),
                  min(c1 + margin, cols))
        feats = box_features(image, span, settings, norm)
        inner = feats[r0 - span[0]:r1 - span[0], c0 - span[1]:c1 - span[1]]
        xs.append(inner[here])
        ys.append(labels[r0:r1, c0:c1][here])
        left[r0:r1, c0:c1] = False
    n_features = settings.feature_count()
    X = np.concatenate(xs) if xs else np.zeros((0, n_features), np.float32)
    y = (np.concatenate(ys) == 1).astype(np.uint8) if ys else np.zeros(0, np.uint8)
    return Samples(key, np.ascontiguousarray(X, dtype=np.float32), y)
