"""Tiled inference: scaling, tiles and blending, resizing, channels, activations, progress and
cancel, checked against what the small models compute on the whole image."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.engines.inference import open_model, parse_card, predict, scale_image
from slicereview.engines.inference.tiled import MAX_BATCH
from slicereview.engines.prediction import Cancelled, overlapping_tiles
from tests import onnx_models as models


@pytest.fixture(scope="module")
def identity_model():
    card = parse_card(models.card(tile={"size": 64, "overlap": 16}))
    with open_model(models.identity(), card) as model:
        yield model


def _image(shape=(300, 200), seed=0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 4096, shape).astype(np.uint16)


def test_identity_gives_back_the_scaled_image_through_every_tile(identity_model):
    image = _image()
    steps = []
    prediction = predict(identity_model, image, progress=lambda d, t: steps.append((d, t)))
    expected = scale_image(image, "minmax")
    assert prediction.probability.dtype == np.float32
    assert prediction.probability.shape == image.shape
    np.testing.assert_allclose(prediction.probability, expected, atol=1e-6)
    n = len(overlapping_tiles(image.shape, 64, 16))
    assert steps == [(min(k, n), n) for k in range(MAX_BATCH, n + MAX_BATCH, MAX_BATCH)]
    labels = prediction.labels
    assert labels.dtype == np.uint8
    assert np.array_equal(labels == 1, expected >= 0.5)
    assert np.array_equal(labels == 2, (expected >= 0.3) & (expected < 0.5))


def test_an_image_smaller_than_a_tile_is_padded(identity_model):
    image = _image((20, 50), seed=3)
    prediction = predict(identity_model, image)
    np.testing.assert_allclose(prediction.probability, scale_image(image, "minmax"), atol=1e-6)


def test_scale_mean_std_and_none():
    card = parse_card(models.card(input={"channels": 1, "scale": {"mean": -100, "std": 5000}},
                                  thresholds={"certain": 0.5, "uncertain": 0.5}))
    image = _image()
    with open_model(models.identity(), card) as model:
        p = predict(model, image).probability
    np.testing.assert_allclose(p, (image + 100.0) / 5000.0, atol=1e-6)
    assert scale_image(np.array([[7, 9]], np.uint8), "none").tolist() == [[7.0, 9.0]]
    assert scale_image(np.full((2, 2), 5.0), "minmax").tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_a_bright_region_is_found():
    image = np.full((256, 300), 100, np.uint16)
    image[60:140, 90:210] = 3000
    card = parse_card(models.card(tile={"size": 96, "overlap": 24}))
    with open_model(models.bright(), card) as model:
        prediction = predict(model, image)
    inside = np.zeros(image.shape, bool)
    inside[60:140, 90:210] = True
    core = np.zeros_like(inside)
    core[62:138, 92:208] = True  # away from the region's edge, where the 3 × 3 mean is mixed
    assert (prediction.labels[core] == 1).all()
    assert (prediction.labels[~inside] == 0).all()
    assert prediction.probability[core].min() > 0.99


def test_an_rgb_model_gets_the_grey_image_in_each_channel():
    card = parse_card(models.card(input={"channels": 3, "scale": "minmax"}))
    image = _image((90, 130), seed=5)
    with open_model(models.identity(channels=3), card) as model:
        p = predict(model, image).probability
    np.testing.assert_allclose(p, scale_image(image, "minmax"), atol=1e-6)


def test_a_fixed_size_model_gets_resized_tiles():
    card = parse_card(models.card(input={"channels": 1, "scale": "minmax", "size": [32, 32]},
                                  tile={"size": 64, "overlap": 16}))
    rows, cols = np.mgrid[0:200, 0:150]
    image = (1000 + 10 * rows + 5 * cols).astype(np.uint16)  # smooth: resizing keeps it
    with open_model(models.identity(size=32), card) as model:
        assert model.tile_shape == (32, 32)
        p = predict(model, image).probability
    expected = scale_image(image, "minmax")
    inner = (slice(2, -2), slice(2, -2))  # (the resized tiles' outer pixels are edge-padded)
    np.testing.assert_allclose(p[inner], expected[inner], atol=0.01)


def test_sigmoid_of_logits():
    card = parse_card(models.card(output={"kind": "probability", "activation": "sigmoid"}))
    image = _image((70, 90), seed=7)
    with open_model(models.scaled_logits(factor=10.0), card) as model:
        p = predict(model, image).probability
    x = scale_image(image, "minmax").astype(np.float64)
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-10 * (x - 0.5))), atol=1e-5)


def test_softmax_over_two_classes():
    card = parse_card(models.card(output={"kind": "classes", "class": 1,
                                          "activation": "softmax"}))
    image = _image((70, 90), seed=8)
    with open_model(models.two_class_logits(steepness=10.0), card) as model:
        p = predict(model, image).probability
    x = scale_image(image, "minmax").astype(np.float64)
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-20 * (x - 0.5))), atol=1e-5)


def test_a_model_from_a_file(tmp_path):
    path = tmp_path / "identity.onnx"
    path.write_bytes(models.identity())
    image = _image((40, 40), seed=9)
    with open_model(path, parse_card(models.card())) as model:
        p = predict(model, image).probability
    np.testing.assert_allclose(p, scale_image(image, "minmax"), atol=1e-6)


def test_cancel_between_tiles(identity_model):
    seen = []

    def cancelled() -> bool:
        return len(seen) >= 2

    with pytest.raises(Cancelled):
        predict(identity_model, _image(), progress=lambda d, t: seen.append(d),
                cancelled=cancelled)
    assert seen == [MAX_BATCH, 2 * MAX_BATCH]


@pytest.mark.parametrize("bad", [np.zeros((4, 4, 3), np.uint8), np.zeros((0, 5)),
                                 np.array([[1.0, np.nan]]), np.zeros((3, 3), bool)])
def test_images_a_model_cannot_be_run_on(identity_model, bad):
    with pytest.raises(ValueError, match="^(A model|The image)"):
        predict(identity_model, bad)
