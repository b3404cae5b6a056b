"""Krippendorff's α: published examples, the krippendorff package on random data, conventions."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slicereview.engines.agreement import band, krippendorff_alpha

CASES = Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json"
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _cases(statistic: str) -> list[dict]:
    cases = json.loads(CASES.read_text())["cases"]
    return [c for c in cases if c["statistic"] == statistic]


def _data(case: dict) -> np.ndarray:
    rows = case["inputs"]["reliability_data_coders_x_units"]
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def test_reference_file_has_alpha_cases():
    assert len(_cases("krippendorff_alpha")) >= 2


@pytest.mark.parametrize("case", _cases("krippendorff_alpha"), ids=lambda c: c["name"])
def test_published_examples(case):
    data = _data(case)
    for key, expected in case["expected"].items():
        level = key.removeprefix("alpha_")
        assert krippendorff_alpha(data, level) == pytest.approx(expected, abs=case["tolerance"])


def test_accepts_none_as_missing():
    case = _cases("krippendorff_alpha")[0]
    rows = case["inputs"]["reliability_data_coders_x_units"]
    assert krippendorff_alpha(rows, "nominal") == pytest.approx(0.743, abs=5e-4)


def _oracle(data: np.ndarray, level: str) -> float | None:
    """The krippendorff package's α, or None where it has no answer (degenerate data)."""
    import krippendorff

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        except (ValueError, ZeroDivisionError):
            return None
    return None if math.isnan(value) else float(value)


@pytest.mark.parametrize("level", LEVELS)
def test_random_data_against_krippendorff_package(level):
    rng = np.random.default_rng(42)
    compared = 0
    for _ in range(150):
        raters, units = rng.integers(2, 7), rng.integers(2, 40)
        data = rng.integers(0, rng.integers(2, 7), size=(raters, units)).astype(float)
        if rng.random() < 0.5:
            data = data * 1.5 + 0.25  # non-integer values
        data[rng.random(data.shape) < rng.uniform(0, 0.5)] = np.nan
        expected = _oracle(data, level)
        ours = krippendorff_alpha(data, level)
        if expected is None:
            # The package fails on a single pairable value domain; ours follows the convention.
            assert ours == 1.0 or math.isnan(ours)
            continue
        compared += 1
        assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert compared > 100


@pytest.mark.slow  # 5 s
def test_continuous_interval_data_against_package():
    rng = np.random.default_rng(7)
    truth = rng.normal(size=200)
    data = truth + rng.normal(scale=0.5, size=(4, 200))
    data[rng.random(data.shape) < 0.2] = np.nan
    for level in ("ordinal", "interval", "ratio"):
        values = np.abs(data) if level == "ratio" else data
        assert krippendorff_alpha(values, level) == pytest.approx(_oracle(values, level), rel=1e-9)


def test_no_observed_disagreement_is_one():
    data = [[1, 2, np.nan, 3], [1, 2, 5, 3], [np.nan, 2, 5, np.nan]]
    for level in LEVELS:
        assert krippendorff_alpha(data, level) == 1.0
    # Even when every pairable value is the same (expected disagreement 0 too).
    assert krippendorff_alpha([[4, 4, 1], [4, 4, np.nan]]) == 1.0


def test_fewer_than_two_pairable_values_is_nan():
    assert math.isnan(krippendorff_alpha([[1, np.nan], [np.nan, 2]]))
    assert math.isnan(krippendorff_alpha([[1, 2, 3]]))  # one rater
    assert math.isnan(krippendorff_alpha(np.full((3, 4), np.nan)))
    assert math.isnan(krippendorff_alpha(np.empty((2, 0))))


def test_systematic_disagreement_is_negative():
    assert krippendorff_alpha([[0, 1, 0, 1], [1, 0, 1, 0]]) < 0


def test_bad_input():
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([[1, 2], [1, 2]], "cardinal")
    with pytest.raises(ValueError, match="2-D"):
        krippendorff_alpha([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        krippendorff_alpha([[-1, 2], [1, 2]], "ratio")
    with pytest.raises(ValueError, match="infinite"):
        krippendorff_alpha([[np.inf, 2], [1, 2]])


def test_bands():
    assert [band(a) for a in (-0.5, 0.1, 0.1001, 0.667, 0.6671, 0.8, 0.8001, 1.0)] == [
        "disagreement", "disagreement", "low", "low", "moderate", "moderate", "high", "high",
    ]
    assert band(float("nan")) == "undefined"


reliability = st.integers(2, 5).flatmap(
    lambda r: st.lists(
        st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=r, max_size=r),
        min_size=1, max_size=15,
    )
)


@given(units=reliability, level=st.sampled_from(LEVELS), data=st.data())
def test_invariant_to_permuting_raters_and_units(units, level, data):
    arr = np.array([[np.nan if v is None else v for v in u] for u in units], dtype=float).T
    rater_order = data.draw(st.permutations(range(arr.shape[0])))
    unit_order = data.draw(st.permutations(range(arr.shape[1])))
    base = krippendorff_alpha(arr, level)
    shuffled = krippendorff_alpha(arr[np.ix_(rater_order, unit_order)], level)
    if math.isnan(base):
        assert math.isnan(shuffled)
    else:
        assert shuffled == pytest.approx(base, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", ["integers", "few floats",
                                  pytest.param("many values", marks=pytest.mark.slow)])  # 5-13 s
def test_every_counting_path_agrees_with_the_package(monkeypatch, level, kind):
    """The dense table (in blocks, ending with a partial one), the sorted cells and, for the
    ratio level, the coincidence matrix and the pairs of cells all give the package's α."""
    from slicereview.engines.agreement import alpha as module

    rng = np.random.default_rng(11)
    truth = rng.integers(0, 6, size=300)
    data = (truth + rng.integers(-1, 2, size=(5, 300))).clip(0).astype(float)
    if kind == "few floats":
        data = data * 1.5 + 0.25
    elif kind == "many values":
        data = data + rng.uniform(0, 0.9, size=data.shape)
    data[rng.random(data.shape) < 0.2] = np.nan
    expected = _oracle(data, level)
    results = [krippendorff_alpha(data, level)]
    monkeypatch.setattr(module, "_BLOCK", 7)
    results.append(krippendorff_alpha(data, level))
    monkeypatch.setattr(module, "_RATIO_MATRIX_VALUES", 0)
    results.append(krippendorff_alpha(data, level))
    monkeypatch.setattr(module, "_DENSE_VALUES", 0)
    results.append(krippendorff_alpha(data, level))
    monkeypatch.setattr(module, "_DENSE_CELLS", 0)
    results.append(krippendorff_alpha(data, level))
    assert results == pytest.approx([expected] * len(results), rel=1e-12, abs=1e-12)


def test_conventions_hold_on_every_counting_path(monkeypatch):
    from slicereview.engines.agreement import alpha as module

    for name in ("_DENSE_VALUES", "_DENSE_CELLS"):
        monkeypatch.setattr(module, name, 0)
        test_no_observed_disagreement_is_one()
        test_fewer_than_two_pairable_values_is_nan()
