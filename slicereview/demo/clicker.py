"""Simulated users of the assisted tools: the standard clicker, a tracer and a manual annotator.

For tests, benchmarks and simulations that measure how much work an object takes:

* :func:`click_session` — the standard protocol of interactive segmentation [Xu2016, §3.3]:
  each next click goes to the centre of the largest error region (the pixel of the false
  negative or false positive region farthest from that region's boundary, the image border
  counting as boundary), positive on a false negative, negative on a false positive; up to 20
  clicks; **NoC@90** is the number of clicks until Dice ≥ 0.90, and 20 when it is never reached
  [Sofiiuk2022, §4]. Ties go to the false negative, and to the first such pixel in raster order.
* :func:`trace_session` — a person tracing a vessel: a click at each end of its centreline,
  then, until Dice reaches the target, a click where the trace strayed farthest from the
  vessel (the centreline point farthest, more than 1 px, from the traced tube), else at the
  point of the centreline nearest the centre of the largest error region; each click is
  inserted in order along the vessel.
* :func:`manual_session` — a person outlining the object by hand with polygon vertices placed
  *on the true contour*: the outline is refined progressively (three vertices, then each next
  vertex at the contour point farthest from the polygon so far, Douglas–Peucker's order
  [DouglasPeucker1973]) until Dice ≥ 0.90; each vertex is one interaction. Holes are outlined
  the same way after the outer contour is within half a pixel, largest first.

Dice [Dice1945] is computed on the relaxed mask (certain ∪ uncertain) of what a tool returns,
over the whole image. Masks are :class:`Placed`: a ``bool`` array and where its pixel
``(0, 0)`` lies in the image, so that nothing the size of a mammogram is copied per click.

Example
-------
>>> import numpy as np
>>> from slicereview.demo.clicker import Placed, click_session
>>> truth = np.zeros((40, 40), bool); truth[10:30, 5:25] = True
>>> def flood(prompts):  # a perfect tool for this square: any positive click gives it all
...     hit = any(p.positive for p in prompts)
...     return Placed(truth & hit)
>>> s = click_session(Placed(truth), flood)
>>> s.noc, [p.points[0].tolist() for p in s.prompts], s.dice
(1, [[19.5, 14.5]], (1.0,))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from slicereview.engines.assist import Prompt

MAX_CLICKS = 20
TARGET = 0.90


@dataclass(frozen=True, eq=False)
class Placed:
    """A ``bool`` mask placed at ``(row0, col0)`` of the image (default: the image itself)."""

    mask: np.ndarray
    row0: int = 0
    col0: int = 0

    @property
    def end(self) -> tuple[int, int]:
        return self.row0 + self.mask.shape[0], self.col0 + self.mask.shape[1]


@dataclass(frozen=True)
class Session:
    """A simulated session: the assist prompts given, the Dice after each, and NoC (or, for
    :func:`manual_session`, the number of vertices)."""

    prompts: tuple[Prompt, ...]
    dice: tuple[float, ...]
    noc: int
    reached: bool


@dataclass(frozen=True)
class ManualSession:
    """A simulated manual outline: its vertices (``(x, y)``, one ring per polygon), the number
    of vertices placed, the Dice reached and whether it reached the target."""

    rings: tuple[np.ndarray, ...]
    vertices: int
    dice: float
    reached: bool


def frame(*masks: Placed) -> tuple[Any, ...]:
    """The masks pasted into their common bounding frame: ``(row0, col0, mask, ...)``."""
    r0 = min(m.row0 for m in masks)
    c0 = min(m.col0 for m in masks)
    r1 = max(m.end[0] for m in masks)
    c1 = max(m.end[1] for m in masks)
    out: list = [r0, c0]
    for m in masks:
        full = np.zeros((r1 - r0, c1 - c0), bool)
        full[m.row0 - r0:m.end[0] - r0, m.col0 - c0:m.end[1] - c0] = m.mask
        out.append(full)
    return tuple(out)


def dice(a: np.ndarray, b: np.ndarray) -> float:
    """Dice ``2|A ∩ B| / (|A| + |B|)``; 1.0 when both are empty.

    >>> dice(np.array([1, 1, 0], bool), np.array([1, 0, 0], bool))
    0.6666666666666666
    """
    total = int(a.sum()) + int(b.sum())
    return 1.0 if total == 0 else 2.0 * int((a & b).sum()) / total


def next_click(truth: Placed, predicted: Placed) -> Prompt | None:
    """The next click of the protocol (module docstring), or None when nothing is wrong."""
    from scipy import ndimage

    r0, c0, t, p = frame(truth, predicted)
    fn, fp = t & ~p, p & ~t
    best = None
    for errors, positive in ((fn, True), (fp, False)):
        if not errors.any():
            continue
        dist = ndimage.distance_transform_edt(np.pad(errors, 1))[1:-1, 1:-1]
        at = np.unravel_index(int(np.argmax(dist)), dist.shape)
        if best is None or dist[at] > best[0]:
            best = (float(dist[at]), at, positive)
    if best is None:
        return None
    _, (r, c), positive = best
    return Prompt("point", np.array([[r0 + r + 0.5, c0 + c + 0.5]]), positive)


def click_session(truth: Placed, segment: Callable[[list[Prompt]], Placed], *,
                  max_clicks: int = MAX_CLICKS, target: float = TARGET,
                  stop: bool = True) -> Session:
    """Run the standard clicker against ``segment`` (assist prompts → relaxed mask).

    ``stop``: stop at the first click that reaches ``target`` (NoC needs no more). The
    session's ``noc`` is that click's number, or ``max_clicks`` when never reached.
    """
    prompts: list[Prompt] = []
    scores: list[float] = []
    predicted = Placed(np.zeros((0, 0), bool), truth.row0, truth.col0)
    noc = None
    while len(prompts) < max_clicks:
        click = next_click(truth, predicted)
        if click is None:
            break
        prompts.append(click)
        predicted = segment(list(prompts))
        _, _, t, p = frame(truth, predicted)
        scores.append(dice(t, p))
        if noc is None and scores[-1] >= target:
            noc = len(prompts)
            if stop:
                break
    return Session(tuple(prompts), tuple(scores), noc or max_clicks, noc is not None)


def trace_session(truth: Placed, centreline: np.ndarray,
                  segment: Callable[[list[Prompt]], Placed], *, max_clicks: int = MAX_CLICKS,
                  target: float = 0.80) -> Session:
    """Clicks along a vessel (module docstring). ``centreline``: ``float64 (n, 2)``
    ``(row, col)`` samples in order along the vessel, in the continuous pixel frame. Every
    click is a positive ``"point"`` assist prompt; ``segment`` gets them in vessel order."""
    line = np.asarray(centreline, dtype=np.float64)
    order = [0, len(line) - 1]
    scores: list[float] = []
    prompts: list[Prompt] = []
    while len(order) <= max_clicks:
        prompts = [Prompt("point", line[i:i + 1]) for i in sorted(order)]
        predicted = segment(prompts)
        _, _, t, p = frame(truth, predicted)
        scores.append(dice(t, p))
        if scores[-1] >= target or len(order) == max_clicks:
            break
        near = _worst_traced(line, predicted)
        if near is None:
            click = next_click(truth, predicted)
            if click is None:
                break
            near = int(np.argmin(np.hypot(*(line - click.points[0]).T)))
        if near in order:  # the error is not the path: nothing a trace click can add
            break
        order.append(near)
    reached = bool(scores) and scores[-1] >= target
    return Session(tuple(prompts), tuple(scores), len(order) if reached else max_clicks,
                   reached)


def _worst_traced(line: np.ndarray, predicted: Placed) -> int | None:
    """The centreline sample farthest from the traced tube (more than 1 px away), or None."""
    from scipy import ndimage

    m = predicted.mask
    idx = np.floor(line - (predicted.row0, predicted.col0)).astype(int)
    inside = ((idx >= 0) & (idx < m.shape)).all(axis=1) if m.size else np.zeros(len(line), bool)
    if not m.any():
        return len(line) // 2
    dist = ndimage.distance_transform_edt(np.pad(~m, 1, constant_values=True))[1:-1, 1:-1]
    far = np.full(len(line), np.inf)
    far[inside] = dist[idx[inside, 0], idx[inside, 1]]
    k = int(np.argmax(far))
    return k if far[k] > 1.0 else None


def manual_session(truth: Placed, *, target: float = TARGET, max_vertices: int = 2000
                   ) -> ManualSession:
    """The simulated manual annotator (module docstring)."""
    from skimage.measure import find_contours

    from slicereview.engines.masks import polygon_mask

    m = np.pad(truth.mask, 1)
    rings = [c[:-1] + (truth.row0 - 0.5, truth.col0 - 0.5)
             for c in find_contours(m.astype(np.float32), 0.5, fully_connected="high")
             if len(c) > 3]
    if not rings:
        return ManualSession((), 0, 1.0 if not truth.mask.any() else 0.0, not truth.mask.any())
    rings.sort(key=lambda r: -abs(_area(r)))  # the outer contour of the largest part first
    shape = truth.mask.shape
    chosen: list[list[int]] = []
    used = 0
    score = 0.0

    def current() -> float:
        drawn = np.zeros(shape, bool)
        for ring, idx in zip(rings, chosen, strict=False):
            xy = ring[sorted(idx)][:, ::-1] - (truth.col0, truth.row0)
            drawn ^= polygon_mask(xy, shape)
        return dice(drawn, truth.mask)

    for ring in rings:
        idx = _initial(ring)
        chosen.append(idx)
        used += len(idx)
        score = current()
        while score < target and used < max_vertices:
            far, gap = _farthest(ring, sorted(idx))
            if gap <= 0.5:
                break
            idx.append(far)
            used += 1
            score = current()
        if score >= target or used >= max_vertices:
            break
    outlines = tuple(ring[sorted(i)][:, ::-1].copy() for ring, i in zip(rings, chosen,
                                                                        strict=False))
    return ManualSession(outlines, used, score, score >= target)


def _area(ring: np.ndarray) -> float:
    r, c = (ring - ring[0]).T
    return float(0.5 * (np.dot(c, np.roll(r, -1)) - np.dot(r, np.roll(c, -1))))


def _initial(ring: np.ndarray) -> list[int]:
    """Three vertices of ``ring`` far apart: the first point, the farthest from it, and the
    farthest from the chord between them."""
    far = int(np.argmax(np.hypot(*(ring - ring[0]).T)))
    d = _segment_distance(ring, ring[0], ring[far])
    d[[0, far]] = -1
    return sorted({0, far, int(np.argmax(d))})


def _farthest(ring: np.ndarray, idx: Sequence[int]) -> tuple[int, float]:
    """The contour point farthest from the polygon of vertices ``idx`` (each point measured
    against the polygon edge that spans it along the contour), and its distance."""
    best, best_d = 0, -1.0
    n = len(ring)
    for a, b in zip(idx, list(idx[1:]) + [idx[0] + n], strict=True):
        span = np.arange(a + 1, b) % n
        if len(span) == 0:
            continue
        d = _segment_distance(ring[span], ring[a % n], ring[b % n])
        k = int(np.argmax(d))
        if d[k] > best_d:
            best, best_d = int(span[k]), float(d[k])
    return best, best_d


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(((p - a) @ ab) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
    return np.hypot(*(p - (a + t[:, None] * ab)).T)
