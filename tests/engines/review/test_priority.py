"""Priority methods on hand-made feature sets: every key, every direction, NaN last, id last."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest

from slicereview.engines.review.features import ImageFeatures
from slicereview.engines.review.priority import (
    METHODS,
    box_scores,
    explain,
    priority,
    random_scores,
    scores,
)

NAN = math.nan
BASE = ImageFeatures(
    strict_alpha=0.5, relaxed_alpha=0.5, unsure_share=0.1, unsure_pixels=10, area_std=5.0,
    area_mean=50.0, intra_strict=0.5, intra_relaxed=0.5, n_disagreement=1, n_low=1,
    n_moderate=1, n_high=1, n_boxes=4, wbbox=100.0, box_area=400, image_pixels=10_000,
)

# (field, a value ranked earlier, a value ranked later) in [CrowdSegQA, Table 1] order.
IMAGE_KEYS = [
    ("strict_alpha", 0.2, 0.3),
    ("relaxed_alpha", 0.2, 0.3),
    ("unsure_share", 0.3, 0.2),
    ("unsure_pixels", 30, 20),
    ("area_std", 9.0, 8.0),
    ("area_mean", 90.0, 80.0),
    ("intra_strict", 0.2, 0.3),
    ("intra_relaxed", 0.2, 0.3),
]
BOX_KEYS = [
    ("n_disagreement", 3, 2),
    ("n_low", 3, 2),
    ("n_moderate", 3, 2),
    ("n_high", 2, 3),
    ("n_boxes", 5, 4),
    ("wbbox", 300.0, 200.0),
]


def _check_keys(method, keys):
    for j, (name, early, late) in enumerate(keys):
        # Ids chosen so that the id tie-break alone would give the opposite order.
        images = {1: replace(BASE, **{name: late}), 2: replace(BASE, **{name: early})}
        assert priority(images, method) == [2, 1], name
        # A later key never overrides an earlier one.
        for later_name, later_early, later_late in keys[j + 1:]:
            images = {1: replace(BASE, **{name: early, later_name: later_late}),
                     2: replace(BASE, **{name: late, later_name: later_early})}
            assert priority(images, method) == [1, 2], (name, later_name)
        # NaN goes last whatever the direction, both against a number and before the id.
        images = {1: replace(BASE, **{name: NAN}), 2: replace(BASE, **{name: late}),
                 3: replace(BASE, **{name: early})}
        assert priority(images, method) == [3, 2, 1], name


def test_image_sort_every_key_in_order():
    _check_keys("image-sort", IMAGE_KEYS)


def test_box_sort_every_key_in_order():
    _check_keys("box-sort", BOX_KEYS)


def test_box_sort_last_key_is_wbbox_per_image_pixel():
    small = replace(BASE, wbbox=100.0, image_pixels=1_000)   # 0.1 per pixel
    large = replace(BASE, wbbox=500.0, image_pixels=10_000)  # 0.05 per pixel
    assert priority({1: large, 2: small}, "box-sort") == [2, 1]
    empty = replace(BASE, image_pixels=0)                     # undefined → last
    assert priority({1: empty, 2: large}, "box-sort") == [2, 1]


@pytest.mark.parametrize("method", METHODS)
def test_all_ties_break_by_image_id(method):
    images = {i: BASE for i in (9, 3, 7, 1)}
    if method == "random":
        assert sorted(priority(images, method)) == [1, 3, 7, 9]
    else:
        assert priority(images, method) == [1, 3, 7, 9]


@pytest.mark.parametrize("method", METHODS)
def test_insertion_order_does_not_matter(method):
    rng = np.random.default_rng(1)
    images = {i: replace(BASE, strict_alpha=float(rng.choice([0.1, 0.5, NAN])),
                        n_low=int(rng.integers(3)), n_boxes=int(rng.integers(1, 4)),
                        wbbox=float(rng.choice([10.0, 20.0, NAN])))
             for i in range(30)}
    keys = list(images)
    random.Random(4).shuffle(keys)
    shuffled = {i: images[i] for i in keys}
    assert priority(shuffled, method, seed=3) == priority(images, method, seed=3)


def test_box_score_by_hand():
    images = {
        1: replace(BASE, n_boxes=1, wbbox=10.0, box_area=20),
        2: replace(BASE, n_boxes=2, wbbox=10.0, box_area=40),
        3: replace(BASE, n_boxes=2, wbbox=5.0, box_area=30),
        4: replace(BASE, n_boxes=0, wbbox=0.0, box_area=0),
        5: replace(BASE, n_boxes=3, wbbox=NAN, box_area=10),
    }
    avg = (20 + 40 + 30 + 0 + 10) / 5
    expected = {
        1: 10.0 / (20 / avg) * math.log(5 / 1),
        2: 10.0 / (40 / avg) * math.log(5 / 2),
        3: 5.0 / (30 / avg) * math.log(5 / 2),
        4: 0.0,  # no box area: pivoted Wbbox is 0
    }
    got = box_scores(images)
    assert math.isnan(got.pop(5))
    assert got == pytest.approx(expected, rel=1e-12)
    assert scores(images, "box-score")[1] == pytest.approx(expected[1])
    assert priority(images, "box-score") == [1, 2, 3, 4, 5]


def test_box_score_ties_by_wbbox_per_pixel_then_id():
    # Same number of boxes everywhere: W_N = ln(1) = 0 and every score ties at 0.
    images = {1: replace(BASE, wbbox=10.0, image_pixels=1000),
             2: replace(BASE, wbbox=10.0, image_pixels=100),
             3: replace(BASE, wbbox=10.0, image_pixels=100),
             4: replace(BASE, wbbox=NAN)}
    assert set(box_scores({k: v for k, v in images.items() if k != 4}).values()) == {0.0}
    assert priority(images, "box-score") == [2, 3, 1, 4]


def test_random_is_reproducible_and_seed_dependent():
    images = {i: BASE for i in range(50)}
    a, b = priority(images, "random", seed=1), priority(images, "random", seed=1)
    assert a == b
    assert a != priority(images, "random", seed=2)
    s = random_scores(list(images), seed=1)
    assert a == sorted(s, key=lambda i: (-s[i], i))
    # Means of ten uniforms: inside (0, 1), concentrated around 0.5.
    values = np.array(list(s.values()))
    assert values.min() > 0 and values.max() < 1
    assert values.std() == pytest.approx(math.sqrt(1 / 120), rel=0.3)
    # Exactly [CrowdSegQA]'s recipe: generator k seeded (seed, k), one draw per image in id order.
    draws = [np.random.default_rng([1, k]).random(50) for k in range(10)]
    assert s[7] == pytest.approx(np.mean([d[7] for d in draws]))


def test_scores_are_the_primary_key():
    images = {1: replace(BASE, strict_alpha=0.3, n_disagreement=4), 2: BASE}
    assert scores(images, "image-sort") == {1: 0.3, 2: 0.5}
    assert scores(images, "box-sort") == {1: 4.0, 2: 1.0}
    assert scores(images, "random", seed=5) == random_scores([1, 2], seed=5)


def test_unknown_method():
    with pytest.raises(ValueError, match="box-score"):
        priority({1: BASE}, "alpha-sort")


def test_explain_names_the_deciding_keys():
    images = {1: replace(BASE, strict_alpha=0.2),
             2: replace(BASE, relaxed_alpha=0.4),
             3: BASE}
    assert priority(images, "image-sort") == [1, 2, 3]
    text = explain(images, 2, "image-sort")
    assert text.splitlines()[0] == "image 2: rank 2 of 3 by image-sort"
    assert "after image 1: strict α (asc) 0.5 vs 0.2" in text
    assert "before image 3: relaxed α (asc) 0.4 vs 0.5" in text
    assert "keys: strict α 0.5, relaxed α 0.4" in text
    tie = explain({1: BASE, 2: BASE}, 2, "box-sort")
    assert "all keys equal; image id 2 vs 1" in tie
    assert "rank 1 of 1" in explain({5: BASE}, 5, "box-score")
    with pytest.raises(KeyError):
        explain(images, 42, "image-sort")
