"""Acceptance on round 1 per phase and group, annotation times and the Welch t-test, checked
against hand computations and scipy."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.report.acceptance import (
    NO_GROUP,
    acceptance_by_annotator,
    acceptance_table,
    outlier_limit,
    time_summary,
    times_by_phase,
    welch,
)
from slicereview.app.review.decisions import decide, start_revision
from slicereview.model import NewImage, Polygon
from slicereview.store import Project

SQUARE = Polygon(np.array([[1.0, 1.0], [5.0, 1.0], [5.0, 5.0], [1.0, 5.0]]))


def test_welch_by_hand_and_against_scipy() -> None:
    from scipy import stats

    a, b = [1.0, 2.0, 3.0], [4.0, 6.0, 8.0]
    # by hand: means 2 and 6, variances 1 and 4; se² = 1/3 + 4/3 = 5/3
    t = (2 - 6) / math.sqrt(5 / 3)
    df = (5 / 3) ** 2 / ((1 / 3) ** 2 / 2 + (4 / 3) ** 2 / 2)
    w = welch(a, b)
    assert w.t == pytest.approx(t) and w.df == pytest.approx(df)
    assert w.p == pytest.approx(2 * stats.t.sf(abs(t), df))
    rng = np.random.default_rng(3)
    x, y = rng.gamma(2, 30, 40), rng.gamma(3, 40, 17)
    ref = stats.ttest_ind(x, y, equal_var=False)
    assert welch(list(x), list(y)).p == pytest.approx(ref.pvalue)
    assert math.isnan(welch([1.0], [2.0, 3.0]).p) and not welch([1.0], [2.0, 3.0]).significant()
    for seed in range(20):  # t and p equal scipy.stats to 1e-12 (no scipy.stats at run time)
        r = np.random.default_rng(seed)
        x, y = r.normal(100, r.uniform(1, 50), r.integers(2, 60)), r.gamma(2, 40, r.integers(2, 9))
        ref = stats.ttest_ind(x, y, equal_var=False)
        w = welch(list(x), list(y))
        assert w.t == pytest.approx(ref.statistic, rel=1e-12)
        assert w.p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert math.isnan(welch([5.0, 5.0], [5.0, 5.0, 5.0]).p)  # both constant: undefined


def test_time_summary_and_outlier_limit() -> None:
    s = time_summary([88.0, 121.0, 30.0])
    assert s.mean == pytest.approx(np.mean([88, 121, 30]))
    assert s.sd == pytest.approx(np.std([88, 121, 30], ddof=1))
    assert time_summary([]).text == "–" and math.isnan(time_summary([5.0]).sd)
    assert outlier_limit([1, 2, 3]) == math.inf
    # Q1 = 12, Q3 = 16 (linear interpolation), fence 16 + 3 · 4
    assert outlier_limit([10, 12, 14, 16, 300]) == 28.0


@pytest.fixture
def project(location, tmp_path: Path):
    (tmp_path / "x.png").write_bytes(b"png")
    p = Project.create(location("p.srproj"))
    p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                        [NewImage(8, 8, frame=k) for k in range(8)])
    yield p
    p.close()


def _work(p: Project, rater: int, image: int, phase: str, seconds: float) -> int:
    ann = p.annotations.for_image(rater, image + 1, phase)     # image ids start at 1
    p.polygons.replace(ann.id, [SQUARE])
    p.annotations.add_active_time(ann.id, int(seconds * 1000))
    p.annotations.set_status(ann.id, "submitted")
    return ann.id


def test_acceptance_table_layout_and_numbers(project: Project) -> None:
    from scipy import stats

    p = project
    a1, a2 = p.raters.add("a1", group="A2"), p.raters.add("a2", group="A2")
    b1, solo = p.raters.add("b1", group="A0"), p.raters.add("solo")
    boss = p.raters.add("boss", "reviewer")
    acc_t, rej_t = [40.0, 50.0, 60.0, 1000.0], [100.0, 140.0]
    for k, t in enumerate(acc_t):
        decide(p, boss, _work(p, a1 if k % 2 else a2, k, "formal", t), "accept")
    for k, t in enumerate(rej_t):
        ann = _work(p, a1, 4 + k, "formal", t)
        decide(p, boss, ann, "reject", ["missed finding"])
        rev = start_revision(p, ann)                      # round 2: never counted
        p.annotations.set_status(rev, "submitted")
        decide(p, boss, rev, "accept")
    decide(p, boss, _work(p, a2, 6, "formal", 70.0), "expert_review")
    _work(p, a2, 7, "formal", 80.0)                       # undecided
    ann_b = _work(p, b1, 0, "pilot", 30.0)
    decide(p, boss, ann_b, "reject", text="too loose")
    _work(p, solo, 0, "onboarding", 12.0)
    rows = acceptance_table(p)
    assert [(r.phase, r.group) for r in rows] == [
        ("onboarding", NO_GROUP), ("pilot", "A0"), ("formal", "A2")]
    f = rows[2]
    assert (f.images, f.annotations, f.accepted, f.rejected, f.expert, f.undecided) == (
        8, 8, 4, 2, 1, 1)
    assert f.ratio == pytest.approx(4 / 6)
    everything = acc_t + rej_t + [70.0, 80.0]
    assert f.all_time.mean == pytest.approx(np.mean(everything))
    assert f.accepted_time.sd == pytest.approx(np.std(acc_t, ddof=1))
    ref = stats.ttest_ind(acc_t, rej_t, equal_var=False)
    assert f.test.t == pytest.approx(ref.statistic) and f.test.p == pytest.approx(ref.pvalue)
    # the 1000 s time is flagged, not dropped
    q1, q3 = np.percentile(everything, [25, 75])
    assert f.limit_s == pytest.approx(q3 + 3 * (q3 - q1))
    assert len(f.outliers) == 1 and p.annotations.get(f.outliers[0]).active_ms == 1_000_000
    assert rows[1].ratio == 0.0 and math.isnan(rows[0].ratio)
    fixed = acceptance_table(p, outlier_limit_s=90)[2]
    assert len(fixed.outliers) == 3
    by = acceptance_by_annotator(p)
    assert by[a1] == (2, 2, 0.5) and by[a2][:2] == (2, 0) and math.isnan(by[solo][2])
    assert times_by_phase(p)["onboarding"] == [12.0]
