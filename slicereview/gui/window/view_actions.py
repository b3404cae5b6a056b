"""The main window's View and Help menu actions (a mixin of
:class:`~slicereview.gui.window.main_window.MainWindow`): zoom, window/level keys, stepping through
images and slices, the keyboard-shortcut list and About. They act on the image views of the
current tab (:meth:`ViewActions.active_views`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox

from slicereview import __version__
from slicereview.gui.common.image_view import ImageView

ABOUT = f"""<h3>slicereview {__version__}</h3>
<p>Rate, annotate and review medical images.</p>
<p>Demo data: 8 mammograms (and 48 crops of them) from the Curated Breast Imaging Subset of
DDSM (CBIS-DDSM;
Sawyer-Lee et al., The Cancer Imaging Archive, 2016, doi:10.7937/K9/TCIA.2016.7O02S9CY),
licensed CC BY 3.0, as packaged by the <i>mammograms</i> Python package; MRI from the
packages named in docs/licences.md.</p>
<p>slicereview is BSD-3-Clause licensed. It uses Qt for Python (LGPL), pyqtgraph, NumPy,
SciPy, scikit-image, pydicom and SimpleITK.</p>"""


class ViewActions:
    """View and Help actions; the window provides ``viewer``, ``browser``, ``tabs``."""

    viewer: Any
    browser: Any
    tabs: Any
    shortcuts_dialog: Any

    def active_views(self) -> list[ImageView]:
        """The image views the View menu acts on: those of the current page.

        A page may define ``image_views() -> list[ImageView]`` (the rating page returns both
        sides of its comparison, the annotation page its drawing view); otherwise the viewer.
        """
        page = self.tabs.currentWidget()
        views = getattr(page, "image_views", None)
        return list(views()) if callable(views) else [self.viewer]

    def on_fit(self) -> None:
        for view in self.active_views():
            view.fit()

    def on_actual_size(self) -> None:
        for view in self.active_views():
            view.actual_size()

    def on_zoom_in(self) -> None:
        for view in self.active_views():
            view.zoom(0.8)

    def on_zoom_out(self) -> None:
        for view in self.active_views():
            view.zoom(1.25)

    def on_invert(self) -> None:
        for view in self.active_views():
            view.set_inverted(not view.invert_box.isChecked())

    def on_auto_window(self) -> None:
        for view in self.active_views():
            view.auto_window()

    def on_brighter(self) -> None:
        for view in self.active_views():
            view.adjust(brightness=+1)

    def on_darker(self) -> None:
        for view in self.active_views():
            view.adjust(brightness=-1)

    def on_more_contrast(self) -> None:
        for view in self.active_views():
            view.adjust(contrast=+1)

    def on_less_contrast(self) -> None:
        for view in self.active_views():
            view.adjust(contrast=-1)

    def on_next_image(self) -> None:
        self.browser.step(+1)

    def on_previous_image(self) -> None:
        self.browser.step(-1)

    def on_next_slice(self) -> None:
        self.viewer.step_slice(+1)

    def on_previous_slice(self) -> None:
        self.viewer.step_slice(-1)

    def on_shortcuts(self) -> None:
        from slicereview.gui.window.shortcuts_dialog import ShortcutsDialog

        if getattr(self, "shortcuts_dialog", None) is None:
            self.shortcuts_dialog = ShortcutsDialog(self)
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.raise_()

    def on_about(self) -> None:
        QMessageBox.about(self, "About slicereview", ABOUT)
