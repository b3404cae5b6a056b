"""Linking the window/level of two viewers *relatively* (the comparison view's two images).

:class:`RelativeWindowLink` carries a window from one
:class:`~slicereview.gui.common.image_view.ImageView` to another through each image's own
automatic window (:func:`~slicereview.engines.imaging.windowing.relative_window`): the same
place and width in each image's value range, never the same values, so a 12-bit and a 14-bit
mammogram stay equally bright and contrasted (docs/rate.md).
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker

from slicereview.engines.imaging.display import DisplayImage, WindowPreset
from slicereview.engines.imaging.windowing import relative_window
from slicereview.gui.common.image_view import ImageView


class RelativeWindowLink:
    """Carries windows between viewers relatively (see the module docstring)."""

    def __init__(self) -> None:
        #: Per view, the image shown and its automatic window (computed once per image).
        self._references: dict[int, tuple[DisplayImage, WindowPreset]] = {}

    def reference(self, view: ImageView) -> WindowPreset:
        """``view``'s automatic window, what the link is relative to (it shows an image)."""
        display = view.display
        assert display is not None
        cached = self._references.get(id(view))
        if cached is None or cached[0] is not display:
            cached = (display, display.auto_window())
            self._references[id(view)] = cached
        return cached[1]

    def carry(self, source: ImageView, target: ImageView) -> None:
        """Give ``target`` the window of ``source``, relatively; nothing when either shows no
        image. ``target`` does not echo the change back (its signals are blocked)."""
        if source.display is None or target.display is None:
            return
        window = relative_window(source.current_window, self.reference(source),
                                 self.reference(target))
        blocker = QSignalBlocker(target)
        try:
            target.set_window(window.center, window.width)
        finally:
            blocker.unblock()
