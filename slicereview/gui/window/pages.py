"""The main window's pages — Annotate, Rate, Review, Overview — built on first need.

:class:`LazyPages` is a mixin of :class:`~slicereview.gui.window.main_window.MainWindow` (like
:class:`~slicereview.gui.window.qa_actions.QAActions`). Each page is made by its factory when its
tab is first shown or when code first uses it (``window.annotate_page`` …), see
:mod:`slicereview.gui.window.tabs`; a page built while a project is open starts on that
project (and the Annotate page on the image the browser shows). Building all four when the
window opened cost about 0.6 s of start-up on the test machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from slicereview.gui.window.tabs import LazyTab, PageTabs

if TYPE_CHECKING:
    from slicereview.gui.annotate.page import AnnotatePage
    from slicereview.gui.overview.page import OverviewPage
    from slicereview.gui.rate.page import RatePage
    from slicereview.gui.review.page import ReviewPage


class LazyPages:
    """Lazily built pages of the main window (see the module docstring).

    The status bar's image label names the image on screen: the image list's on the View and
    Annotate tabs, the queue's on the Review tab, none on the Rate and Overview tabs (they
    show no single image of the list)."""

    gateway: Any
    browser: Any
    tabs: PageTabs
    image_label: Any
    browser_image_text = ""
    browser_image_tip = ""
    review_image_text = ""
    _annotate_tab: LazyTab
    _rate_tab: LazyTab
    _review_tab: LazyTab
    _overview_tab: LazyTab

    def add_pages(self) -> None:
        """Add the four tabs after the View tab (pages not built yet)."""
        self._annotate_tab = self.tabs.add_lazy("Annotate", self._build_annotate_page)
        self._rate_tab = self.tabs.add_lazy("Rate", self._build_rate_page, hides_browser=True)
        self._review_tab = self.tabs.add_lazy("Review", self._build_review_page,
                                              hides_browser=True)
        # the report needs the width, and its image lists open in the View tab
        self._overview_tab = self.tabs.add_lazy("Overview", self._build_overview_page,
                                                hides_browser=True)

    @property
    def annotate_page(self) -> AnnotatePage:
        return self._annotate_tab.page  # type: ignore[return-value]

    @property
    def rate_page(self) -> RatePage:
        return self._rate_tab.page  # type: ignore[return-value]

    @property
    def review_page(self) -> ReviewPage:
        return self._review_tab.page  # type: ignore[return-value]

    @property
    def overview_page(self) -> OverviewPage:
        return self._overview_tab.page  # type: ignore[return-value]

    def update_image_label(self) -> None:
        """Name the image shown by the current tab in the status bar (see the class doc)."""
        index = self.tabs.currentIndex()
        tab = self.tabs.widget(index)
        tip = ""
        if tab is self._review_tab:
            text = self.review_image_text
        elif tab in (self._rate_tab, self._overview_tab):
            text = ""
        else:
            text, tip = self.browser_image_text, self.browser_image_tip
        self.image_label.setText(text)
        self.image_label.setToolTip(tip)

    def _on_review_image_shown(self, text: str) -> None:
        self.review_image_text = text
        self.update_image_label()

    def _open_path(self) -> str | None:
        return self.gateway.open_project.describe() if self.gateway.is_open else None

    def _build_annotate_page(self) -> AnnotatePage:
        from slicereview.gui.annotate.page import AnnotatePage

        page = AnnotatePage(self.gateway)
        self.browser.image_selected.connect(page.show_image)
        page.step_requested.connect(self.browser.step)
        page.repeats_box.open_requested.connect(self.browser.select)
        page.statuses_changed.connect(self.browser.set_statuses)
        page.assignments_changed.connect(self.browser.set_assignments)
        path = self._open_path()
        if path is not None:  # what project_opened did for a page built before it
            page._on_project_opened(path)
            page.guideline_notice.refresh()
            current = self.browser.current_id()
            if current is not None:
                page.show_image(current)
        return page

    def _build_rate_page(self) -> RatePage:
        from slicereview.gui.rate.page import RatePage

        return RatePage(self.gateway)  # reads the open project itself

    def _build_review_page(self) -> ReviewPage:
        from slicereview.gui.review.page import ReviewPage

        page = ReviewPage(self.gateway)
        page.image_shown.connect(self._on_review_image_shown)
        path = self._open_path()
        if path is not None:
            page._on_project_opened(path)
        return page

    def _build_overview_page(self) -> OverviewPage:
        """The owner's report; its matrix lists open in the View tab (``show_in_view``)."""
        from slicereview.gui.overview.page import OverviewPage

        page = OverviewPage(self.gateway)
        page.image_requested.connect(self.show_in_view)  # type: ignore[attr-defined]
        if self.gateway.is_open:
            page._on_project_changed()
        return page
