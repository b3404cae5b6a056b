"""Training and tiled prediction of the project model on images with known truth."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.engines.learning import Example, predict, sample_examples, score_image, train
from slicereview.engines.prediction import Cancelled
from tests.learning_data import small_settings, synthetic


@pytest.fixture(scope="module")
def trained():
    examples = [Example.of(*synthetic(seed), key=seed) for seed in range(3)]
    return train(examples, small_settings(), workers=2)


def test_it_learns_the_bright_spots_of_images_it_never_saw(trained):
    for seed in (10, 11):
        image, labels = synthetic(seed, (200, 220), spots=4)
        prediction = predict(trained, image)
        assert prediction.probability.dtype == np.float32
        assert prediction.probability.shape == image.shape
        assert prediction.probability.min() >= 0.0 and prediction.probability.max() <= 1.0
        score = score_image(prediction.probability, labels, None, trained.settings.certain)
        assert score.dice > 0.85 and score.sensitivity > 0.85 and score.specificity > 0.99
        assert np.array_equal(prediction.labels == 1,
                              prediction.probability >= trained.settings.certain)
    assert trained.training["images"] == 3 and trained.training["keys"] == [0, 1, 2]
    assert trained.training["positives"] > 0 and trained.training["negatives"] > 0


def test_tiling_changes_no_value(trained):
    import dataclasses

    image, _ = synthetic(12, (230, 250))
    whole = dataclasses.replace(trained, settings=dataclasses.replace(trained.settings,
                                                                      tile=4096))
    small = dataclasses.replace(trained, settings=dataclasses.replace(trained.settings,
                                                                      tile=64))
    np.testing.assert_allclose(predict(small, image).probability,
                               predict(whole, image).probability, atol=1e-6)
    # With a tissue mask each core shrinks to the tissue's bounding box: still the same.
    tissue = np.zeros(image.shape, bool)
    rr, cc = np.mgrid[0:230, 0:250]
    tissue[np.hypot(rr - 100, cc - 90) < 85] = True
    np.testing.assert_allclose(predict(small, image, tissue).probability,
                               predict(whole, image, tissue).probability, atol=1e-6)


def test_prediction_is_restricted_to_the_tissue(trained):
    image, labels = synthetic(13, (200, 200), spots=6)
    tissue = np.zeros(image.shape, bool)
    tissue[40:160, 30:120] = True
    p = predict(trained, image, tissue).probability
    assert (p[~tissue] == 0).all()
    # (the tissue's own intensities normalise the image: docs/models.md)
    inside = np.where(tissue, labels, 0).astype(np.uint8)
    assert inside.any()
    assert score_image(p, inside, tissue, trained.settings.certain).dice > 0.8
    assert (predict(trained, image, np.zeros(image.shape, bool)).probability == 0).all()


def test_the_breast_mask_is_used_by_default_for_mammogram_like_images():
    image, labels = synthetic(14, (200, 200), spots=2)
    image[:, 150:] = 10  # a dark background beside the "breast"
    labels[:, 150:] = 0
    settings = small_settings(tissue="breast")
    model = train([Example.of(image, labels)], settings)
    assert (predict(model, image).probability[:, 155:] == 0).all()


def test_training_is_seeded_and_the_same_with_one_or_two_workers():
    examples = [Example.of(*synthetic(seed), key=seed) for seed in range(2)]
    one = train(examples, small_settings(), workers=1)
    two = train(examples, small_settings(), workers=2)
    assert one.to_bytes() == two.to_bytes()
    other = train(examples, small_settings(seed=5), workers=1)
    assert other.to_bytes() != one.to_bytes()


def test_progress_counts_images_then_trees_and_cancel_stops():
    examples = [Example.of(*synthetic(seed), key=seed) for seed in range(3)]
    steps = []
    train(examples, small_settings(trees=8), progress=lambda d, t: steps.append((d, t)),
          workers=1)
    assert steps == [(1, 11), (2, 11), (3, 11), (7, 11), (11, 11)]
    with pytest.raises(Cancelled):
        train(examples, small_settings(), cancelled=lambda: len(steps) > 5,
              progress=lambda d, t: steps.append((d, t)), workers=1)
    image, _ = synthetic(20, (300, 300))
    model = train(examples[:1], small_settings())
    seen = []
    with pytest.raises(Cancelled):
        predict(model, image, progress=lambda d, t: seen.append((d, t)),
                cancelled=lambda: len(seen) >= 2, workers=1)
    assert seen == [(1, 16), (2, 16)]


def test_images_are_read_lazily_and_one_at_a_time():
    reading = []

    def reader(seed):
        def read():
            reading.append(seed)
            image, labels = synthetic(seed)
            return image, labels, None
        return read

    examples = [Example(seed, reader(seed)) for seed in range(3)]
    assert reading == []
    samples = sample_examples(examples, small_settings(), workers=1)
    assert reading == [0, 1, 2] and [s.key for s in samples] == [0, 1, 2]


def test_what_cannot_be_trained_or_predicted():
    image, labels = synthetic(0)
    with pytest.raises(ValueError, match="at least one image"):
        train([], small_settings())
    with pytest.raises(ValueError, match="certain region"):
        train([Example.of(image, np.zeros_like(labels))], small_settings())
    with pytest.raises(ValueError, match="does not match"):
        train([Example.of(image, labels[:10])], small_settings())
    with pytest.raises(ValueError, match="unique"):
        train([Example.of(image, labels), Example.of(image, labels)], small_settings())
    with pytest.raises(ValueError, match="tissue mask"):
        train([Example.of(image, labels, np.ones((3, 3), bool))], small_settings())
    model = train([Example.of(image, labels)], small_settings())
    with pytest.raises(ValueError, match="2-D"):
        predict(model, np.zeros((4, 4, 3)))
    with pytest.raises(ValueError, match="NaN"):
        predict(model, np.full((20, 20), np.nan))
    with pytest.raises(ValueError, match="grey pixel values"):
        train([Example.of(np.zeros((20, 20), bool), labels[:20, :20])], small_settings())
