"""The project model in the loop, simulated on the demo mammograms (issue 32): active selection
by model uncertainty against random order, and the annotation effort that its pre-annotation
saves. The method is docs/performance.md's ("The project model in the loop").

**Material** (:func:`crops`): ``CROPS_PER_MAMMOGRAM`` windows of ``SIZE`` pixels inside the
breast of each of the 8 demo mammograms (CBIS-DDSM), as the demo's review set makes them
(:func:`slicereview.demo.review.crop_windows`, seeded), each with the demo's known truth: the
brightest blob-like spots of the crop (:func:`~slicereview.demo.annotators.find_bright_regions`;
0-3 per crop, :data:`~slicereview.demo.review.REGIONS_PER_CROP`), and what the demo's careful
simulated annotator draws of them (:data:`~slicereview.demo.review.PROFILES`: misses some,
adds some, marks some uncertain). The model learns from the annotator's label images (what an
accepted annotation is); it is scored against the truth.

**Active selection** (:func:`active_run`): per seed, the crops are split into a pool and a
test set; both orders start from the same ``START`` random pool crops; then one crop at a
time is annotated: *random* takes a random one, *uncertainty* the one of ``CANDIDATES``
random unannotated pool crops whose prediction by the current model has the highest mean
binary entropy over the tissue (:func:`slicereview.app.models.project_predict.uncertainty`).
After each crop the model is trained again (same settings, seeded). The score after ``k``
annotated crops: the Dice of the model's certain region (``p ≥ certain``) against the truth,
pooled over every pixel of the test set (images without a finding have no Dice of their own).

**Pre-annotation effort** (:func:`effort`): for each test crop, the interactions to bring
every true spot to Dice ≥ 0.9 with the points tool (the standard clicker, NoC@90,
:func:`slicereview.demo.clicker.click_session`), without and with the model's pre-annotation:
without, the NoC of each spot; with, a spot the model already outlines at Dice ≥ 0.9 (its
predicted components that touch it, against it) costs nothing, another costs its NoC, plus one
deletion if a wrong predicted component touches it; each predicted component that touches no
true spot costs one deletion.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIZE = 256
CROPS_PER_MAMMOGRAM = 10
START = 2
CANDIDATES = 8
TEST = 16


@dataclass(frozen=True)
class Crop:
    image: np.ndarray  # uint16 (SIZE, SIZE)
    truth: np.ndarray  # bool (SIZE, SIZE)
    drawn: np.ndarray  # uint8 label image of the careful annotator
    spots: tuple[np.ndarray, ...]  # bool masks, one per true spot


def settings():
    """The model's settings in the simulation: the defaults, with prediction tiles of a crop."""
    from slicereview.engines.learning import Settings

    return Settings(tile=SIZE, trees=12, patch=128, patches_per_image=4,
                    samples_per_image=2000, sigma_max=8.0, tissue="none")


def _disk(center: tuple[float, float], radius: float) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    return np.c_[center[1] + radius * np.cos(t), center[0] + radius * np.sin(t)]


def crops(seed: int = 11) -> list[Crop]:
    """The simulation's crops (module text), in a fixed order."""
    from slicereview.demo.annotators import simulate_annotators
    from slicereview.demo.annotators import tissue_mask as demo_tissue
    from slicereview.demo.review import PROFILES, REGIONS_PER_CROP, crop_windows
    from slicereview.engines.masks import polygon_mask, rasterize
    from tests.learning_data import read_mammogram

    careful = PROFILES[0]
    found: list[Crop] = []
    for m in range(8):
        pixels = read_mammogram(m)
        factor = max(1, int(np.ceil(max(pixels.shape) / 300)))
        rng = np.random.default_rng([seed, m])
        windows = crop_windows(demo_tissue(pixels, factor), factor, pixels.shape,
                               CROPS_PER_MAMMOGRAM, rng, size=SIZE)
        for k, (r, c) in enumerate(windows):
            image = pixels[r:r + SIZE, c:c + SIZE].astype(np.float64)
            low, high = np.percentile(image, [1, 99])
            regions = []
            rr, cc = np.mgrid[0:SIZE, 0:SIZE]
            for _ in range(int(rng.choice(REGIONS_PER_CROP))):
                radius = float(rng.uniform(4, 12))
                centre = (float(rng.uniform(20, SIZE - 20)), float(rng.uniform(20, SIZE - 20)))
                strength = float(rng.uniform(0.2, 0.6))
                d = np.hypot(rr - centre[0], cc - centre[1])
                image += strength * (high - low) * np.clip(radius + 0.5 - d, 0, 1)
                regions.append(_disk(centre, radius))
            top = float(np.iinfo(pixels.dtype).max)
            image = np.clip(image, 0, top).astype(np.uint16)
            spots = tuple(polygon_mask(v, (SIZE, SIZE)) for v in regions)
            truth = np.zeros((SIZE, SIZE), bool)
            for s in spots:
                truth |= s
            drawn = simulate_annotators((SIZE, SIZE), regions, seed=1000 * m + k,
                                        profiles=[careful])[careful.name]
            found.append(Crop(image, truth, rasterize(drawn, (SIZE, SIZE)), spots))
    return found


