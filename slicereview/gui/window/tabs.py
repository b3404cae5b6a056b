"""The main window's tabs, with pages built the first time they are needed.

Building every page when the window opens cost about half a second of start-up (the Rate
tab's two image views, the Review tab, the Overview tab's seven plots) for pages a user may not
open in that session. :meth:`PageTabs.add_lazy` adds a tab that holds only a
:class:`LazyTab`; the page is made by its factory when the tab is first shown or when code asks
for it (:attr:`LazyTab.page`). A factory must bring a page built while a project is already open
up to date with it (the pages listen to ``project_opened`` only from then on).

:meth:`PageTabs.setCurrentWidget` and :meth:`PageTabs.currentWidget` accept and return the pages
themselves, so callers need not know which tabs are lazy.

Only the shown tab's page counts for the window's minimum size: a stack of pages is as wide as
its widest page, and the window grew to it when another tab was shown (1400 → 1449 px on the
Annotate tab, 800 → 995 px). The hidden tabs' size policy is ``Ignored``
(:meth:`PageTabs._fit_shown`), so the window keeps its width unless the page shown needs more.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QSizePolicy, QTabWidget, QVBoxLayout, QWidget


class LazyTab(QWidget):
    """A tab's stand-in that builds its page with ``factory`` on first need.

    ``hides_browser`` is the page's own flag (the main window reads it from the tab), known
    before the page is built.
    """

    def __init__(self, factory: Callable[[], QWidget], hides_browser: bool = False) -> None:
        super().__init__()
        self._factory = factory
        self._page: QWidget | None = None
        self.hides_browser = hides_browser
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        """Whether the page exists yet."""
        return self._page is not None

    @property
    def page(self) -> QWidget:
        """The page, built now if it was not yet."""
        if self._page is None:
            self._page = self._factory()
            self._column.addWidget(self._page)
        return self._page

    def showEvent(self, event: QShowEvent) -> None:
        self.page  # noqa: B018 - built before it is painted
        super().showEvent(event)


class PageTabs(QTabWidget):
    """A :class:`QTabWidget` whose tabs may be :class:`LazyTab` stand-ins (module doc)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.currentChanged.connect(self._fit_shown)

    def tabInserted(self, index: int) -> None:
        super().tabInserted(index)
        self._fit_shown(self.currentIndex())

    def _fit_shown(self, index: int) -> None:
        """Let only tab ``index`` count for the minimum size (see the module docstring)."""
        for i in range(self.count()):
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            widget = self.widget(i)
            if widget is not None:
                widget.setSizePolicy(policy, policy)

    def add_lazy(self, title: str, factory: Callable[[], QWidget],
                 hides_browser: bool = False) -> LazyTab:
        """Add a tab whose page ``factory()`` builds on first need; returns the stand-in."""
        tab = LazyTab(factory, hides_browser)
        self.addTab(tab, title)
        return tab

    def page_at(self, index: int) -> QWidget | None:
        """The page shown by tab ``index`` (built if it is lazy), or ``None``."""
        widget = self.widget(index)
        return widget.page if isinstance(widget, LazyTab) else widget

    def _holder(self, page: QWidget) -> QWidget:
        for index in range(self.count()):
            widget = self.widget(index)
            if isinstance(widget, LazyTab) and widget.built and widget.page is page:
                return widget
        return page

    def setCurrentWidget(self, widget: QWidget) -> None:
        """Show the tab of ``widget``: a page, a lazy tab's page or its stand-in."""
        super().setCurrentWidget(self._holder(widget))

    # PySide6's stub says QWidget, but Qt returns nullptr (None) when there is no tab.
    def currentWidget(self) -> QWidget | None:  # type: ignore[override]
        """The current page (a lazy tab's page, built if needed)."""
        return self.page_at(self.currentIndex())

    def indexOf(self, widget: QWidget) -> int:
        """The index of the tab showing ``widget`` (a page or a stand-in), or -1."""
        return super().indexOf(self._holder(widget))
