"""The demo's simulated model: predictions on the demo mammograms from the demo's known truth,
degraded in a known way. **It is not a model**: no network, no training; it stands in for one
so that every view of a model (its rater, its layer, model-versus-people agreement,
pre-annotation, model disagreement in the queue) has material in the demo.

The rater is :data:`NAME` at :data:`VERSION` (``simulated-model@1``), stored with the
*simulated* flag and a card whose licence and description say it is simulated.

How a prediction is made, per mammogram (all seeded by ``seed`` and the image id):

* **Truth**: the demo's true regions, the brightest compact spots inside the breast
  (:func:`~slicereview.demo.annotators.find_bright_regions`, the same regions the simulated
  annotators outline).
* **Misses**: each true region is missed with probability :data:`MISS` (0.15); half of the
  missed ones still get a faint response, a peak of 0.35–0.45 (the uncertain band only).
* **Confidence**: a found region's peak probability is drawn uniformly from 0.55 to 0.98.
* **Soft, shifted borders**: the region's mask is blurred by a Gaussian of σ = 0.35 × its
  radius and scaled to the peak, so the certain part (p ≥ 0.5) is a little smaller than the
  truth for a weak response and the uncertain band (0.3 ≤ p < 0.5) lies round it; the whole
  response is moved by up to 0.15 × the radius in a random direction (a model's localisation
  error).
* **False positives**: a Poisson number (mean :data:`FALSE_POSITIVES`, 1.0) of blobs centred
  in the breast tissue, of the regions' median size, with a peak of 0.35–0.75.

The probability map is cut at the demo thresholds (certain 0.5, uncertain 0.3) and stored as
the model rater's finished annotation (:func:`slicereview.app.models.predictions.
store_prediction`), polygons with provenance ``model simulated-model@1``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

NAME, VERSION = "simulated-model", "1"
MISS = 0.15
FALSE_POSITIVES = 1.0
CERTAIN, UNCERTAIN = 0.5, 0.3
CARD = {"licence": "none (simulated for the demo; not a model)",
        "description": "Simulated for the demo from the demo's known truth, degraded "
                       "(misses, soft and shifted borders, false positives): not a model.",
        "source": "slicereview.demo.model"}
_MAMMOGRAMS = "Mammograms"


def simulated_probability(shape: tuple[int, int], regions: Sequence[np.ndarray],
                          tissue: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """The simulated model's ``float32 (H, W)`` probability map (see the module text) for true
    ``regions`` (outlines ``(x, y)``); ``tissue``: a (reduced) mask of where false positives
    may be centred.

    >>> rng = np.random.default_rng(0)
    >>> square = np.array([[40.0, 40.0], [60.0, 40.0], [60.0, 60.0], [40.0, 60.0]])
    >>> p = simulated_probability((100, 100), [square], None, rng)
    >>> p.shape, p.dtype, bool(0.0 <= p.min() and p.max() <= 1.0)
    ((100, 100), dtype('float32'), True)
    """
    from scipy import ndimage

    from slicereview.engines import geometry
    from slicereview.engines.masks import rasterize
    from slicereview.model import Polygon

    h, w = shape
    prob = np.zeros(shape, np.float32)
    radii = [float(np.sqrt(max(geometry.area(r), 1.0) / np.pi)) for r in regions]

    def add(mask_vertices: np.ndarray, radius: float, peak: float) -> None:
        x0, y0 = np.floor(mask_vertices.min(axis=0)).astype(int)
        x1, y1 = np.ceil(mask_vertices.max(axis=0)).astype(int)
        pad = int(np.ceil(2 * radius)) + 2
        r0, c0 = max(0, y0 - pad), max(0, x0 - pad)
        r1, c1 = min(h, y1 + pad), min(w, x1 + pad)
        if r1 <= r0 or c1 <= c0:
            return
        local = mask_vertices - (c0, r0)
        mask = rasterize([Polygon(local)], (r1 - r0, c1 - c0)) > 0
        soft = ndimage.gaussian_filter(mask.astype(np.float32), 0.35 * radius)
        if soft.max() > 0:
            soft *= peak / float(soft.max())
        angle = rng.uniform(0, 2 * np.pi)
        shift = rng.uniform(0, 0.15 * radius)
        soft = ndimage.shift(soft, (shift * np.sin(angle), shift * np.cos(angle)), order=1)
        np.maximum(prob[r0:r1, c0:c1], soft, out=prob[r0:r1, c0:c1])

    for region, radius in zip(regions, radii, strict=True):
        if rng.random() < MISS:
            if rng.random() < 0.5:
                add(geometry.as_vertices(region), radius, float(rng.uniform(0.35, 0.45)))
            continue
        add(geometry.as_vertices(region), radius, float(rng.uniform(0.55, 0.98)))
    median = float(np.median(radii)) if radii else 15.0
    for _ in range(int(rng.poisson(FALSE_POSITIVES))):
        centre = _tissue_point(shape, tissue, rng)
        if centre is None:
            continue
        t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        r = median * rng.uniform(0.6, 1.2)
        blob = np.c_[centre[1] + r * np.cos(t), centre[0] + r * np.sin(t)]
        add(blob, r, float(rng.uniform(0.35, 0.75)))
    return np.clip(prob, 0.0, 1.0)


def _tissue_point(shape: tuple[int, int], tissue: np.ndarray | None,
                  rng: np.random.Generator) -> tuple[float, float] | None:
    """A random ``(row, col)`` in the full image inside ``tissue`` (any resolution)."""
    if tissue is None:
        return float(rng.uniform(0, shape[0])), float(rng.uniform(0, shape[1]))
    cells = np.argwhere(tissue)
    if len(cells) == 0:
        return None
    r, c = cells[int(rng.integers(len(cells)))]
    fr, fc = shape[0] / tissue.shape[0], shape[1] / tissue.shape[1]
    return float((r + rng.random()) * fr), float((c + rng.random()) * fc)


def add_demo_model(project, image_ids: Sequence[int] | None = None, seed: int = 11) -> int:
    """Store the simulated model's predictions on each image (default: the demo's
    "Mammograms" set) as the finished annotations of ``simulated-model@1``. Returns the number
    of images predicted; images that cannot be decoded are skipped."""
    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater
    from slicereview.demo.annotators import find_bright_regions, tissue_mask
    from slicereview.engines.imaging.loader import load_display
    from slicereview.engines.prediction import label_image

    if image_ids is None:
        set_id = project.image_sets.id_by_name(_MAMMOGRAMS)
        image_ids = project.image_sets.members(set_id) if set_id is not None else []
    rater = model_rater(project, NAME, VERSION, card=CARD, simulated=True)
    done = 0
    for image in project.images.all(image_ids):
        try:
            display = load_display(project.images.resolve(image.path), image)
        except Exception:  # a missing codec or file: the demo still builds without this image
            continue
        pixels = np.asarray(display.data, dtype=np.float32)
        if pixels.ndim != 2:
            continue
        if display.invert:  # (as the simulated annotators see it)
            pixels = pixels.max() - pixels
        regions = find_bright_regions(pixels, max_regions=8)
        factor = max(1, int(np.ceil(max(pixels.shape) / 300)))
        rng = np.random.default_rng([seed, image.id])
        prob = simulated_probability(pixels.shape, regions, tissue_mask(pixels, factor), rng)
        store_prediction(project, rater, image.id,
                         label_image(prob, certain=CERTAIN, uncertain=UNCERTAIN))
        done += 1
    return done
