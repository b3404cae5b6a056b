"""The end of a drawn outline: a freehand stroke simplified, then a finished polygon handed to
the page to write, and seen meanwhile.

:func:`hand_over` shows the finished polygon at once -- closed, in its certainty's colour,
painted before anything else runs -- then emits the tool's ``polygon_drawn`` (the page writes
it, which on a loaded machine or a server took 1-3 s while the stroke had already vanished),
and clears the preview when the stored polygon has replaced it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from slicereview.engines import geometry
from slicereview.gui.annotate.tool_modes import FREEHAND_TOLERANCE_PX

if TYPE_CHECKING:
    from slicereview.gui.annotate.draw_tool import DrawTool


def finish_stroke(tool: DrawTool) -> None:
    """The freehand stroke of ``tool`` simplified (Douglas-Peucker [DouglasPeucker1973],
    :func:`slicereview.engines.geometry.simplify`) and handed over, or refused when smaller
    than 3 screen pixels squared."""
    pixel = tool._pixel()
    v = geometry.simplify(tool.unfinished, FREEHAND_TOLERANCE_PX * pixel)
    if len(v) < geometry.MIN_VERTICES or geometry.area(v) < (3 * pixel) ** 2:
        tool._points = []
        tool._refresh_preview()
        tool.message.emit("Stroke too small for a polygon.")
        return
    hand_over(tool, v)


def hand_over(tool: DrawTool, v: np.ndarray) -> None:
    """Show polygon ``v`` (shape ``(n, 2)``) closed and painted now, emit ``polygon_drawn``,
    then clear the preview."""
    tool._points = []
    tool.preview.show_outline(np.vstack([v, v[:1]]), None, tool.draw_certainty)
    tool.view.graphics.viewport().repaint()
    tool.polygon_drawn.emit(v)
    tool._refresh_preview()
