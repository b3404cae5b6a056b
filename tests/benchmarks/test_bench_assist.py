"""Latency of the assisted tools on a 4096 x 3328 16-bit mammogram: p95 of one interaction.

The first demo mammogram (4432 x 2864, CBIS-DDSM) is cut to 4096 rows and padded with air
(zeros) to 3328 columns, with blobs and tubes of :mod:`slicereview.demo.assist_objects` drawn
in. One interaction is one ``assist`` call, as the GUI makes it for each new assist prompt:

* ``points``: every step of a standard clicker session (up to 5 clicks) on each blob;
* ``scribble``: a positive stroke through each blob and a negative ring round it;
* ``wand``: a click on each blob;
* ``trace``: 2, 3 and 4 clicks along each tube.

**Floor**, measured in the same run, after each interaction: one Gaussian filter (σ 2 px,
float32) of a 1024 x 1024 crop of the same image; its median is the floor. The goal is p95 ≤
300 ms on two cores, which is ≈ 15 floors on the machine the figures of docs/performance.md,
"Assisted annotation", were taken on; the test asserts p95 ≤ :data:`FLOORS` floors for every
tool and prints the absolute figures.

**A session stays flat**: the 20th click of a points session (20 assist prompts) takes at
most 1.5 times the first (the fastest of 9 interleaved repeats), and a scribble of 20 strokes
(a stroke and a ring round the object, then 18 corrections inside it) at most 1.5 times its
first two.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from slicereview.demo.assist_objects import TruthObject, blobs, mammograms, tubes
from slicereview.demo.clicker import click_session
from slicereview.demo.project import mammogram_files
from slicereview.engines.assist import Prompt, assist

pytestmark = pytest.mark.benchmark

SHAPE = (4096, 3328)
FLOORS = 15.0


def _fit(objects: list[TruthObject]) -> tuple[np.ndarray, list[TruthObject]]:
    """The objects' image cut or padded to :data:`SHAPE`, and the objects inside it."""
    src = objects[0].image
    big = np.zeros(SHAPE, np.uint16)
    rows, cols = min(SHAPE[0], src.shape[0]), min(SHAPE[1], src.shape[1])
    big[:rows, :cols] = src[:rows, :cols]
    inside = [o for o in objects if o.truth.end[0] < rows - 64 and o.truth.end[1] < cols - 64]
    return big, inside


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, list[TruthObject], list[TruthObject]]:
    [source] = mammograms(mammogram_files()[:1])
    bs = blobs(per_image=6, seed=5, images=[source])
    ts = tubes(per_image=4, seed=6, images=[source])
    big, bs = _fit(bs)
    ts = [o for o in ts if o.truth.end[0] < SHAPE[0] - 64]
    assert big.dtype == np.uint16 and big.shape == SHAPE and len(bs) >= 4 and len(ts) >= 3
    return big, bs, ts


