"""Simulated raters: deterministic, and errors likelier between similar images."""

from __future__ import annotations

from slicereview.demo.raters import (
    SimulatedRater,
    comparison_counts,
    distinct_truth,
    level_truth,
)


def test_truths():
    t = distinct_truth(10, seed=1)
    assert list(t) == list(range(10)) and sorted(t.values()) == [float(i) for i in range(10)]
    assert list(t.values()) != sorted(t.values())
    levels = level_truth(12, 4, seed=1)
    assert sorted(levels.values()) == [0.0] * 3 + [1.0] * 3 + [2.0] * 3 + [3.0] * 3


def test_answers_are_deterministic_and_symmetric():
    truth = distinct_truth(30, 0)
    rater = SimulatedRater(truth, noise=3.0, same_within=0.5, seed=4)
    flip = {"left": "right", "right": "left", "same": "same"}
    for a in range(30):
        for b in range(a + 1, 30):
            assert rater.answer(a, b) == rater.answer(a, b) == flip[rater.answer(b, a)]
    assert SimulatedRater(truth).answer(0, 1) == ("left" if truth[0] > truth[1] else "right")
    assert SimulatedRater({1: 2.0, 2: 2.0}).answer(1, 2) == "same"


def test_errors_are_likelier_between_similar_images():
    truth = distinct_truth(60, 2)
    rater = SimulatedRater(truth, noise=3.0, seed=9)
    near_err = near = far_err = far = 0
    for a in range(60):
        for b in range(a + 1, 60):
            gap = abs(truth[a] - truth[b])
            wrong = (rater.answer(a, b) == "left") != (truth[a] > truth[b])
            if gap <= 2:
                near, near_err = near + 1, near_err + wrong
            elif gap >= 10:
                far, far_err = far + 1, far_err + wrong
    assert near_err / near > 0.25 and far_err / far < 0.01


def test_times_and_grades():
    truth = level_truth(40, 4, 0)
    rater = SimulatedRater(truth, median_s=2.0, slow_share=0.1, seed=3)
    times = [rater.active_ms(a, a + 1) for a in range(39)]
    assert all(t > 0 for t in times) and any(t > 20_000 for t in times)
    assert [SimulatedRater(truth).grade(i, 4) for i in range(40)] == [int(truth[i]) for i in
                                                                      range(40)]


def test_comparison_counts_helper():
    q, taus = comparison_counts("merge-insertion", 8, 3)
    assert len(q) == 3 and all(abs(t - 1.0) < 1e-9 for t in taus) and max(q) <= 16
