"""Rank statistics between two raters: published case, scipy on random data, top-N."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.engines.agreement import intraclass_correlation
from slicereview.engines.review import rank_agreement, rank_correlations, top_n_intersection

CASES = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json")
    .read_text()
)["cases"]
TIES = next(c for c in CASES if c["name"] == "correlations_with_ties")


def test_published_correlations_with_ties():
    r = rank_correlations(TIES["inputs"]["x"], TIES["inputs"]["y"])
    for name in ("pearson", "spearman", "kendall_tau_b"):
        assert getattr(r, name) == pytest.approx(TIES["expected"][name], abs=TIES["tolerance"])
    assert r.n == 8


def _kendall_tau_b(x, y):
    """Pure-python τ-b, independent of scipy."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / math.sqrt(
        (concordant + discordant + ties_x) * (concordant + discordant + ties_y))


def test_random_scores_against_scipy_and_pure_python():
    from scipy import stats

    rng = np.random.default_rng(9)
    for _ in range(30):
        n = int(rng.integers(3, 40))
        a = rng.integers(0, 5, n).astype(float)
        b = a + rng.integers(-2, 3, n)
        if np.all(a == a[0]) or np.all(b == b[0]):
            continue
        r = rank_correlations(a, b)
        assert r.pearson == pytest.approx(stats.pearsonr(a, b).statistic, rel=1e-12)
        assert r.spearman == pytest.approx(stats.spearmanr(a, b).statistic, rel=1e-12)
        assert r.kendall_tau_b == pytest.approx(_kendall_tau_b(a, b), rel=1e-9)


def test_degenerate_and_bad_input():
    r = rank_correlations([1, 1, 1], [1, 2, 3])
    assert math.isnan(r.pearson) and math.isnan(r.kendall_tau_b)
    with pytest.raises(ValueError):
        rank_correlations([1], [1])
    with pytest.raises(ValueError):
        rank_correlations([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        rank_correlations([1, np.nan], [1, 2])


def test_top_n_intersection():
    a = [f"img{i}" for i in range(30)]
    b = a[:5][::-1] + a[5:]
    got = top_n_intersection(a, b)
    assert list(got) == list(range(2, 26))
    assert got[2] == 0 and got[5] == 5 and got[25] == 25
    assert top_n_intersection(["a", "b"], ["b", "a"], ns=[5]) == {5: 2}
    with pytest.raises(ValueError):
        top_n_intersection(["a", "a"], ["a", "b"])
    with pytest.raises(ValueError):
        top_n_intersection(["a"], ["a"], ns=[0])


@given(st.permutations(range(12)), st.permutations(range(12)))
def test_top_n_is_symmetric_and_bounded(a, b):
    ab = top_n_intersection(a, b, ns=range(1, 13))
    assert ab == top_n_intersection(b, a, ns=range(1, 13))
    assert all(0 <= v <= n for n, v in ab.items())
    assert ab[12] == 12


def test_rank_agreement_bundles_icc2k():
    from scipy import stats

    rng = np.random.default_rng(1)
    a = rng.normal(size=20)
    b = a + rng.normal(scale=0.3, size=20)
    r = rank_agreement(a, b, ns=[2, 5])
    assert r.icc2k == pytest.approx(intraclass_correlation(np.column_stack([a, b])).icc2k)
    top_a = set(np.argsort(-a)[:5])
    top_b = set(np.argsort(-b)[:5])
    assert r.top_n[5] == len(top_a & top_b)
    assert r.correlations.spearman == pytest.approx(stats.spearmanr(a, b).statistic)
