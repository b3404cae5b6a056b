"""α of annotator subsets from the overlap table equals α over the pixels (mask_alpha) and the
krippendorff package (a test oracle only)."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from slicereview.engines.agreement import mask_alpha
from slicereview.engines.agreement.gram import overlaps, subset_alpha


@given(arrays(bool, st.tuples(st.integers(2, 5), st.integers(1, 6), st.integers(1, 6))))
def test_every_subset_matches_mask_alpha(masks: np.ndarray) -> None:
    g = overlaps(masks)
    pixels = masks[0].size
    for size in range(2, len(masks) + 1):
        for subset in itertools.combinations(range(len(masks)), size):
            want = mask_alpha(masks[list(subset)])
            got = subset_alpha(g, subset, pixels)
            assert (math.isnan(want) and math.isnan(got)) or math.isclose(
                got, want, rel_tol=1e-9, abs_tol=1e-12)


def test_against_krippendorff_package_and_degenerate_cases() -> None:
    import krippendorff

    rng = np.random.default_rng(4)
    masks = rng.random((4, 30, 30)) < 0.2
    g = overlaps(masks)
    ref = krippendorff.alpha(masks.reshape(4, -1).astype(float), level_of_measurement="nominal")
    assert math.isclose(subset_alpha(g, range(4), 900), ref, rel_tol=1e-9)
    assert subset_alpha(g, (1,), 900) != subset_alpha(g, (1,), 900)        # NaN: one annotator
    same = np.zeros((2, 3, 3), bool)
    assert subset_alpha(overlaps(same), (0, 1), 9) == 1.0                  # no disagreement
