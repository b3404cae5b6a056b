"""Matched Dice of single polygons (engines/agreement/polygon_dice.py): the worked cases of
its definition, the degenerate ones, and random polygons against a brute-force computation on
whole-image masks scored by scikit-learn's F1 (an independent implementation of Dice)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.engines.agreement.polygon_dice import matched_dice, polygon_agreement
from slicereview.engines.masks import polygon_crop, polygon_mask


def box(r0: int, c0: int, h: int, w: int) -> tuple[int, int, np.ndarray]:
    return (r0, c0, np.ones((h, w), bool))


def test_worked_cases():
    p = box(0, 0, 10, 10)
    assert matched_dice(p, [box(0, 0, 10, 10)]) == 1.0
    assert matched_dice(p, [box(0, 5, 10, 10)]) == 0.5              # 50 shared of 100 + 100
    assert matched_dice(p, [box(0, 0, 10, 5), box(0, 5, 10, 5)]) == 1.0  # split in two
    assert matched_dice(p, [box(0, 0, 10, 5), box(30, 30, 5, 5)]) == pytest.approx(2 / 3)
    assert matched_dice(p, [box(10, 10, 3, 3)]) == 0.0             # touches no pixel
    assert matched_dice(p, [None, box(20, 0, 2, 2)]) == 0.0


def test_degenerate_cases():
    empty = (0, 0, np.zeros((3, 3), bool))
    assert [[math.isnan(v) for v in row] for row in polygon_agreement(
        [[None, empty, box(0, 0, 2, 2)], []])] == [[True, True, False], []]
    assert polygon_agreement([[box(0, 0, 2, 2)], []]) == [[0.0], []]  # the other drew nothing
    assert polygon_agreement([]) == []


def _brute(annotators, shape):
    """Matched Dice from whole-image masks and scikit-learn's F1."""
    from sklearn.metrics import f1_score

    masks = [[polygon_mask(v, shape) for v in polys] for polys in annotators]
    out = []
    for i, mine in enumerate(masks):
        row = []
        for m in mine:
            if len(annotators) < 2 or not m.any():
                row.append(math.nan)
                continue
            scores = []
            for j, theirs in enumerate(masks):
                if j == i:
                    continue
                region = np.zeros(shape, bool)
                for q in theirs:
                    if (q & m).any():
                        region |= q
                scores.append(f1_score(m.ravel(), region.ravel(), zero_division=0.0))
            row.append(float(np.mean(scores)))
        out.append(row)
    return out


def _outline(rng: np.random.Generator, centre: np.ndarray) -> np.ndarray:
    """A star-shaped outline around ``centre`` (an annotator's blob), ``(x, y)`` vertices."""
    angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(4, 12))))
    radii = rng.uniform(5, 10, angles.size)
    return centre + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=1)


@pytest.mark.parametrize("seed", range(8))
def test_random_polygons_against_whole_image_masks(seed):
    """Annotators outlining a few shared regions, each with jitter, some regions missed, some
    of their own, some polygons partly off the image."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(30, 70)), int(rng.integers(30, 70)))
    regions = rng.uniform(-4, max(shape), (4, 2))
    annotators = []
    for _ in range(int(rng.integers(2, 5))):
        polys = [_outline(rng, c + rng.normal(0, 2, 2)) for c in regions if rng.random() < 0.7]
        polys += [_outline(rng, rng.uniform(0, max(shape), 2))
                  for _ in range(int(rng.integers(0, 2)))]
        annotators.append(polys)
    crops = [[polygon_crop(v, shape) for v in polys] for polys in annotators]
    got, expected = polygon_agreement(crops), _brute(annotators, shape)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert np.allclose(g, e, equal_nan=True)
    values = [v for row in got for v in row if not math.isnan(v)]
    if seed < 3:  # (the cases are not trivial: partial agreement is there to be measured)
        assert any(0.1 < v < 0.95 for v in values)
