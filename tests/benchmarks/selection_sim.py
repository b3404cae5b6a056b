"""The active-selection simulation of docs/performance.md ("Active selection"), shared by its
benchmark and run as a script for the table (``python -m tests.benchmarks.selection_sim``).

Images with known truth (:func:`slicereview.demo.annotators.random_regions`), each able to take
up to ``M`` annotations from the review set's three simulated annotators
(:data:`slicereview.demo.review.PROFILES`, taken in turn) and one prediction of a simulated
model (certain cores, uncertain rims and uncertain faint spots). Every image starts with two
annotations; each further annotation goes to the image the order picks (the order rule of
:mod:`slicereview.app.qa.selection`, with its scores from
:mod:`slicereview.engines.review.selection`): ``random`` (uniform among the images with room),
``uncertainty`` (the model's uncertain share, highest first) or ``disagreement`` (1 − mean
pairwise Dice of the annotations so far, recomputed after each). The consensus is the majority
vote (a pixel marked by more than half of an image's annotators, relaxed masks); its quality is
the mean over images of its Dice against the truth (both empty: 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slicereview.demo.annotators import Profile, random_regions, simulate_annotators
from slicereview.demo.review import PROFILES
from slicereview.engines.agreement.overlap import dice
from slicereview.engines.masks import binary_mask, rasterize
from slicereview.engines.review.selection import disagreement, ordered, uncertain_share
from slicereview.model import Certainty, Polygon

SHAPE = (96, 96)
IMAGES = 40
MAX_PER_IMAGE = 5
START = 2
SPOTS = (0, 1, 1, 2, 3)
MODEL = Profile("Simulated model", miss=0.10, extra=0.4, uncertain=0.55, margin=0.35,
                scale=1.0, scale_sd=0.06, wobble=0.05, tremor=0.3)
ORDERS = ("random", "uncertainty", "disagreement")


@dataclass
class World:
    """One seed's images: truth masks, the annotations each image can get, the model's
    uncertain share."""

    truth: list[np.ndarray]
    drawn: list[list[np.ndarray]]
    uncertainty: dict[int, float]


def world(seed: int, images: int = IMAGES) -> World:
    truth, drawn, unc = [], [], {}
    rng = np.random.default_rng(seed)
    for i in range(images):
        regions = random_regions(SHAPE, int(rng.choice(SPOTS)), seed=seed * 1000 + i,
                                 radius=(4.0, 14.0))
        truth.append(rasterize([Polygon(r, Certainty.CERTAIN) for r in regions], SHAPE) > 0)
        masks = []
        for j in range(MAX_PER_IMAGE):
            prof = PROFILES[(i + j) % len(PROFILES)]
            polys = simulate_annotators(SHAPE, regions, seed=seed * 100_000 + i * 10 + j,
                                        profiles=[prof])[prof.name]
            masks.append(binary_mask(rasterize(polys, SHAPE), "relaxed"))
        drawn.append(masks)
        model = simulate_annotators(SHAPE, regions, seed=seed * 100_000 + i * 10 + 9,
                                    profiles=[MODEL])[MODEL.name]
        unc[i] = uncertain_share(rasterize(model, SHAPE))
    return World(truth, drawn, unc)


def _quality(w: World, i: int, count: int) -> float:
    votes = np.sum(w.drawn[i][:count], axis=0)
    return dice(votes * 2 > count, w.truth[i])


def curve(w: World, order: str, seed: int = 0) -> np.ndarray:
    """Mean consensus Dice after 0, 1, ..., ``N·(M − START)`` further annotations."""
    n = len(w.truth)
    count = [START] * n
    per_image = [_quality(w, i, START) for i in range(n)]
    out = [float(np.mean(per_image))]
    rng = np.random.default_rng([seed, 17])
    batch = list(range(n))
    still = ordered(w.uncertainty, batch)
    scores = {i: disagreement(w.drawn[i][:START]) for i in batch}
    for _ in range(n * (MAX_PER_IMAGE - START)):
        room = [i for i in batch if count[i] < MAX_PER_IMAGE]
        if order == "random":
            pick = int(rng.choice(room))
        elif order == "uncertainty":
            pick = next(i for i in still if count[i] < MAX_PER_IMAGE)
        else:
            pick = ordered({i: scores[i] for i in room}, room)[0]
        count[pick] += 1
        per_image[pick] = _quality(w, pick, count[pick])
        scores[pick] = disagreement(w.drawn[pick][:count[pick]])
        out.append(float(np.mean(per_image)))
    return np.array(out)


def needed(values: np.ndarray, target: float) -> int:
    """The first number of further annotations whose quality reaches ``target`` (the curve's
    length when it never does)."""
    hit = np.nonzero(values >= target - 1e-12)[0]
    return int(hit[0]) if len(hit) else len(values)


def run(seeds: int = 6, randoms: int = 5, gains: tuple[float, ...] = (0.5, 0.8)
        ) -> dict[str, dict[float, float]]:
    """Mean over seeds of the further annotations each order needs to reach ``start + g ·
    (best − start)`` of that seed's random order, ``best`` the highest mean quality random
    order reaches (random: the mean over ``randoms`` draws)."""
    out: dict[str, dict[float, list[int]]] = {o: {g: [] for g in gains} for o in ORDERS}
    for s in range(seeds):
        w = world(s)
        curves = {"random": np.mean([curve(w, "random", r) for r in range(randoms)], axis=0),
                  "uncertainty": curve(w, "uncertainty"), "disagreement": curve(w, "disagreement")}
        start, best = curves["random"][0], curves["random"].max()
        for g in gains:
            target = start + g * (best - start)
            for o in ORDERS:
                out[o][g].append(needed(curves[o], target))
    return {o: {g: float(np.mean(v)) for g, v in by.items()} for o, by in out.items()}


if __name__ == "__main__":  # pragma: no cover - the table of docs/performance.md
    import time

    t0 = time.perf_counter()
    table = run()
    for o, by in table.items():
        print(o, {g: round(v, 1) for g, v in by.items()})
    print(f"{time.perf_counter() - t0:.1f} s")
