"""Training samples: balanced, capped, from a few patches, uncertain pixels left out, seeded."""

from __future__ import annotations

import numpy as np

from slicereview.engines.learning.features import box_features, normalise
from slicereview.engines.learning.sampling import choose_pixels, sample_image
from tests.learning_data import small_settings, synthetic


def test_picks_are_balanced_capped_and_never_uncertain():
    image, labels = synthetic(0, (300, 300), spots=4)
    settings = small_settings(samples_per_image=400, patches_per_image=6, patch=80)
    patches, picks = choose_pixels(labels, None, settings, key=5)
    assert len(patches) == 6
    assert all(b[2] - b[0] == 80 and b[3] - b[1] == 80 for b in patches)
    assert np.count_nonzero(picks & (labels == 1)) == 200
    assert np.count_nonzero(picks & (labels == 0)) == 200
    assert not (picks & (labels == 2)).any()
    inside = np.zeros(labels.shape, bool)
    for r0, c0, r1, c1 in patches:
        inside[r0:r1, c0:c1] = True
    assert not (picks & ~inside).any()
    # Half the patches are centred on the region: each of those holds region pixels.
    with_region = [labels[r0:r1, c0:c1].__eq__(1).any() for r0, c0, r1, c1 in patches]
    assert sum(with_region) >= 3


def test_fewer_region_pixels_than_the_cap_are_all_taken():
    image, labels = synthetic(1, (200, 200), spots=1)
    settings = small_settings(samples_per_image=100_000, patches_per_image=8, patch=200)
    _, picks = choose_pixels(labels, None, settings, key=0)
    assert np.count_nonzero(picks & (labels == 1)) == np.count_nonzero(labels == 1)


def test_background_comes_from_the_tissue_only():
    image, labels = synthetic(2, (200, 200))
    tissue = np.zeros(labels.shape, bool)
    tissue[:, :120] = True
    _, picks = choose_pixels(labels, tissue, small_settings(), key=0)
    background = picks & (labels == 0)
    assert background.any() and not (background & ~tissue).any()


def test_an_image_without_a_region_gives_background_only():
    labels = np.zeros((150, 150), np.uint8)
    labels[10:20, 10:20] = 2  # only uncertain marks
    patches, picks = choose_pixels(labels, None, small_settings(samples_per_image=300), key=0)
    assert len(patches) == 4
    assert np.count_nonzero(picks) == 150 and not (picks & (labels != 0)).any()


def test_the_draw_is_seeded_by_the_settings_and_the_key():
    _, labels = synthetic(3, (200, 200))
    a = choose_pixels(labels, None, small_settings(), key=1)[1]
    assert np.array_equal(a, choose_pixels(labels, None, small_settings(), key=1)[1])
    assert not np.array_equal(a, choose_pixels(labels, None, small_settings(), key=2)[1])
    assert not np.array_equal(a, choose_pixels(labels, None, small_settings(seed=9), key=1)[1])


def test_samples_hold_the_whole_images_features_at_the_picked_pixels():
    image, labels = synthetic(4, (180, 170))
    settings = small_settings(samples_per_image=600)
    x = normalise(image, None)
    samples = sample_image(x, labels, None, settings, key=3)
    _, picks = choose_pixels(labels, None, settings, key=3)
    whole = box_features(x, (0, 0, 180, 170), settings)
    assert samples.X.dtype == np.float32 and samples.X.shape == (600, 16)
    assert samples.positives == 300 and samples.negatives == 300
    # Each sample row is the whole image's feature vector of one picked pixel, with its label.
    expected = {tuple(np.round(v, 4)): int(lab == 1)
                for v, lab in zip(whole[picks], labels[picks], strict=True)}
    got = {tuple(np.round(v, 4)): int(lab) for v, lab in zip(samples.X, samples.y, strict=True)}
    assert got == expected
