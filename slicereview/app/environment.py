"""Can a window be shown here? Checked before the GUI starts (and before the demo is built).

Qt-free, so the CLI can ask it; :mod:`slicereview.gui.application` asks it too. Besides a
display, a window on X11 needs the system libraries of Qt's xcb plugin
(:mod:`slicereview.app.platform_check`).

Example
-------
>>> no_display_reason(screenshot=Path("out.png")) is None   # a PNG needs no display
True
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: Qt platforms that show no window to anybody.
_INVISIBLE_PLATFORMS = frozenset({"offscreen", "minimal", "minimalegl"})
_HOW = ("run it in a desktop session or over `ssh -X`, under a virtual display "
        "(`xvfb-run slicereview ...`), or render a PNG with --screenshot FILE")


class NoDisplayError(OSError):
    """The GUI was asked to show a window where nobody can see it."""


def no_display_reason(screenshot: Path | None = None) -> str | None:
    """Why a window could not be shown here (with what to do), or None if it can.

    ``--screenshot`` needs no display. An explicit ``QT_QPA_PLATFORM`` is trusted unless it is
    an invisible platform (``offscreen``, ``minimal``); otherwise on X11/Wayland systems
    ``DISPLAY`` or ``WAYLAND_DISPLAY`` must be set (Windows and macOS always have a display).
    Where Qt will use its X11 plugin, the system libraries it links must be installed: the
    reason then names the missing ones and the packages to install.
    """
    if screenshot is not None:
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if platform in _INVISIBLE_PLATFORMS:
        return f"no display: QT_QPA_PLATFORM={platform} shows no window; unset it and {_HOW}"
    if sys.platform in ("win32", "darwin"):
        return None
    if not platform and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return f"no display found (DISPLAY and WAYLAND_DISPLAY are not set): {_HOW}"
    from slicereview.app.platform_check import missing_libraries_reason  # xcb on Linux only

    return missing_libraries_reason()
