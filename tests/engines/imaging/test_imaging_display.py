"""Window presets, the automatic window, windowing to uint8 and thumbnails."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.engines.imaging.display import (
    AUTO_SAMPLE,
    DisplayImage,
    WindowPreset,
    apply_window,
    auto_window,
    thumbnail,
)


def test_levels_round_trip():
    preset = WindowPreset.from_levels("x", -1000.0, 400.0)
    assert preset.center == -300.0 and preset.width == 1400.0
    assert preset.levels() == (-1000.0, 400.0)


def test_auto_window_matches_numpy_percentiles_on_small_images():
    rng = np.random.default_rng(1)
    data = rng.normal(1000, 200, size=(300, 400)).astype(np.int32)
    assert data.size <= AUTO_SAMPLE
    low, high = np.percentile(data, [1.0, 99.5])
    assert auto_window(data).levels() == pytest.approx((low, high))


def test_auto_window_subsamples_large_images_closely():
    rng = np.random.default_rng(2)
    data = rng.integers(0, 4096, size=(2000, 1500), dtype=np.uint16)
    low, high = np.percentile(data, [1.0, 99.5])
    got = auto_window(data).levels()
    assert got == pytest.approx((low, high), rel=0.02, abs=10)


def test_auto_window_degenerate_cases():
    assert auto_window(np.full((5, 5), 7, np.uint16)) == WindowPreset("auto", 7.0, 1.0)
    assert auto_window(np.full((5, 5), np.nan, np.float32)) == WindowPreset("auto", 0.0, 1.0)
    nan_mixed = np.array([[np.nan, 0.0], [10.0, np.nan]], np.float32)
    assert np.isfinite(auto_window(nan_mixed).width)
    assert auto_window(np.zeros((4, 4, 3), np.uint8)) == WindowPreset("auto", 127.5, 255.0)


def test_apply_window_and_invert_after_windowing():
    data = np.array([[-100, 0, 50, 100, 200]], np.int32)
    w = WindowPreset("w", 50, 100)
    assert apply_window(data, w).tolist() == [[0, 0, 127, 255, 255]]
    assert apply_window(data, w, invert=True).tolist() == [[255, 255, 128, 0, 0]]


def test_display_image_is_read_only_and_validates_shape():
    d = DisplayImage(np.zeros((4, 5), np.uint16))
    assert d.shape == (4, 5) and not d.is_rgb
    with pytest.raises(ValueError):
        d.data[0, 0] = 1
    with pytest.raises(ValueError, match="uint8"):
        DisplayImage(np.zeros((4, 5, 3), np.uint16))
    with pytest.raises(ValueError):
        DisplayImage(np.zeros(4, np.uint16))
    assert d.default_window().name == "auto"
    p = WindowPreset("file", 1, 2)
    assert DisplayImage(np.zeros((2, 2)), presets=[p]).default_window() == p


def test_thumbnail_shape_window_and_inversion():
    ramp = np.tile(np.arange(400, dtype=np.uint16), (200, 1))
    d = DisplayImage(ramp, presets=[WindowPreset("w", 200, 400)])
    t = thumbnail(d, 100)
    assert t.shape == (50, 100) and t.dtype == np.uint8
    assert t[:, 0].mean() < 10 and t[:, -1].mean() > 245
    ti = thumbnail(DisplayImage(ramp, presets=d.presets, invert=True), 100)
    assert ti[:, 0].mean() > 245 and ti[:, -1].mean() < 10
    small = thumbnail(DisplayImage(np.zeros((10, 20), np.uint8)), 128)
    assert small.shape == (10, 20)
    rgb = thumbnail(DisplayImage(np.zeros((300, 150, 3), np.uint8)), 64)
    assert rgb.shape == (64, 32, 3)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 10, 1001, 65536])
def test_auto_window_percentiles_equal_numpy(dtype, n) -> None:
    """The one-sort percentiles of the automatic window equal ``np.percentile`` (linear)."""
    from slicereview.engines.imaging.display import _percentiles

    values = (np.random.default_rng(n).random(n) * 3000 - 500).astype(dtype)
    ours = _percentiles(values, (1.0, 99.5))
    expected = np.percentile(values, (1.0, 99.5))
    tolerance = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours, expected, rtol=tolerance, atol=1e-9)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32", "float64", "int32",
                                   "rgb"])
@pytest.mark.parametrize("factor", [2, 3, 4, 8])
def test_block_mean_equals_skimage_block_reduce(dtype, factor) -> None:
    """The display pyramid's block means (strided sums) against
    ``skimage.measure.block_reduce(..., np.mean)``: integers rounded to the nearest, ties to
    even (8-bit RGB too), 1e-5 relative for floats; odd sizes drop the partial blocks."""
    from skimage.measure import block_reduce

    from slicereview.engines.imaging.windowing import block_mean

    rng = np.random.default_rng(factor)
    shape = (101, 67, 3) if dtype == "rgb" else (101, 67)
    kind = np.uint8 if dtype == "rgb" else np.dtype(dtype)
    if np.issubdtype(kind, np.integer):
        info = np.iinfo(kind)
        data = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(kind)
    else:
        data = (rng.normal(size=shape) * 1000).astype(kind)
    got = block_mean(data, factor)
    h, w = (shape[0] // factor) * factor, (shape[1] // factor) * factor
    want = block_reduce(data[:h, :w].astype(np.float64),
                        (factor, factor) + (1,) * (data.ndim - 2), np.mean)
    assert got.dtype == data.dtype and got.shape == want.shape
    if np.issubdtype(kind, np.integer):  # rounded to the nearest, ties to even
        np.testing.assert_array_equal(got, np.rint(want).astype(kind))
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)
