"""Per-event geometry work on a 2000-vertex polygon (hit-test + move) against a Python loop.

The drag budget is 16 ms per update for the whole redraw; the geometry part must be a small
fraction of it.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from slicereview.engines import geometry as g


def _python_hit_vertex(vertices, xy, tol):
    best, best_d = None, math.inf
    for i, (x, y) in enumerate(vertices):
        d = math.hypot(x - xy[0], y - xy[1])
        if d < best_d:
            best, best_d = i, d
    return best if best_d <= tol else None


@pytest.mark.benchmark
def test_hit_test_and_move_2000_vertices():
    t = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    v = np.c_[1500 + 400 * np.cos(t), 2000 + 400 * np.sin(t)]
    vl = v.tolist()
    clicks = [(1500 + 400 * math.cos(a) + 0.3, 2000 + 400 * math.sin(a)) for a in t[::40]]
    n = len(clicks)
    t0 = time.perf_counter()
    for xy in clicks:
        i = g.hit_vertex(v, xy, tol=2.0)
        g.nearest_edge(v, xy)
        g.move_vertex(v, i, xy)
    ours = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    for xy in clicks:
        _python_hit_vertex(vl, xy, 2.0)
    base = (time.perf_counter() - t0) / n
    print(f"\nhit_vertex + nearest_edge + move_vertex on 2000 vertices: {ours * 1e3:.3f} ms "
          f"per event; pure-Python hit_vertex alone: {base * 1e3:.3f} ms (x{base / ours:.1f})")
    assert ours < 0.004  # a quarter of the 16 ms frame budget, with slack for a busy machine