def _train(items: list[Crop], cfg):
    from slicereview.engines.learning import Example, train

    return train([Example(i, (lambda c=c: (c.image, c.drawn, None)))
                  for i, c in enumerate(items)], cfg, workers=2)


def _predict(model, crop: Crop) -> np.ndarray:
    from slicereview.engines.learning import predict

    return predict(model, crop.image, workers=1).probability


def pooled_dice(model, test: list[Crop]) -> float:
    tp = fp = fn = 0
    for c in test:
        p = _predict(model, c) >= model.settings.certain
        tp += int(np.count_nonzero(p & c.truth))
        fp += int(np.count_nonzero(p & ~c.truth))
        fn += int(np.count_nonzero(~p & c.truth))
    return 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def entropy(model, crop: Crop) -> float:
    from slicereview.app.models.project_predict import uncertainty

    s = model.settings
    return uncertainty(_predict(model, crop), None, s.certain, s.uncertain)[2]


def split(n: int, seed: int) -> tuple[list[int], list[int]]:
    """``(pool, test)`` indices of ``n`` crops for one seed."""
    order = np.random.default_rng([7, seed]).permutation(n)
    return [int(i) for i in order[TEST:]], [int(i) for i in order[:TEST]]


def active_run(all_crops: list[Crop], order: str, seed: int, ks: tuple[int, ...],
               cfg=None) -> dict[int, float]:
    """Dice on the test set after each ``k`` in ``ks`` annotated crops (module text). The
    random order trains only at the ``ks`` (its choices do not depend on the model); the
    uncertainty order after every crop."""
    cfg = cfg or settings()
    pool, test = split(len(all_crops), seed)
    rng = np.random.default_rng([seed, 1])
    chosen = [pool[int(i)] for i in rng.choice(len(pool), START, replace=False)]
    rest = [i for i in pool if i not in chosen]
    pick = np.random.default_rng([seed, 2, order == "random"])
    scores: dict[int, float] = {}
    model = None if order == "random" else _train([all_crops[i] for i in chosen], cfg)
    while len(chosen) < max(ks):
        if order == "random":
            nxt = rest[int(pick.integers(len(rest)))]
        else:
            count = min(CANDIDATES, len(rest))
            candidates = [rest[int(i)] for i in pick.choice(len(rest), count, replace=False)]
            nxt = max(candidates, key=lambda i: entropy(model, all_crops[i]))
        chosen.append(nxt)
        rest.remove(nxt)
        if order != "random" or len(chosen) in ks:
            model = _train([all_crops[i] for i in chosen], cfg)
        if len(chosen) in ks:
            scores[len(chosen)] = pooled_dice(model, [all_crops[i] for i in test])
    return scores


def _dice(a: np.ndarray, b: np.ndarray) -> float:
    total = int(a.sum() + b.sum())
    return 1.0 if total == 0 else 2 * int(np.count_nonzero(a & b)) / total


@dataclass(frozen=True)
class Effort:
    """Interactions over the test crops to bring every true spot to Dice ≥ 0.9, with each tool
    (``points``: NoC@90 of the standard clicker; ``manual``: vertices of the simulated manual
    annotator), without and with pre-annotation; ``deletions``: wrong predicted components
    removed; ``done``: spots the pre-annotation already outlines at Dice ≥ 0.9."""

    spots: int
    done: int
    deletions: int
    without: dict[str, int]
    with_model: dict[str, int]


def effort(model, test: list[Crop], min_shown: int = 0) -> Effort:
    """The effort of the module text; predicted components smaller than ``min_shown`` pixels
    are not shown (not pre-annotated)."""
    from scipy import ndimage

    from slicereview.demo.assist_effort import manual_vertices, noc
    from slicereview.demo.assist_objects import TruthObject
    from slicereview.demo.clicker import Placed

    without = {"points": 0, "manual": 0}
    with_model = {"points": 0, "manual": 0}
    spots = done = deletions = 0
    for c in test:
        predicted = _predict(model, c) >= model.settings.certain
        components, n = ndimage.label(predicted)
        if min_shown > 1 and n:
            sizes = np.bincount(components.ravel(), minlength=n + 1)
            components[sizes[components] < min_shown] = 0
        shown = set(np.unique(components).tolist()) - {0}
        used: set[int] = set()
        for k, spot in enumerate(c.spots):
            spots += 1
            obj = [TruthObject(f"spot{k}", c.image, Placed(spot))]
            cost = {"points": noc(obj, "points")[0], "manual": manual_vertices(obj)[0]}
            touching = set(np.unique(components[spot]).tolist()) - {0}
            used |= touching
            ok = bool(touching) and _dice(np.isin(components, list(touching)), spot) >= 0.9
            done += ok
            deletions += bool(touching) and not ok
            for tool in without:
                without[tool] += cost[tool]
                with_model[tool] += 0 if ok else cost[tool] + (1 if touching else 0)
        wrong = len(shown - used)  # components that touch no true spot: deleted
        deletions += wrong
        for tool in with_model:
            with_model[tool] += wrong
    return Effort(spots, done, deletions, without, with_model)
