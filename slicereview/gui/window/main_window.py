"""The main window: project browser (left), a page per job (centre), status bar.

The centre is a tab widget. "View" (the image viewer) is always there; the Annotate, Rate,
Review and Overview pages follow, built when first shown or used (:class:`~.pages.Pages`,
:mod:`slicereview.gui.window.tabs`: about 0.6 s less start-up). Without an open project the
centre shows a start page.

The window is composed of parts, each holding a typed reference to what it needs: the menus
(:class:`~.file_actions.FileMenu`, :class:`~.pacs_actions.PacsImport`,
:class:`~.qa_actions.PackageMenu`, :class:`~.view_actions.ViewMenu`,
:class:`~.owner_menu.OwnerMenu`) and the pages (:class:`~.pages.Pages`). Every menu action
``name`` of :data:`~slicereview.gui.common.shortcuts.MAIN_ACTIONS` is answered by the part whose
``slots()`` names it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.qa.package_info import window_title
from slicereview.app.undo import BUSY_MESSAGE
from slicereview.engines.imaging.display import WindowPreset
from slicereview.engines.imaging.windowing import volume_auto_window
from slicereview.gui.common import settings as user_settings
from slicereview.gui.common.browser import ProjectBrowser
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.polygon_items import set_scheme
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.gateway.sharing import SharingBanner
from slicereview.gui.window.actions import FILE_ACTIONS, PROJECT_ACTIONS, create_actions
from slicereview.gui.window.file_actions import FileMenu
from slicereview.gui.window.owner_menu import OwnerMenu
from slicereview.gui.window.pacs_actions import PacsImport
from slicereview.gui.window.pages import Pages
from slicereview.gui.window.qa_actions import PackageMenu
from slicereview.gui.window.start_page import StartPage
from slicereview.gui.window.tabs import PageTabs
from slicereview.gui.window.view_actions import ViewMenu
from slicereview.model import Image
from slicereview.store.location import is_server

if TYPE_CHECKING:
    from slicereview.gui.annotate.page import AnnotatePage
    from slicereview.gui.overview.page import OverviewPage
    from slicereview.gui.rate.page import RatePage
    from slicereview.gui.review.page import ReviewPage


#: The Images dock's narrowest useful width (px): a saved narrower one is not restored.
BROWSER_MIN_WIDTH = 220
#: A new window's size (px); the first start makes it smaller on a smaller screen
#: (:func:`fitting_size`, :meth:`MainWindow.restore_layout`).
DEFAULT_SIZE = (1400, 900)
#: Room (px) left for the window frame and title bar when the screen is smaller.
FRAME = (16, 48)


def fitting_size(available: tuple[int, int]) -> tuple[int, int]:
    """The size of a new window on a screen with ``available`` (width, height) pixels free:
    :data:`DEFAULT_SIZE`, or the screen less :data:`FRAME` when that is smaller (a 1400 px
    window on a 1280 × 800 screen hid the side panel's right edge).

    >>> fitting_size((1920, 1080)), fitting_size((1280, 800))
    ((1400, 900), (1264, 752))
    """
    return (min(DEFAULT_SIZE[0], available[0] - FRAME[0]),
            min(DEFAULT_SIZE[1], available[1] - FRAME[1]))


class MainWindow(QMainWindow):
    def __init__(self, *, remember: bool = True) -> None:
        """``remember=False`` (``open --screenshot``) leaves the user's settings alone: no
        recent project and no window layout is written."""
        super().__init__()
        self.remember = remember
        self.setWindowTitle("slicereview")
        self.gateway = ProjectGateway(self)
        self._current_image: Image | None = None
        self._volume_autos: dict[tuple[int, int | None], WindowPreset | None] = {}
        self._busy_shown = BUSY_MESSAGE  # (what a retrying write shows in the status bar)

        self.viewer = ImageView()
        self.tabs = PageTabs()
        self.tabs.setObjectName("tabs")
        self.tabs.addTab(self.viewer, "View")
        self.browser = ProjectBrowser()
        self.image_label = QLabel()
        self.pages = Pages(self)  # the job pages' tabs, built on first need
        self.file_menu = FileMenu(self)
        self.pacs = PacsImport(self)
        self.packages = PackageMenu(self)
        self.view_menu = ViewMenu(self)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.start_page = StartPage(self)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start_page)
        self.stack.addWidget(self.tabs)
        self.sharing_banner = SharingBanner(self.gateway.watch)  # another instance has it open
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.sharing_banner)
        column.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        self.browser.decoded = self.gateway.cache.peek
        self.browser.check = self.gateway.files.check
        self.browser.image_selected.connect(self.show_image)
        self.browser_dock = QDockWidget("Images", self)
        self.browser_dock.setObjectName("browser_dock")
        self.browser_dock.setWidget(self.browser)
        self.browser_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                      | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.browser_dock)

        self.cursor_label = QLabel()
        self.statusBar().addWidget(self.image_label, 1)
        self.statusBar().addPermanentWidget(self.cursor_label)
        self.viewer.cursor_info.connect(self.cursor_label.setText)
        self.viewer.slice_requested.connect(self._on_slice_requested)

        self.actions_ = create_actions(self)
        slots = {**self.file_menu.slots(), **self.pacs.slots(), **self.packages.slots(),
                 **self.view_menu.slots()}
        for name, action in self.actions_.items():
            action.triggered.connect(slots[name])
        self._build_menus()
        self.gateway.project_opened.connect(self._on_project_opened)
        self.gateway.project_busy.connect(self._on_project_busy)
        self.gateway.reconnecting.connect(lambda text: self.statusBar().showMessage(text, 3000))
        self.gateway.ask_retry = self._ask_retry
        self.gateway.project_closed.connect(self._on_project_closed)
        self.gateway.images_changed.connect(self.refresh_images)
        self.gateway.missing_found.connect(self._on_missing_found)
        self._on_project_closed()
        self.resize(*DEFAULT_SIZE)

    # -- the pages -----------------------------------------------------------------------------
    @property
    def annotate_page(self) -> AnnotatePage:
        return self.pages.annotate

    @property
    def rate_page(self) -> RatePage:
        return self.pages.rate

    @property
    def review_page(self) -> ReviewPage:
        return self.pages.review

    @property
    def overview_page(self) -> OverviewPage:
        return self.pages.overview

    # -- menus -----------------------------------------------------------------------------
    def _build_menus(self) -> None:
        a = self.actions_
        file_menu = self.menuBar().addMenu("&File")
        for name in ("new_project", "open_project", "connect_server", "open_demo"):
            file_menu.addAction(a[name])
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addSeparator()
        for name in FILE_ACTIONS:
            file_menu.addAction(a[name])
        file_menu.addSeparator()
        file_menu.addAction(a["close_project"])
        file_menu.addAction(a["quit"])
        view_menu = self.menuBar().addMenu("&View")
        for item in ("fit", "actual_size", "zoom_in", "zoom_out", None, "auto_window", "invert",
                     "brighter", "darker", "more_contrast", "less_contrast", None, "next_image",
                     "previous_image", "next_slice", "previous_slice"):
            if item is None:
                view_menu.addSeparator()
            else:
                view_menu.addAction(a[item])
        view_menu.addSeparator()
        self.colour_blind_action = view_menu.addAction("Colour-blind safe polygon colours")
        self.colour_blind_action.setObjectName("colour_blind")
        self.colour_blind_action.setCheckable(True)
        self.colour_blind_action.setToolTip("Certain orange, uncertain sky blue (Okabe–Ito) "
                                            "instead of red and green; outlines stay solid "
                                            "and dashed")
        self.colour_blind_action.setChecked(user_settings.colour_scheme() != "standard")
        self.colour_blind_action.toggled.connect(self.set_colour_blind)
        self.set_colour_blind(self.colour_blind_action.isChecked(), remember=False)
        self.addActions(list(a.values()))  # shortcuts work wherever the focus is
        self.owner_menu = OwnerMenu(self)  # Owner ▸ batches, gold and onboarding, guidelines
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(a["shortcuts"])
        help_menu.addAction(a["about"])

    def set_colour_blind(self, on: bool, *, remember: bool = True) -> None:
        """Switch the polygon colours (View menu; remembered) and redraw what is shown."""
        name = "colour-blind safe" if on else "standard"
        set_scheme(name)
        if remember:
            user_settings.remember_colour_scheme(name)
        if not self.pages.annotate_tab.built:
            return  # built later in the scheme set now
        page = self.pages.annotate
        page.tool.restyle()
        page.status.show()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in user_settings.recent_projects():
            action = self.recent_menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_project(p))
        for url in user_settings.recent_servers():
            action = self.recent_menu.addAction(url)
            action.triggered.connect(lambda _=False, u=url: self.file_menu.open_server(u))
        if not self.recent_menu.actions():
            self.recent_menu.addAction("(none)").setEnabled(False)

    def _on_tab_changed(self, index: int) -> None:
        """Hide the image list on pages that set ``hides_browser`` (rating: file names and
        thumbnails of other images would bias the rater); show it elsewhere."""
        page = self.tabs.widget(index)  # a lazy tab knows the flag before its page exists
        if self.gateway.is_open:
            self.browser_dock.setVisible(not getattr(page, "hides_browser", False))
        self.pages.update_image_label()

    def show_in_view(self, image_id: int) -> None:
        """Switch to the View tab and show ``image_id`` (selected in the image list)."""
        self.tabs.setCurrentWidget(self.viewer)
        self.browser.select(image_id)
        if self.browser.current_id() != image_id:  # hidden by a filter
            self.show_image(image_id)

    # -- project ---------------------------------------------------------------------------
    def open_project(self, location: Path | str) -> bool:
        """Open a project file or a server project (a ``postgresql://`` URL: as *File ▸
        Connect to server…* does, asking for a password when the server wants one; then
        ``False`` until it is typed)."""
        if is_server(location):
            return self.file_menu.open_server(str(location))
        try:
            project = self.gateway.open(location)
        except Exception as exc:
            QMessageBox.critical(self, "Cannot open project", str(exc))
            return False
        if self.remember and project.path is not None:  # recent files: files only
            user_settings.add_recent_project(project.path)  # a package's unpacked one
        return True

    def _on_project_busy(self, message: str) -> None:
        """Another program holds the file: say so while the write retries (app/undo.py)."""
        if message:
            self.statusBar().showMessage(message)
            self._busy_shown = message
        elif self.statusBar().currentMessage() in (BUSY_MESSAGE, self._busy_shown):
            self.statusBar().clearMessage()

    def _ask_retry(self, message: str) -> bool:
        buttons = QMessageBox.StandardButton.Retry | QMessageBox.StandardButton.Cancel
        answer = QMessageBox.warning(self, "Project file busy", message, buttons)
        return answer == QMessageBox.StandardButton.Retry

    def _on_project_opened(self, path: str) -> None:
        project = self.gateway.open_project
        self.setWindowTitle(window_title(project))  # a work package says whose it is
        self.stack.setCurrentWidget(self.tabs)
        self._on_tab_changed(self.tabs.currentIndex())
        for name in PROJECT_ACTIONS:
            self.actions_[name].setEnabled(True)
        self.refresh_images()
        self.gateway.find_missing_files()

    def _on_missing_found(self, missing: list[str]) -> None:
        if missing:
            self.statusBar().showMessage(
                f"{len(missing)} image file(s) not found — use File ▸ Relink moved files…")

    def _on_project_closed(self) -> None:
        """Also when another project is opened over this one: nothing of it stays shown."""
        self.setWindowTitle("slicereview")
        self._current_image = None  # the next project shows its first image
        self._volume_autos.clear()
        self.pages.review_text = ""
        self.pages.show_browser_image("")
        self.viewer.clear()
        self.browser.set_images(None)
        self.start_page.refresh()
        self.stack.setCurrentWidget(self.start_page)
        self.browser_dock.hide()
        for name in PROJECT_ACTIONS:
            self.actions_[name].setEnabled(False)

    def refresh_images(self) -> None:
        """The image list shows the project's images (read as they come into sight)."""
        self.gateway.refresh_locations()
        self.browser.limits = self.gateway.limits
        self.browser.set_images(self.gateway)
        ids = self.browser.image_ids()
        if ids and self._current_image is None:
            self.browser.select(ids[0])

    def show_image(self, image_id: int, *, keep_view: bool = False) -> bool:
        """Decode (or take from the cache) and show one image; errors go to the status bar."""
        if not self.gateway.is_open:
            return False
        image = self.gateway.image(image_id)
        try:
            display = self.gateway.display(image)
        except Exception as exc:
            if self.pacs.login(image, exc):  # a PACS asked for credentials: ask the user
                return self.show_image(image_id, keep_view=keep_view)
            self.pages.show_browser_image(f"{image.case_id}: cannot show this image — {exc}")
            self.viewer.clear()
            return False
        previous, self._current_image = self._current_image, image
        # Scrolling through a volume keeps zoom and window (no brightness jump per slice).
        same_volume = (previous is not None and image.is_slice and previous.is_slice
                       and (previous.source_id, previous.axis) == (image.source_id, image.axis))
        slices = self.gateway.volume_images(image)
        self.viewer.set_image(display, keep_view=keep_view or same_volume,
                              auto=self._volume_auto(image, slices))
        positions = [s.id for s in slices]
        self.viewer.set_slices(len(slices), positions.index(image.id) if slices else 0)
        # the tooltip: e.g. pixels that were not finite
        self.pages.show_browser_image(f"{image.case_id}   {display.description}",
                                      display.warning)
        return True

    def _volume_auto(self, image: Image, slices: list[Image]) -> WindowPreset | None:
        """One automatic window per volume (cached): steady brightness while scrolling."""
        if not slices:
            return None
        key = (image.source_id, image.axis)
        if key not in self._volume_autos:
            self._volume_autos[key] = volume_auto_window(
                slices, lambda s: self.gateway.display(s).data)
        return self._volume_autos[key]

    def _on_slice_requested(self, position: int) -> None:
        if self._current_image is None:
            return
        slices = self.gateway.volume_images(self._current_image)
        if 0 <= position < len(slices):
            self.browser.select(slices[position].id)
            if self.browser.current_id() != slices[position].id:  # hidden by a filter
                self.show_image(slices[position].id, keep_view=True)

    # -- close -----------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        """Crash-safe close: every edit is already committed; stop workers, close the file."""
        self.file_menu.stop()
        self.packages.stop()
        if self.pages.overview_tab.built:
            self.pages.overview.stop_workers()
        if self.remember:
            s = user_settings.settings()
            s.setValue("main_window/geometry", self.saveGeometry())
            s.setValue("main_window/state", self.saveState())
        self.gateway.close()
        super().closeEvent(event)

    def restore_layout(self) -> None:
        s = user_settings.settings()
        geometry = s.value("main_window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)  # (Qt keeps its corner on the screen, not its size)
        free = self.screen().availableGeometry()
        larger = (self.width() > free.width() - FRAME[0]
                  or self.height() > free.height() - FRAME[1])
        if geometry is None or (larger and not (self.isMaximized() or self.isFullScreen())):
            # the first start, or a size saved on a larger screen: the default size, or the
            # screen's on a smaller one
            self.resize(*fitting_size((free.width(), free.height())))
            if geometry is not None:
                self.move(free.topLeft())
        state = s.value("main_window/state")
        if state is not None:
            self.restoreState(state)
        if self.browser_dock.width() < BROWSER_MIN_WIDTH:  # squeezed by a too-wide session
            self.resizeDocks([self.browser_dock], [BROWSER_MIN_WIDTH], Qt.Orientation.Horizontal)
