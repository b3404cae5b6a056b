"""ICC against Shrout & Fleiss and pingouin; generalizability against statsmodels."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from slicereview.engines.agreement import (
    generalizability,
    icc21_from_mean_squares,
    intraclass_correlation,
    raters_needed,
)

if TYPE_CHECKING:
    import pandas as pd

CASES = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json")
    .read_text()
)["cases"]
SF = next(c for c in CASES if c["statistic"] == "ICC")
GCOEF = next(c for c in CASES if c["statistic"].startswith("generalizability"))
ORDER = ["ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"]


def test_shrout_fleiss_published_values():
    result = intraclass_correlation(SF["inputs"]["ratings_targets_x_judges"])
    exp = SF["expected"]
    tol = SF["tolerance"]
    for name in ORDER:
        assert result[name].value == pytest.approx(exp[name], abs=tol)
    anova = exp["ANOVA"]
    assert (result.bms, result.wms, result.jms, result.ems) == pytest.approx(
        (anova["BMS"], anova["WMS"], anova["JMS"], anova["EMS"]), abs=tol)
    for i, name in enumerate(ORDER):
        form = result[name]
        assert form.f == pytest.approx(exp["pingouin_F"][i], abs=0.05)
        assert (form.df1, form.df2) == (exp["pingouin_df1"][i], exp["pingouin_df2"][i])
        assert form.ci95[0] == pytest.approx(exp["pingouin_CI95_lower"][i], abs=tol)
        assert form.ci95[1] == pytest.approx(exp["pingouin_CI95_upper"][i], abs=tol)


def test_forms_are_addressable_by_name_and_attribute():
    result = intraclass_correlation(SF["inputs"]["ratings_targets_x_judges"])
    assert result.icc2k == result["ICC(2,k)"].value
    assert result.icc11 == result["ICC(1,1)"].value
    assert [f.name for f in result] == ORDER and len(result) == 6
    with pytest.raises(KeyError):
        result["ICC(4,1)"]
    with pytest.raises(AttributeError):
        result.icc4k  # noqa: B018


def _pingouin(x: np.ndarray) -> pd.DataFrame:
    import pandas as pd
    import pingouin

    n, k = x.shape
    long = pd.DataFrame(
        [(i, j, x[i, j]) for i in range(n) for j in range(k)], columns=["t", "r", "s"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pingouin.intraclass_corr(long, targets="t", raters="r", ratings="s")


def test_random_tables_against_pingouin():
    rng = np.random.default_rng(11)
    for _ in range(15):
        n, k = int(rng.integers(3, 25)), int(rng.integers(2, 6))
        x = rng.normal(size=(n, 1)) * rng.uniform(0, 3) + rng.normal(size=(n, k))
        x += rng.normal(size=(1, k))  # rater bias
        ours = intraclass_correlation(x)
        table = _pingouin(x)
        for i, name in enumerate(ORDER):
            row = table.iloc[i]
            form = ours[name]
            assert form.value == pytest.approx(row["ICC"], rel=1e-9, abs=1e-12)
            assert form.f == pytest.approx(row["F"], rel=1e-9)
            assert form.p == pytest.approx(row["pval"], rel=1e-6, abs=1e-15)
            # pingouin rounds its intervals to 2 decimals.
            assert form.ci95 == pytest.approx(tuple(row["CI95"]), abs=0.0051)


def test_icc_missing_values_and_degenerate_tables():
    x = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 3.0], [4.0, 5.0]])
    with pytest.raises(ValueError, match="missing"):
        intraclass_correlation(x)
    omitted = intraclass_correlation(x, nan_policy="omit")
    assert omitted.n_targets == 3
    assert omitted.icc21 == intraclass_correlation(x[[0, 2, 3]]).icc21
    with pytest.raises(ValueError, match="nan_policy"):
        intraclass_correlation(x, nan_policy="keep")
    with pytest.raises(ValueError, match="at least 2"):
        intraclass_correlation([[1.0, 2.0]])
    flat = intraclass_correlation(np.full((4, 3), 2.0))  # no variance at all: undefined
    assert all(math.isnan(f.value) for f in flat)
    perfect = intraclass_correlation(np.repeat(np.arange(5.0)[:, None], 3, axis=1))
    assert perfect.icc21 == 1.0 and perfect.icc3k == 1.0


def test_published_generalizability_formula_and_raters_needed():
    inp = GCOEF["inputs"]
    icc = icc21_from_mean_squares(inp["questions.MS"], inp["Annotators.MS"], inp["error.MS"],
                                  inp["Annotators.df"], inp["questions.df"])
    assert icc == pytest.approx(GCOEF["expected"]["ICC21"], abs=GCOEF["tolerance"])
    for target, needed in GCOEF["expected"]["annotators_needed"].items():
        assert raters_needed(icc, float(target)) == needed


def test_generalizability_equals_icc21_on_complete_tables():
    ratings = np.array(SF["inputs"]["ratings_targets_x_judges"], dtype=float)
    rows = [(f"t{i}", f"j{j}", ratings[i, j]) for i in range(6) for j in range(4)]
    g = generalizability(rows)
    assert g.icc21 == pytest.approx(intraclass_correlation(ratings).icc21, rel=1e-12)
    assert (g.items_df, g.annotators_df, g.error_df) == (5, 3, 15)
    assert g.raters_needed(0.7) == raters_needed(g.icc21, 0.7)
    assert g.icc2k(4) == pytest.approx(intraclass_correlation(ratings).icc2k, rel=1e-12)


def test_generalizability_unbalanced_against_statsmodels():
    import pandas as pd
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(5)
    rows = []
    for item in range(40):
        for annotator in rng.choice(15, size=int(rng.integers(2, 6)), replace=False):
            rows.append((f"i{item}", f"a{annotator}",
                         item % 4 + 0.4 * annotator + rng.normal()))
    frame = pd.DataFrame(rows, columns=["item", "annotator", "score"])
    table = sm.stats.anova_lm(smf.ols("score ~ C(item) + C(annotator)", frame).fit(), typ=1)
    g = generalizability(rows)
    assert g.items_ms == pytest.approx(table["mean_sq"].iloc[0], rel=1e-9)
    assert g.annotators_ms == pytest.approx(table["mean_sq"].iloc[1], rel=1e-9)
    assert g.error_ms == pytest.approx(table["mean_sq"].iloc[2], rel=1e-9)
    assert (g.items_df, g.annotators_df, g.error_df) == tuple(int(d) for d in table["df"])
    assert g.icc21 == pytest.approx(icc21_from_mean_squares(
        *table["mean_sq"].iloc[[0, 1, 2]], int(table["df"].iloc[1]), int(table["df"].iloc[0])))


def test_generalizability_errors_and_missing():
    with pytest.raises(ValueError, match="at least 2"):
        generalizability([("a", "x", 1.0), ("a", "y", 2.0)])
    with pytest.raises(ValueError, match="residual"):
        generalizability([("a", "x", 1.0), ("b", "y", 2.0)])
    rows = [("a", "x", 1), ("a", "y", 2), ("b", "x", 2), ("b", "y", 4), ("c", "x", 0),
            ("c", "y", 1), ("c", "z", float("nan"))]
    assert generalizability(rows).n_scores == 6


def test_raters_needed_edges():
    assert raters_needed(1.0, 0.9) == 1
    assert raters_needed(0.5, 0.5) == 1
    assert raters_needed(0.5, 0.8) == 4  # exactly 4.0, not 5 through rounding
    for bad in (0.0, -0.2, float("nan")):
        with pytest.raises(ValueError):
            raters_needed(bad, 0.8)
    with pytest.raises(ValueError, match="target"):
        raters_needed(0.5, 1.0)
