"""How much work the objects of :mod:`.assist_objects` take: with an assisted tool, by hand.

The measurements of docs/performance.md, "Assisted annotation", and of its tests: NoC@90 of a
tool driven by the standard clicker (:func:`.clicker.click_session`), clicks of a tracer
(:func:`.clicker.trace_session`), vertices of the simulated manual annotator
(:func:`.clicker.manual_session`). Dice is taken on the relaxed mask (certain ∪ uncertain).

Example
-------
>>> import numpy as np
>>> from slicereview.demo.assist_effort import noc
>>> from slicereview.demo.assist_objects import TruthObject
>>> from slicereview.demo.clicker import Placed
>>> image = np.zeros((80, 80), np.uint16); image[20:50, 30:60] = 1000
>>> square = TruthObject("square", image, Placed(np.ones((30, 30), bool), 20, 30))
>>> noc([square], "wand", smoothing=0, margin=0)
[1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from slicereview.demo.assist_objects import TruthObject
from slicereview.demo.clicker import (
    Placed,
    Session,
    click_session,
    manual_session,
    trace_session,
)
from slicereview.engines.assist import AssistResult, Prompt, assist


def relaxed(result: AssistResult) -> Placed:
    """The relaxed mask of a result, placed where its crop is."""
    return Placed(result.labels > 0, result.crop[0], result.crop[1])


def segmenter(obj: TruthObject, tool: str, **settings: object
              ) -> Callable[[list[Prompt]], Placed]:
    """Assist prompts → the relaxed mask ``tool`` gives on the object's image."""
    def run(prompts: list[Prompt]) -> Placed:
        return relaxed(assist(obj.image, prompts, tool=tool, **settings))
    return run


def sessions(objects: Sequence[TruthObject], tool: str = "points", **settings: object
             ) -> list[Session]:
    """One standard clicker session per object."""
    return [click_session(o.truth, segmenter(o, tool, **settings)) for o in objects]


def noc(objects: Sequence[TruthObject], tool: str = "points", **settings: object) -> list[int]:
    """NoC@90 per object."""
    return [s.noc for s in sessions(objects, tool, **settings)]


def trace_clicks(objects: Sequence[TruthObject], target: float = 0.8, **settings: object
                 ) -> list[Session]:
    """One tracer session per tube (objects with a centreline) with the ``trace`` tool."""
    out = []
    for o in objects:
        if o.centreline is None:
            raise ValueError(f"{o.name} has no centreline to trace.")
        out.append(trace_session(o.truth, o.centreline, segmenter(o, "trace", **settings),
                                 target=target))
    return out


def manual_vertices(objects: Sequence[TruthObject]) -> list[int]:
    """Vertices the simulated manual annotator places per object to reach Dice 0.90."""
    return [manual_session(o.truth).vertices for o in objects]