def _ms(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000.0


def _floor(image: np.ndarray) -> float:
    from scipy import ndimage

    part = image[1000:2024, 300:1324]
    return _ms(lambda: ndimage.gaussian_filter(part.astype(np.float32), 2.0))


def _centre(o: TruthObject) -> tuple[float, float]:
    rr, cc = np.nonzero(o.truth.mask)
    return o.truth.row0 + float(rr.mean()) + 0.5, o.truth.col0 + float(cc.mean()) + 0.5


def _interactions(image, bs, ts):
    """(tool, assist prompts, settings) of every interaction timed."""
    from slicereview.demo.assist_effort import relaxed

    out = []
    for o in bs:
        s = click_session(o.truth, lambda p: relaxed(assist(image, p)), max_clicks=5,
                          stop=False)
        out += [("points", list(s.prompts[:k])) for k in range(1, len(s.prompts) + 1)]
        r, c = _centre(o)
        size = max(o.truth.mask.shape)
        t = np.linspace(0, 2 * np.pi, 24)
        ring = np.c_[r + size * np.sin(t), c + size * np.cos(t)]
        stroke = [[r - size / 5, c - size / 5], [r + size / 5, c + size / 5]]
        out.append(("scribble", [Prompt("scribble", stroke),
                                 Prompt("scribble", ring, positive=False)]))
        out.append(("wand", [Prompt("point", [[r, c]])]))
    for o in ts:
        line = o.centreline
        for k in (2, 3, 4):
            picks = np.linspace(0, len(line) - 1, k).astype(int)
            out.append(("trace", [Prompt("point", line[i:i + 1]) for i in picks]))
    return out


def test_one_interaction_takes_a_bounded_number_of_floors(scene):
    image, bs, ts = scene
    steps = _interactions(image, bs, ts)
    first = {tool: prompts for tool, prompts in reversed(steps)}
    for tool, prompts in first.items():  # warm-up: each tool's imports (frangi's: ~2 s)
        assist(image, prompts, tool=tool)
    times: dict[str, list[float]] = {}
    floors: list[float] = []
    for tool, prompts in steps:
        times.setdefault(tool, []).append(_ms(lambda t=tool, p=prompts: assist(image, p, tool=t)))
        floors.append(_floor(image))
    floor = float(np.median(floors))
    print(f"\nfloor (Gaussian σ 2 of 1024 x 1024): median {floor:.1f} ms")
    for tool, ms in times.items():
        p95 = float(np.percentile(ms, 95))
        print(f"{tool:9s} {len(ms):3d} interactions: median {np.median(ms):6.1f} ms, "
              f"p95 {p95:6.1f} ms = {p95 / floor:4.1f} floors, max {max(ms):6.1f} ms")
    for tool, ms in times.items():
        assert np.percentile(ms, 95) <= FLOORS * floor, tool


def _paired_ms(image, tool, a, b, repeats=9) -> tuple[float, float]:
    """The fastest of ``repeats`` runs of assist prompts ``a`` and of ``b``, interleaved so that
    both see the same load."""
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(_ms(lambda: assist(image, a, tool=tool)))
        tb.append(_ms(lambda: assist(image, b, tool=tool)))
    return min(ta), min(tb)


def test_a_twenty_prompt_session_stays_flat(scene):
    from slicereview.demo.assist_effort import relaxed

    image, bs, _ = scene
    o = bs[0]
    s = click_session(o.truth, lambda p: relaxed(assist(image, p)), max_clicks=20, stop=False)
    clicks = list(s.prompts)
    while len(clicks) < 20:  # the clicker stopped early (nothing left wrong): click again
        clicks.append(clicks[len(clicks) % len(s.prompts)])
    first, last = _paired_ms(image, "points", clicks[:1], clicks)
    # A scribble session: a stroke through the object and a ring round it, then 18 short
    # correction strokes inside the ring (what a person adds while the preview updates).
    r, c = _centre(o)
    size = max(o.truth.mask.shape)
    t = np.linspace(0, 2 * np.pi, 24)
    start = [Prompt("scribble", [[r - size / 5, c - size / 5], [r + size / 5, c + size / 5]]),
             Prompt("scribble", np.c_[r + size * np.sin(t), c + size * np.cos(t)],
                    positive=False)]
    rng = np.random.default_rng(0)
    more = [Prompt("scribble", [[r + dr, c + dc], [r + dr + 3, c + dc + 3]], positive=k % 2 == 0)
            for k, (dr, dc) in enumerate(rng.uniform(-size / 2, size / 2, (18, 2)))]
    s_first, s_last = _paired_ms(image, "scribble", start, start + more)
    print(f"\npoints: 1st click {first:.1f} ms, 20th {last:.1f} ms ({last / first:.2f}x); "
          f"scribble: 2 strokes {s_first:.1f} ms, 20 strokes {s_last:.1f} ms "
          f"({s_last / s_first:.2f}x)")
    assert last <= 1.5 * first
    assert s_last <= 1.5 * s_first
