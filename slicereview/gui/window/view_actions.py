"""The main window's View and Help menu actions (:class:`ViewMenu`, a part of
:class:`~slicereview.gui.window.main_window.MainWindow`): zoom, window/level keys, stepping through
images and slices, the keyboard-shortcut list and About. They act on the image views of the
current tab (:meth:`ViewMenu.active_views`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from slicereview import __version__
from slicereview.gui.common.image_view import ImageView

if TYPE_CHECKING:
    from slicereview.gui.window.main_window import MainWindow
    from slicereview.gui.window.shortcuts_dialog import ShortcutsDialog

ABOUT = f"""<h3>slicereview {__version__}</h3>
<p>Rate, annotate and review medical images.</p>
<p>Demo data: 8 mammograms (and 48 crops of them) from the Curated Breast Imaging Subset of
DDSM (CBIS-DDSM;
Sawyer-Lee et al., The Cancer Imaging Archive, 2016, doi:10.7937/K9/TCIA.2016.7O02S9CY),
licensed CC BY 3.0, as packaged by the <i>mammograms</i> Python package; MRI from the
packages named in docs/licences.md.</p>
<p>slicereview is BSD-3-Clause licensed. It uses Qt for Python (LGPL), pyqtgraph, NumPy,
SciPy, scikit-image, pydicom and SimpleITK.</p>"""


class ViewMenu:
    """View and Help slots of ``window``: they act on the image views of the current page."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.shortcuts_dialog: ShortcutsDialog | None = None

    def slots(self) -> dict[str, Callable[[], object]]:
        names = ("fit", "actual_size", "zoom_in", "zoom_out", "invert", "auto_window",
                 "brighter", "darker", "more_contrast", "less_contrast", "next_image",
                 "previous_image", "next_slice", "previous_slice", "shortcuts", "about")
        return {name: getattr(self, name) for name in names}

    def active_views(self) -> list[ImageView]:
        """The image views the View menu acts on: those of the current page.

        A page may define ``image_views() -> list[ImageView]`` (the rating page returns both
        sides of its comparison, the annotation page its drawing view); otherwise the viewer.
        """
        page = self.window.tabs.currentWidget()
        views = getattr(page, "image_views", None)
        return list(views()) if callable(views) else [self.window.viewer]

    def fit(self) -> None:
        for view in self.active_views():
            view.fit()

    def actual_size(self) -> None:
        for view in self.active_views():
            view.actual_size()

    def zoom_in(self) -> None:
        for view in self.active_views():
            view.zoom(0.8)

    def zoom_out(self) -> None:
        for view in self.active_views():
            view.zoom(1.25)

    def invert(self) -> None:
        for view in self.active_views():
            view.set_inverted(not view.invert_box.isChecked())

    def auto_window(self) -> None:
        for view in self.active_views():
            view.auto_window()

    def brighter(self) -> None:
        for view in self.active_views():
            view.adjust(brightness=+1)

    def darker(self) -> None:
        for view in self.active_views():
            view.adjust(brightness=-1)

    def more_contrast(self) -> None:
        for view in self.active_views():
            view.adjust(contrast=+1)

    def less_contrast(self) -> None:
        for view in self.active_views():
            view.adjust(contrast=-1)

    def next_image(self) -> None:
        self.window.browser.step(+1)

    def previous_image(self) -> None:
        self.window.browser.step(-1)

    def next_slice(self) -> None:
        self.window.viewer.step_slice(+1)

    def previous_slice(self) -> None:
        self.window.viewer.step_slice(-1)

    def shortcuts(self) -> None:
        from slicereview.gui.window.shortcuts_dialog import ShortcutsDialog

        if self.shortcuts_dialog is None:
            self.shortcuts_dialog = ShortcutsDialog(self.window)
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.raise_()

    def about(self) -> None:
        QMessageBox.about(self.window, "About slicereview", ABOUT)
