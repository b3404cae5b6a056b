"""Held-out scores by image: counts and metrics against independent libraries, the t interval
against statsmodels, every degenerate case, and cross-validation that scores each image once
with a model that never saw it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.learning import Example, cross_validate, sample_examples, score_image
from slicereview.engines.learning.scores import summarise
from tests.learning_data import small_settings, synthetic


@pytest.mark.parametrize("seed", range(5))
def test_counts_and_metrics_match_scikit_learn(seed):
    from sklearn.metrics import confusion_matrix, f1_score, recall_score

    rng = np.random.default_rng(seed)
    labels = rng.choice([0, 1, 2], size=(40, 50), p=[0.7, 0.2, 0.1]).astype(np.uint8)
    probability = rng.random((40, 50)).astype(np.float32)
    tissue = rng.random((40, 50)) < 0.8
    s = score_image(probability, labels, tissue, certain=0.6)
    counted = (labels != 2) & (tissue | (labels == 1))
    truth = (labels == 1)[counted]
    predicted = (probability >= 0.6)[counted]
    tn, fp, fn, tp = confusion_matrix(truth, predicted, labels=[False, True]).ravel()
    assert (s.tp, s.fp, s.fn, s.tn) == (tp, fp, fn, tn)
    assert s.dice == pytest.approx(f1_score(truth, predicted))
    assert s.sensitivity == pytest.approx(recall_score(truth, predicted))
    assert s.specificity == pytest.approx(recall_score(~truth, ~predicted))


def test_degenerate_images():
    empty = np.zeros((5, 5), np.uint8)
    nothing = np.zeros((5, 5), np.float32)
    s = score_image(nothing, empty, None, 0.5)
    assert s.dice == 1.0 and math.isnan(s.sensitivity) and s.specificity == 1.0
    s = score_image(np.ones((5, 5), np.float32), empty, None, 0.5)
    assert s.dice == 0.0 and math.isnan(s.sensitivity) and s.specificity == 0.0
    all_region = np.ones((5, 5), np.uint8)
    s = score_image(np.ones((5, 5), np.float32), all_region, None, 0.5)
    assert s.dice == 1.0 and s.sensitivity == 1.0 and math.isnan(s.specificity)
    uncertain = np.full((5, 5), 2, np.uint8)  # nothing counted
    s = score_image(np.ones((5, 5), np.float32), uncertain, None, 0.5)
    assert (s.tp, s.fp, s.fn, s.tn) == (0, 0, 0, 0) and s.dice == 1.0


@pytest.mark.parametrize("values", [[0.8, 0.6, 0.7], [0.1, 0.9, 0.5, 0.55, 0.3],
                                    list(np.random.default_rng(3).random(12))])
def test_the_interval_is_students_t_over_images(values):
    from statsmodels.stats.weightstats import DescrStatsW

    s = summarise(values)
    low, high = DescrStatsW(np.array(values)).tconfint_mean(alpha=0.05)
    assert s.n == len(values) and s.mean == pytest.approx(np.mean(values))
    assert s.low == pytest.approx(max(low, 0.0)) and s.high == pytest.approx(min(high, 1.0))


def test_interval_degenerate_cases():
    none = summarise([])
    assert none.n == 0 and all(math.isnan(v) for v in (none.mean, none.low, none.high))
    one = summarise([0.4, math.nan])
    assert one.n == 1 and one.mean == 0.4 and math.isnan(one.low) and math.isnan(one.high)
    flat = summarise([0.7, 0.7, 0.7])
    assert (flat.low, flat.high) == pytest.approx((0.7, 0.7))
    wide = summarise([0.0, 1.0])  # clipped to [0, 1]
    assert wide.low == 0.0 and wide.high == 1.0


def _examples(n: int) -> list[Example]:
    return [Example.of(*synthetic(seed, spots=2 + seed % 2), key=100 + seed)
            for seed in range(n)]


def test_cross_validation_scores_each_image_once_by_a_model_that_never_saw_it():
    examples = _examples(5)
    settings = small_settings()
    done = []
    score = cross_validate(examples, settings, folds=3, progress=lambda d, t: done.append(d),
                           workers=2)
    assert score.method == "3-fold cross-validation by image" and score.folds == 3
    assert [s.key for s in score.images] == [100, 101, 102, 103, 104]
    assert sorted({s.fold for s in score.images}) == [0, 1, 2]
    assert done == [1, 2, 3, 4, 5] and score.reason == ""
    assert score.dice.n == 5 and 0.8 < score.dice.mean <= 1.0
    assert score.dice.low <= score.dice.mean <= score.dice.high
    assert score.sensitivity.n == 5 and score.specificity.mean > 0.99
    # The same with the samples drawn beforehand (shared with training), and seeded.
    samples = sample_examples(examples, settings)
    again = cross_validate(examples, settings, folds=3, samples=samples)
    assert again == score


def test_held_out_means_held_out():
    # Two kinds of image: spots in the first, none in the second. Held out, the image with
    # spots is predicted by a model trained on images without any: it cannot be trained.
    image, labels = synthetic(0)
    blank = np.random.default_rng(1).normal(1000, 60, (160, 160)).astype(np.uint16)
    examples = [Example.of(image, labels, key=1), Example.of(blank, np.zeros_like(labels),
                                                             key=2)]
    score = cross_validate(examples, small_settings(), folds=2)
    by_key = {s.key: s for s in score.images}
    assert math.isnan(by_key[1].dice)  # its fold's training image has no region
    assert "certain region" in score.reason
    # The blank image is scored, by the model of the other fold (trained on image 1).
    assert by_key[1].fold != by_key[2].fold and not math.isnan(by_key[2].dice)


def test_fewer_than_two_images():
    score = cross_validate(_examples(1), small_settings())
    assert score.folds == 0 and score.images == () and "nothing to hold out" in score.reason
    assert math.isnan(score.dice.mean) and score.dice.n == 0
