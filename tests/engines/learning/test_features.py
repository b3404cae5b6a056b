"""Settings, features per tile (equal to the whole image's), normalisation, tissue mask."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.engines.learning import Settings, tissue_mask
from slicereview.engines.learning.features import box_features, feature_names, normalise
from slicereview.engines.prediction import margin_tiles


@pytest.mark.parametrize(("low", "high"), [(1.0, 16.0), (0.5, 16.0), (1.0, 1.0), (2.0, 6.0)])
def test_sigmas_and_feature_count_are_scikit_images(low, high):
    from skimage.feature import multiscale_basic_features

    settings = Settings(sigma_min=low, sigma_max=high)
    n = int(np.log2(high) - np.log2(low) + 1)
    expected = np.logspace(np.log2(low), np.log2(high), num=n, base=2)
    np.testing.assert_allclose(settings.sigmas(), expected)
    image = np.random.default_rng(0).random((40, 40), dtype=np.float32)
    feats = multiscale_basic_features(image, sigma_min=low, sigma_max=high)
    assert feats.shape[-1] == settings.feature_count() == len(feature_names(settings))


def test_settings_round_trip_and_bad_values_are_named():
    s = Settings(trees=7, tissue="none", certain=0.7)
    assert Settings.from_dict(s.to_dict()) == s
    assert Settings.from_dict({}) == Settings()
    for values, named in [({"trees": 0}, "`trees`"), ({"trees": 2.5}, "`trees`"),
                          ({"sigma_min": -1}, "`sigma_min`"), ({"tissue": "lungs"}, "`tissue`"),
                          ({"texture": "yes"}, "`texture`"), ({"colour": 1}, "`colour`"),
                          ({"certain": 0.3, "uncertain": 0.5}, "`uncertain`"),
                          ({"sigma_min": 8, "sigma_max": 2}, "`sigma_max`"),
                          ({"intensity": False, "edges": False, "texture": False}, "feature")]:
        with pytest.raises(ValueError, match=named):
            Settings.from_dict(values)


@pytest.mark.parametrize("sigma_max", [4.0, 16.0])
def test_features_of_tiles_equal_the_whole_images(sigma_max):
    from skimage.feature import multiscale_basic_features

    settings = Settings(sigma_max=sigma_max)
    image = normalise(np.random.default_rng(1).integers(0, 4000, (230, 190)), None)
    whole = multiscale_basic_features(image, sigma_min=1.0, sigma_max=sigma_max)
    tiled = np.empty_like(whole)
    for tile in margin_tiles(image.shape, 48, settings.margin()):
        r0, c0, r1, c1 = tile.core
        tiled[r0:r1, c0:c1] = box_features(image, tile.span, settings)[tile.inner]
    np.testing.assert_allclose(tiled, whole, rtol=1e-5, atol=1e-6)


def test_a_smaller_margin_would_change_them():
    # The margin is needed: without it the largest scale's values differ at tile edges.
    settings = Settings(sigma_max=16.0)
    image = normalise(np.random.default_rng(2).integers(0, 4000, (200, 200)), None)
    whole = box_features(image, (0, 0, 200, 200), settings)
    tile = margin_tiles(image.shape, 64, 8)[0]
    part = box_features(image, tile.span, settings)[tile.inner]
    assert not np.allclose(part, whole[0:64, 0:64], atol=1e-4)


def test_normalise_maps_the_tissue_percentiles():
    rng = np.random.default_rng(3)
    image = rng.integers(0, 100, (200, 200)).astype(np.uint16)
    tissue = np.zeros(image.shape, bool)
    tissue[:, 100:] = True
    image[tissue] += 1000
    x = normalise(image, tissue)
    assert x.dtype == np.float32
    inside = x[tissue]
    assert abs(np.percentile(inside, 1)) < 0.02 and abs(np.percentile(inside, 99) - 1) < 0.02
    assert (x[~tissue] < -5).all()  # not clipped: far below the tissue's range
    assert (normalise(np.full((10, 10), 7, np.uint16), None) == 0).all()
    assert (normalise(image, np.zeros(image.shape, bool)) == normalise(image, None)).all()


def test_tissue_mask_of_a_real_mammogram():
    from tests.learning_data import read_mammogram

    image = read_mammogram(0)
    mask = tissue_mask(image)
    assert mask.shape == image.shape and mask.dtype == bool
    share = mask.mean()
    assert 0.15 < share < 0.8
    # The breast is brighter than what is left out, and holds most of the bright pixels.
    assert image[mask].mean() > 3 * image[~mask].mean()
    bright = image > np.percentile(image, 75)
    assert (mask & bright).sum() > 0.9 * bright.sum()


def test_tissue_mask_degenerate_images():
    assert not tissue_mask(np.full((50, 40), 9, np.uint16)).any()
    assert tissue_mask(np.zeros((0, 0))).shape == (0, 0)
