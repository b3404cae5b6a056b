"""Active selection scores: uncertain share, entropy against scipy, disagreement against
sklearn's F1 (Dice), and the order's ties and NaN."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from slicereview.engines.review.selection import (
    disagreement,
    mean_entropy,
    ordered,
    uncertain_share,
)


def test_uncertain_share_counts_pixels_and_nothing_marked_is_zero():
    lab = np.zeros((10, 10), np.uint8)
    assert uncertain_share(lab) == 0.0
    lab[:3] = 1
    lab[3:4] = 2
    assert uncertain_share(lab) == pytest.approx(10 / 40)
    lab[:] = 2
    assert uncertain_share(lab) == 1.0


def test_mean_entropy_matches_scipy():
    from scipy.stats import entropy

    rng = np.random.default_rng(3)
    p = rng.random((20, 30))
    p[0, :5] = [0.0, 1.0, 0.5, 1e-12, 1 - 1e-12]
    theirs = np.mean([entropy([v, 1 - v], base=2) for v in p.ravel()])
    assert mean_entropy(p) == pytest.approx(theirs, rel=1e-9)
    where = p > 0.5
    assert mean_entropy(p, where) == pytest.approx(
        np.mean([entropy([v, 1 - v], base=2) for v in p[where]]), rel=1e-9)
    assert math.isnan(mean_entropy(p, np.zeros_like(where)))
    with pytest.raises(ValueError, match="probabilities"):
        mean_entropy(np.array([1.5]))


def test_disagreement_is_one_minus_mean_pairwise_dice():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    masks = [rng.random((16, 16)) < q for q in (0.2, 0.4, 0.6)]
    want = 1 - np.mean([f1_score(a.ravel(), b.ravel()) for a, b in combinations(masks, 2)])
    assert disagreement(masks) == pytest.approx(want)
    empty = np.zeros((4, 4), bool)
    assert disagreement([empty, empty]) == 0.0  # two who found nothing agree
    assert math.isnan(disagreement([masks[0]]))


def test_order_highest_first_nan_and_missing_last_ties_in_given_order():
    order = [5, 4, 3, 2, 1]
    got = ordered({1: 0.5, 2: math.nan, 3: 0.5, 4: math.inf}, order)
    assert got == [4, 3, 1, 5, 2]


def test_outline_scores_match_the_raster_scores_of_simulated_annotators():
    """The order rule scores outlines by area (shapely); on the demo's simulated annotators
    it agrees with the pixel scores of their rasterised masks."""
    from slicereview.demo.annotators import random_regions, simulate_annotators
    from slicereview.demo.review import PROFILES
    from slicereview.engines.masks import binary_mask, rasterize
    from slicereview.engines.review.selection import (
        outline_disagreement,
        outline_uncertain_share,
    )

    shape = (300, 300)
    for seed in range(6):
        regions = random_regions(shape, 1 + seed % 3, seed=seed, radius=(15.0, 45.0))
        sims = simulate_annotators(shape, regions, seed=seed, profiles=PROFILES)
        drawn = [sims[p.name] for p in PROFILES]
        outlines = [[(p.vertices, p.certainty) for p in ps] for ps in drawn]
        labels = [rasterize(ps, shape) for ps in drawn]
        assert outline_disagreement(outlines) == pytest.approx(
            disagreement([binary_mask(lab, "relaxed") for lab in labels]), abs=0.02)
        for one, lab in zip(outlines, labels, strict=True):
            assert outline_uncertain_share(one) == pytest.approx(uncertain_share(lab),
                                                                 abs=0.03)
    assert outline_uncertain_share([]) == 0.0
    assert outline_disagreement([[], []]) == 0.0
    assert math.isnan(outline_disagreement([[]]))
