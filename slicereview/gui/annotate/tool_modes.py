"""The drawing tool's modes and its hit tolerances (screen pixels), shared by the tool
(:mod:`.draw_tool`) and its gestures."""

from __future__ import annotations

from enum import Enum

#: Hit tolerance for vertices, edges and closing a polygon, in screen pixels.
HIT_PX = 7.0
#: A press that moves less than this (screen pixels) before release is a click, not a drag.
CLICK_PX = 4.0
#: Freehand strokes are simplified with this tolerance in screen pixels.
FREEHAND_TOLERANCE_PX = 1.0


class Mode(str, Enum):
    POLYGON = "polygon"
    FREEHAND = "freehand"
    EDIT = "edit"
    BRUSH = "brush"
    ERASER = "eraser"
    POINTS, SCRIBBLE, BOX = "points", "scribble", "box"
    TRACE, WAND, REFINE = "trace", "wand", "refine"
