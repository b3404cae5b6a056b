"""STAPLE over vote patterns against SimpleITK's ``STAPLEImageFilter`` (the test oracle):
sensitivity, specificity and per-pixel probability equal to 1e-6 on random masks, rasterised
polygons, R = 1..6 and the degenerate cases; ``staple()`` uses it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.demo.annotators import blob
from slicereview.engines.agreement import staple
from slicereview.engines.agreement.staple_em import staple_counts, vote_patterns
from slicereview.engines.masks import rasterize
from slicereview.model import Polygon

TOL = 1e-6


def _oracle(masks: np.ndarray) -> tuple[np.ndarray, tuple, tuple, int]:
    import SimpleITK as sitk

    f = sitk.STAPLEImageFilter()
    f.SetForegroundValue(1.0)
    out = f.Execute([sitk.GetImageFromArray(m.astype(np.uint8)) for m in masks])
    return (sitk.GetArrayFromImage(out), tuple(f.GetSensitivity()), tuple(f.GetSpecificity()),
            f.GetElapsedIterations())


def _ours(masks: np.ndarray):
    codes, counts = vote_patterns(masks)
    em = staple_counts(counts, masks.shape[0])
    return em.table(masks.shape[0])[codes], em


def _assert_equal(masks: np.ndarray) -> int:
    prob, sens, spec, iterations = _oracle(masks)
    mine, em = _ours(masks)
    np.testing.assert_allclose(mine, prob, atol=TOL, equal_nan=True)
    np.testing.assert_allclose(em.sensitivity, sens, atol=TOL, equal_nan=True)
    np.testing.assert_allclose(em.specificity, spec, atol=TOL, equal_nan=True)
    assert abs(em.iterations - iterations) <= 1
    return iterations


@pytest.mark.parametrize("raters", [1, 2, *(pytest.param(n, marks=pytest.mark.slow)
                                           for n in (3, 4, 5, 6))])  # 4-17 s each
def test_random_masks_equal_simpleitk(raters: int) -> None:
    rng = np.random.default_rng(raters)
    for _ in range(3):
        rates = rng.uniform(0.05, 0.6, (raters, 1, 1))
        _assert_equal(rng.random((raters, 37, 53)) < rates)


def _polygon_masks(raters: int, seed: int, shape=(96, 128)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(25, 70, (int(rng.integers(1, 4)), 2))
    out = []
    for _ in range(raters):
        polys = [Polygon(blob(c + rng.normal(0, 3, 2), rng.uniform(8, 20), rng), "certain")
                 for c in centres]
        out.append(rasterize(polys, shape) != 0)
    return np.stack(out)


@pytest.mark.parametrize("raters", range(1, 7))
def test_rasterised_polygons_equal_simpleitk(raters: int) -> None:
    for seed in range(3):
        _assert_equal(_polygon_masks(raters, seed))


def test_degenerate_cases_equal_simpleitk() -> None:
    masks = _polygon_masks(3, 7)
    _assert_equal(masks[:1])                                     # one rater
    _assert_equal(np.repeat(masks[:1], 3, axis=0))               # identical masks
    one_empty = masks.copy()
    one_empty[1] = False
    iterations = _assert_equal(one_empty)                        # one annotator empty
    assert iterations > 1
    mine, em = _ours(one_empty)
    assert em.sensitivity[1] == pytest.approx(0.0, abs=TOL)


def test_all_empty_keeps_itk_guard() -> None:
    """SimpleITK 2.5 (ITK 5.4) divides 0/0 when nobody marked anything (NaN everywhere);
    ITK since July 2026 keeps the previous estimate (1.0), as :func:`staple_counts` does."""
    empty = np.zeros((3, 8, 9), bool)
    prob, sens, _, _ = _oracle(empty)
    assert np.isnan(prob).all() and all(math.isnan(s) for s in sens)   # the oracle's old way
    mine, em = _ours(empty)
    assert em.sensitivity == (1.0, 1.0, 1.0) and em.specificity == (1.0, 1.0, 1.0)
    assert (mine == 0).all()


def test_staple_uses_the_pattern_em() -> None:
    masks = _polygon_masks(4, 3)
    masks[3, 10:30, 10:40] = True                                # one annotator adds a blob
    labels = masks.astype(np.uint8)
    prob, sens, spec, _ = _oracle(masks)
    result = staple(labels)
    np.testing.assert_allclose(result.probability, prob, atol=TOL)
    np.testing.assert_allclose(result.sensitivity, sens, atol=TOL)
    np.testing.assert_allclose(result.specificity, spec, atol=TOL)
    assert result.probability.dtype == np.float32
    assert (result.mask == (prob > 0.5)).all()


def test_vote_patterns_many_raters() -> None:
    rng = np.random.default_rng(0)
    masks = rng.random((10, 20, 30)) < 0.4
    codes, counts = vote_patterns(masks)
    assert codes.dtype == np.uint16 and counts.sum() == 600
    expected = sum(masks[i].astype(np.int64) << i for i in range(10))
    assert (codes == expected).all()
    with pytest.raises(ValueError):
        staple_counts([0, 0], 1)


@pytest.mark.parametrize("raters", [2, *(pytest.param(n, marks=pytest.mark.slow)
                                        for n in (3, 4, 5))])  # 3-14 s each
def test_batched_rates_equal_simpleitk_and_one_at_a_time(raters: int) -> None:
    """The owner's report runs many EMs at once (staple_batch via staple_rates): the same
    rates as one EM per image, and as SimpleITK's filter."""
    from slicereview.engines.agreement.consensus_masks import staple_performance, staple_rates
    from slicereview.engines.agreement.staple_em import staple_batch

    images = [_polygon_masks(raters, seed) for seed in range(24)]
    images.append(np.repeat(images[0][:1], raters, axis=0))     # identical masks
    images.append(np.zeros_like(images[0]))                      # nobody marked anything
    counts = [vote_patterns(m)[1] for m in images]
    batched = staple_rates(counts, [raters] * len(images))
    for masks, (sens, spec) in zip(images, batched, strict=True):
        one = staple_performance(masks.astype(np.uint8))
        np.testing.assert_allclose(sens, one[0], atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(spec, one[1], atol=1e-12, equal_nan=True)
    for masks, (sens, spec) in list(zip(images, batched, strict=True))[:6]:
        _, ref_sens, ref_spec, _ = _oracle(masks)
        np.testing.assert_allclose(sens, ref_sens, atol=TOL, equal_nan=True)
        np.testing.assert_allclose(spec, ref_spec, atol=TOL, equal_nan=True)
    rng = np.random.default_rng(raters)   # slow rows: finished one at a time
    rows = rng.integers(1, 1000, (40, 1 << raters))
    sens, spec = staple_batch(rows, raters)
    for row, se, sp in zip(rows, sens, spec, strict=True):
        em = staple_counts(row, raters)
        np.testing.assert_allclose(se, em.sensitivity, atol=1e-11, equal_nan=True)
        np.testing.assert_allclose(sp, em.specificity, atol=1e-11, equal_nan=True)
