"""Assisted annotation: certain/uncertain outlines from clicks, strokes, a box or a trace.

One entry point drives every *assisted tool* the same way, from the GUI, a script or a
benchmark::

    from slicereview.engines.assist import Prompt, assist
    result = assist(image, prompts, tool="points", **settings)

``image`` is ``(rows, cols)`` of raw pixel values, any integer or float dtype, or RGB
``(rows, cols, 3)`` (used as luminance); ``prompts`` a sequence of :class:`Prompt` (*assist
prompts*: ``"point"``, ``"scribble"``, ``"box"``, ``"polygon"``, each positive or negative,
``(row, col)`` in the continuous pixel frame of docs/design.md, "Conventions"). The result
(:class:`AssistResult`) has ``certain`` and ``uncertain`` (disjoint ``bool (rows, cols)``),
``polygons`` (``(certain, vertices (n, 2) (row, col))``; :func:`model_polygons` swaps them to
the ``(x, y)`` of :class:`slicereview.model.Polygon`), ``probability`` (``float32`` on
``result.crop``, or ``None``) and ``labels`` (the crop's label image).

The tools (:data:`TOOLS`; each module documents its method, settings and defaults):

========== ============================ ===================================================
tool       assist prompts               method
========== ============================ ===================================================
points     positive/negative points     :mod:`.points`
scribble   positive/negative scribbles  random walker probabilities [Grady2006]
box        one box (+ points/scribbles) GrabCut [Rother2004]
trace      two or more points, in order minimal path on a vesselness cost [Frangi1998]
wand       one or more positive points  flood fill within a tolerance
refine     one polygon                  the outline snapped to nearby edges
========== ============================ ===================================================

Settings every tool takes: ``invert`` (False; True shows MONOCHROME1 as displayed),
``window`` (``None``: the crop's 0.5–99.5 percentiles; or ``(low, high)`` in raw units),
``simplify`` (1.0 px: the polygons' simplification tolerance). Every tool works on a crop around its
assist prompts, never on the whole image (:mod:`.pixels`). Bad assist prompts or settings
raise ``ValueError`` with one sentence saying what is wrong.

Nothing heavy is imported with this package: scikit-image, SciPy, OpenCV and shapely are
imported by the tool that needs them, when it runs.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist import Prompt, assist
>>> image = np.zeros((60, 80), np.uint16); image[20:40, 30:50] = 1000
>>> r = assist(image, [Prompt("point", [[30.5, 40.5]])], tool="wand", smoothing=0)
>>> int(r.certain.sum()), int(r.uncertain.sum()), len(r.polygons), r.crop
(400, 0, 1, (0, 0, 60, 80))
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from slicereview.engines.assist.outline import label_outlines, model_polygons, outlines
from slicereview.engines.assist.pixels import check_image
from slicereview.engines.assist.prompts import Prompt, point, polygon_prompt
from slicereview.engines.assist.result import AssistResult

__all__ = ["TOOLS", "AssistResult", "Prompt", "assist", "label_outlines", "model_polygons",
           "outlines", "point", "polygon_prompt", "settings_of"]

#: The assisted tools, in toolbar order: name → module (each has a function of its name).
TOOLS: dict[str, str] = {
    "points": "slicereview.engines.assist.points",
    "scribble": "slicereview.engines.assist.scribble",
    "box": "slicereview.engines.assist.box",
    "trace": "slicereview.engines.assist.trace",
    "wand": "slicereview.engines.assist.wand",
    "refine": "slicereview.engines.assist.refine",
}


def _tool(name: str) -> Any:
    if name not in TOOLS:
        raise ValueError(f"There is no assisted tool {name!r}; the tools are "
                         f"{', '.join(TOOLS)}.")
    return getattr(importlib.import_module(TOOLS[name]), name)


def settings_of(tool: str) -> dict[str, object]:
    """The settings of ``tool`` and their defaults.

    >>> settings_of("wand")["simplify"]
    1.0
    """
    sig = inspect.signature(_tool(tool))
    return {k: p.default for k, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY}


def assist(image: np.ndarray, prompts: Sequence[Prompt], tool: str = "points",
           **settings: object) -> AssistResult:
    """Run the assisted ``tool`` on ``image`` with ``prompts`` and ``settings``.

    Parameters
    ----------
    image
        ``(rows, cols)`` raw pixel values (any integer, boolean or float dtype) or RGB(A)
        ``(rows, cols, 3|4)``. Never copied whole: only the tool's crop is read.
    prompts
        The assist prompts (:class:`Prompt`), in the order they were given.
    tool
        One of :data:`TOOLS`.
    **settings
        The tool's keyword settings (:func:`settings_of`; each tool's docstring).

    Returns
    -------
    AssistResult

    Raises
    ------
    ValueError
        An unknown tool or setting, an image that is not 2-D or RGB, or assist prompts the
        tool cannot use.
    """
    fn = _tool(tool)
    known = settings_of(tool)
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise ValueError(f"The {tool} tool has no setting {unknown[0]!r}; its settings are "
                         f"{', '.join(sorted(known))}.")
    arr = check_image(image)
    items = list(prompts)
    if not all(isinstance(p, Prompt) for p in items):
        raise ValueError("Assist prompts must be Prompt values.")
    result: AssistResult = fn(arr, items, **settings)
    return result
