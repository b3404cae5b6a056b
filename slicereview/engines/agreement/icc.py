"""Intraclass correlations [ShroutFleiss1979].

:func:`intraclass_correlation` gives all six Shrout & Fleiss forms from a complete
``(targets, raters)`` table, with F tests and 95 % confidence intervals (the [McGrawWong1996]
intervals that pingouin and R's ``psych::ICC`` report). For incomplete crowd designs see
:mod:`slicereview.engines.agreement.g_study`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

#: Form names in Shrout & Fleiss order, with the attribute each is reachable by.
FORMS: tuple[tuple[str, str], ...] = (
    ("ICC(1,1)", "icc11"),
    ("ICC(2,1)", "icc21"),
    ("ICC(3,1)", "icc31"),
    ("ICC(1,k)", "icc1k"),
    ("ICC(2,k)", "icc2k"),
    ("ICC(3,k)", "icc3k"),
)

_DESCRIPTIONS = {
    "ICC(1,1)": "one-way random, single rater",
    "ICC(2,1)": "two-way random, absolute agreement, single rater",
    "ICC(3,1)": "two-way mixed, consistency, single rater",
    "ICC(1,k)": "one-way random, mean of k raters",
    "ICC(2,k)": "two-way random, absolute agreement, mean of k raters",
    "ICC(3,k)": "two-way mixed, consistency, mean of k raters",
}


@dataclass(frozen=True)
class ICCForm:
    """One intraclass correlation with its F test and confidence interval."""

    name: str
    description: str
    value: float
    f: float
    df1: float
    df2: float
    p: float
    ci95: tuple[float, float]


@dataclass(frozen=True)
class ICCResult:
    """All six Shrout & Fleiss forms and the ANOVA mean squares.

    A form is reachable by name or attribute: ``result["ICC(2,k)"].value`` and
    ``result.icc2k`` (a float) are the same number; iterating yields the :class:`ICCForm` rows
    in the order ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k).

    Attributes
    ----------
    forms : tuple of ICCForm
    n_targets, n_raters : int
    bms, wms, jms, ems : float
        Between-targets, within-targets, between-judges (raters) and residual mean squares.
    """

    forms: tuple[ICCForm, ...]
    n_targets: int
    n_raters: int
    bms: float
    wms: float
    jms: float
    ems: float

    def __getitem__(self, name: str) -> ICCForm:
        for form in self.forms:
            if form.name == name:
                return form
        raise KeyError(f"no ICC form {name!r}; forms are {', '.join(n for n, _ in FORMS)}")

    def __iter__(self):
        return iter(self.forms)

    def __len__(self) -> int:
        return len(self.forms)

    def __getattr__(self, attr: str) -> float:
        for name, short in FORMS:
            if attr == short:
                return self[name].value
        raise AttributeError(attr)


def _ratio(num: float, den: float) -> float:
    return num / den if den != 0 else float("nan")


def _f_ratio(num: float, den: float) -> float:
    """An F statistic: +inf when only the denominator mean square is 0 (perfect agreement)."""
    if den == 0:
        return math.inf if num > 0 else float("nan")
    return num / den


def intraclass_correlation(
    ratings: ArrayLike, nan_policy: str = "raise", confidence: float = 0.95
) -> ICCResult:
    """All six Shrout & Fleiss (1979) intraclass correlations of a complete ratings table.

    Parameters
    ----------
    ratings : array_like, shape (n_targets, n_raters)
        ``ratings[i, j]`` is rater ``j``'s score of target ``i``. At least 2 targets and
        2 raters.
    nan_policy : {"raise", "omit"}
        What to do with NaN: raise ``ValueError``, or drop every target with a missing rating.
    confidence : float
        Confidence level of the intervals (the attribute stays named ``ci95``).

    Returns
    -------
    ICCResult
        ``result["ICC(2,k)"]`` is an :class:`ICCForm` (value, F, df1, df2, p, ci95);
        ``result.icc2k`` is its value. F tests: ICC(1,·) use BMS/WMS with
        ``(n − 1, n(k − 1))`` degrees of freedom, ICC(2,·) and ICC(3,·) use BMS/EMS with
        ``(n − 1, (n − 1)(k − 1))``. A form whose denominator is 0 (e.g. every rating equal)
        is NaN. An F whose error mean square is 0 but whose between-targets mean square is
        not (raters agree perfectly, or differ only by constant offsets for ICC(3,·)) is +inf
        with p = 0; its intervals are the limits as that mean square goes to 0 (ICC(1,·) and
        ICC(3,·): [1, 1]).

    Examples
    --------
    >>> sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...       [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]   # [ShroutFleiss1979, Table 2]
    >>> r = intraclass_correlation(sf)
    >>> round(r.icc21, 2), round(r["ICC(3,k)"].value, 2)
    (0.29, 0.91)
    """
    x = np.asarray(ratings, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"ratings must be 2-D (targets, raters), got shape {x.shape}")
    if np.isnan(x).any():
        if nan_policy == "omit":
            x = x[~np.isnan(x).any(axis=1)]
        elif nan_policy == "raise":
            raise ValueError("ratings hold missing values (use nan_policy='omit' to drop "
                             "those targets, or generalizability() for incomplete designs)")
        else:
            raise ValueError(f"nan_policy must be 'raise' or 'omit', got {nan_policy!r}")
    n, k = x.shape
    if n < 2 or k < 2:
        raise ValueError(f"need at least 2 targets and 2 raters, got {n} x {k}")

    grand = x.mean()
    ss_total = float(np.sum((x - grand) ** 2))
    ss_targets = float(k * np.sum((x.mean(axis=1) - grand) ** 2))
    ss_raters = float(n * np.sum((x.mean(axis=0) - grand) ** 2))
    ss_error = max(ss_total - ss_targets - ss_raters, 0.0)
    bms = ss_targets / (n - 1)
    wms = (ss_raters + ss_error) / (n * (k - 1))
    jms = ss_raters / (k - 1)
    ems = ss_error / ((n - 1) * (k - 1))

    q = 1.0 - (1.0 - confidence) / 2.0
    df1, df_w, df_e = n - 1, n * (k - 1), (n - 1) * (k - 1)
    f1 = _f_ratio(bms, wms)
    f3 = _f_ratio(bms, ems)
    icc1 = _ratio(bms - wms, bms + (k - 1) * wms)
    icc2 = _ratio(bms - ems, bms + (k - 1) * ems + k * (jms - ems) / n)
    icc3 = _ratio(bms - ems, bms + (k - 1) * ems)
    icc1k = _ratio(bms - wms, bms)
    icc2k = _ratio(bms - ems, bms + (jms - ems) / n)
    icc3k = _ratio(bms - ems, bms)

    ci1, ci1k = _ci_one_three(f1, df1, df_w, k, q)
    ci3, ci3k = _ci_one_three(f3, df1, df_e, k, q)
    ci2, ci2k = _ci_two(icc2, bms, jms, ems, n, k, q)

    def p(f: float, d2: float) -> float:
        from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up
        return float(stats.f.sf(f, df1, d2)) if not math.isnan(f) else float("nan")

    rows = [
        ("ICC(1,1)", icc1, f1, df_w, ci1),
        ("ICC(2,1)", icc2, f3, df_e, ci2),
        ("ICC(3,1)", icc3, f3, df_e, ci3),
        ("ICC(1,k)", icc1k, f1, df_w, ci1k),
        ("ICC(2,k)", icc2k, f3, df_e, ci2k),
        ("ICC(3,k)", icc3k, f3, df_e, ci3k),
    ]
    forms = tuple(
        ICCForm(name, _DESCRIPTIONS[name], float(value), float(f), float(df1), float(d2),
                p(f, d2), (float(ci[0]), float(ci[1])))
        for name, value, f, d2, ci in rows
    )
    return ICCResult(forms, n, k, bms, wms, jms, ems)


def _ci_one_three(
    f: float, df1: float, df2: float, k: int, q: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Intervals of ICC(1|3, 1) and ICC(1|3, k) from the F ratio (Shrout & Fleiss eqs.)."""
    from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up
    if math.isnan(f) or f == 0:
        nan = (float("nan"), float("nan"))
        return nan, nan
    if math.isinf(f):  # the limit of both bounds as the error mean square goes to 0
        return (1.0, 1.0), (1.0, 1.0)
    fl = f / stats.f.ppf(q, df1, df2)
    fu = f * stats.f.ppf(q, df2, df1)
    single = ((fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1))
    average = (1 - 1 / fl, 1 - 1 / fu)
    return single, average


def _ci_two(
    icc2: float, bms: float, jms: float, ems: float, n: int, k: int, q: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """[McGrawWong1996] interval of ICC(2,1) (Satterthwaite df), stepped up to ICC(2,k)."""
    from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up
    nan = (float("nan"), float("nan"))
    if math.isnan(icc2):
        return nan, nan
    if ems == 0:
        # Satterthwaite df in the limit EMS → 0 (F_J → ∞): k − 1, or (k − 1)(n − 1) when
        # ICC = 0; the bounds below stay finite and continuous in that limit.
        v = float(k - 1) if icc2 > 0 else float((k - 1) * (n - 1))
    else:
        fj = jms / ems
        vn = (k - 1) * (n - 1) * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        vd = (n - 1) * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = vn / vd
    f_up = stats.f.ppf(q, n - 1, v)
    f_lo = stats.f.ppf(q, v, n - 1)
    shared = k * jms + (k * n - k - n) * ems
    lo = n * (bms - f_up * ems) / (f_up * shared + n * bms)
    hi = n * (f_lo * bms - ems) / (shared + n * f_lo * bms)
    return (lo, hi), (lo * k / (1 + lo * (k - 1)), hi * k / (1 + hi * (k - 1)))
