"""The main window's pages — Annotate, Rate, Review, Overview — built on first need
(:class:`Pages`, a part of :class:`~slicereview.gui.window.main_window.MainWindow`).

Each page is made by its factory when its tab is first shown or when code first uses it
(``window.pages.annotate`` …), see :mod:`slicereview.gui.window.tabs`; a page built while a
project is open starts on that project (and the Annotate page on the image the browser shows).
Building all four when the window opened cost about 0.6 s of start-up on the test machine.

The status bar's image label names the image on screen: the image list's on the View and
Annotate tabs, the queue's on the Review tab, none on the Rate and Overview tabs (they show no
single image of the list). The pixel value under the cursor is read out beside it on the View,
Annotate and Review tabs alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from slicereview.gui.window.tabs import LazyTab

if TYPE_CHECKING:
    from slicereview.gui.annotate.page import AnnotatePage
    from slicereview.gui.overview.page import OverviewPage
    from slicereview.gui.rate.page import RatePage
    from slicereview.gui.review.page import ReviewPage
    from slicereview.gui.window.main_window import MainWindow


class Pages:
    """The lazily built pages of ``window`` and the status bar's image label."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.gateway = window.gateway
        #: What the image label says on the View and Annotate tabs, and its tooltip.
        self.browser_text = ""
        self.browser_tip = ""
        #: What it says on the Review tab.
        self.review_text = ""
        tabs = window.tabs
        self.annotate_tab = tabs.add_lazy("Annotate", self._build_annotate)
        self.rate_tab = tabs.add_lazy("Rate", self._build_rate, hides_browser=True)
        self.review_tab = tabs.add_lazy("Review", self._build_review, hides_browser=True)
        # the report needs the width, and its image lists open in the View tab
        self.overview_tab = tabs.add_lazy("Overview", self._build_overview, hides_browser=True)

    @property
    def annotate(self) -> AnnotatePage:
        return cast("AnnotatePage", self.annotate_tab.page)

    @property
    def rate(self) -> RatePage:
        return cast("RatePage", self.rate_tab.page)

    @property
    def review(self) -> ReviewPage:
        return cast("ReviewPage", self.review_tab.page)

    @property
    def overview(self) -> OverviewPage:
        return cast("OverviewPage", self.overview_tab.page)

    def built(self) -> list[LazyTab]:
        return [t for t in (self.annotate_tab, self.rate_tab, self.review_tab,
                            self.overview_tab) if t.built]

    # -- the image label -----------------------------------------------------------------------
    def update_image_label(self) -> None:
        """Name the image shown by the current tab in the status bar (see the module doc)."""
        tabs = self.window.tabs
        tab = tabs.widget(tabs.currentIndex())
        tip = ""
        if tab is self.review_tab:
            text = self.review_text
        elif tab in (self.rate_tab, self.overview_tab):
            text = ""
        else:
            text, tip = self.browser_text, self.browser_tip
        self.window.image_label.setText(text)
        self.window.image_label.setToolTip(tip)
        self.window.cursor_label.setText("")  # the readout belongs to the image shown before

    def show_browser_image(self, text: str, tip: str = "") -> None:
        """The image list's image (View and Annotate tabs) is ``text``."""
        self.browser_text, self.browser_tip = text, tip
        self.update_image_label()

    def _on_review_image_shown(self, text: str) -> None:
        self.review_text = text
        self.update_image_label()

    # -- factories -----------------------------------------------------------------------------
    def _build_annotate(self) -> AnnotatePage:
        from slicereview.gui.annotate.page import AnnotatePage

        browser = self.window.browser
        page = AnnotatePage(self.gateway)
        browser.image_selected.connect(page.show_image)
        page.step_requested.connect(browser.step)
        page.repeats_box.open_requested.connect(browser.select)
        page.statuses_changed.connect(browser.set_statuses)
        page.assignments_changed.connect(browser.set_assignments)
        page.claims_changed.connect(browser.set_claimed)
        page.open_requested.connect(browser.reveal)
        page.view.cursor_info.connect(self.window.cursor_label.setText)  # the pixel readout
        if self.gateway.is_open:  # what project_opened did for a page built before it
            page.on_project_opened()
            current = browser.current_id()
            if current is not None:
                page.show_image(current)
        return page

    def _build_rate(self) -> RatePage:
        from slicereview.gui.rate.page import RatePage

        return RatePage(self.gateway)  # reads the open project itself

    def _build_review(self) -> ReviewPage:
        from slicereview.gui.review.page import ReviewPage

        page = ReviewPage(self.gateway)
        page.image_shown.connect(self._on_review_image_shown)
        page.view.cursor_info.connect(self.window.cursor_label.setText)
        if self.gateway.is_open:
            page.on_project_opened()
        return page

    def _build_overview(self) -> OverviewPage:
        """The owner's report; its matrix lists open in the View tab (``show_in_view``)."""
        from slicereview.gui.overview.page import OverviewPage

        page = OverviewPage(self.gateway)
        page.image_requested.connect(self.window.show_in_view)
        if self.gateway.is_open:
            page.on_project_changed()
        return page
