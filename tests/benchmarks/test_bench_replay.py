"""Stateless replay() (every resume and undo) against the floor of CPython's ``sorted``.

The floor: ``sorted(items, key=cmp_to_key(cmp))`` where ``cmp`` looks its answers up in a dict
(both orientations), recorded from a first run of ``sorted`` with a perfect oracle. Against it,
:func:`replay` over our own stored answers (a perfect simulated rater's whole session, stored
as ``"left"``/``"right"``/``"same"`` the way the store returns them), at n = 500 and 2,000, in
the same run, interleaved, best of REPEAT (noisy machines: a ratio holds, a time does not).
Target: the default algorithm ≤ 5× the floor; the other generator algorithms and ``"timsort"``
(replaying ``sorted`` itself over the floor's own answers) are reported. Run with ``-s``.
"""

from __future__ import annotations

import time
from functools import cmp_to_key

import pytest

from slicereview.demo.raters import SimulatedRater, distinct_truth, run_sort
from slicereview.engines.ranking import DEFAULT, Ranking, replay

pytestmark = pytest.mark.benchmark

REPEAT = 9
_CHOICE = {1: "left", -1: "right", 0: "same"}


def _floor(truth: dict[int, float]) -> tuple[list[int], dict, dict]:
    """The items, the floor's int answers (both orientations) and the same as stored strings."""
    items = list(truth)
    answers: dict[tuple[int, int], int] = {}

    def oracle(x: int, y: int) -> int:
        more = (truth[x] > truth[y]) - (truth[x] < truth[y])  # +1: x has more
        answers[(x, y)], answers[(y, x)] = -more, more  # most first, as replay() sorts
        return -more

    sorted(items, key=cmp_to_key(oracle))
    # The same answers as a store returns them: (x, y) -> "left" when x (shown left) has more.
    stored = {pair: _CHOICE[-c] for pair, c in answers.items() if pair[0] < pair[1]}
    return items, answers, stored


def _ratio(items: list[int], answers: dict, ours) -> tuple[float, float]:
    get = answers.__getitem__
    floor = best = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        sorted(items, key=cmp_to_key(lambda x, y: get((x, y))))
        floor = min(floor, time.perf_counter() - start)
        start = time.perf_counter()
        ours()
        best = min(best, time.perf_counter() - start)
    return floor, best


@pytest.mark.parametrize("n", [500, 2000])
def test_replay_within_five_times_sorted(n):
    truth = distinct_truth(n, seed=n)
    items, answers, stored = _floor(truth)
    lines, default_ratio = [], None
    for algorithm in (DEFAULT, "merge-insertion", "top-k"):
        session = run_sort(items, SimulatedRater(truth), algorithm).answers
        out = replay(items, session, algorithm)
        assert isinstance(out, Ranking) and out.answered == len(session)
        floor, ours = _ratio(items, answers, lambda a=algorithm, s=session: replay(items, s, a))
        lines.append(f"{algorithm} {ours * 1e3:.1f} ms / floor {floor * 1e3:.1f} ms = "
                     f"{ours / floor:.2f}x ({len(session)} answers)")
        if algorithm == DEFAULT:
            default_ratio = ours / floor
    out = replay(items, stored, "timsort")
    assert isinstance(out, Ranking)
    assert out.order == sorted(items, key=lambda i: -truth[i])
    floor, ours = _ratio(items, answers, lambda: replay(items, stored, "timsort"))
    lines.append(f"timsort {ours * 1e3:.1f} ms / floor {floor * 1e3:.1f} ms = "
                 f"{ours / floor:.2f}x ({out.answered} answers)")
    print(f"\nstateless replay, n = {n}:\n  " + "\n  ".join(lines))
    assert default_ratio is not None and default_ratio <= 5
