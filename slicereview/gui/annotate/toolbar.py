"""The Annotate page's actions, its two tool bars and its layout.

* **Actions** (:func:`make_actions`) come from the key table
  (:data:`~slicereview.gui.common.shortcuts.ANNOTATE_ACTIONS`); their shortcuts work while the
  page is shown. The drawing tools (:data:`TOOLS`) are one exclusive group of checkable actions.
* **The tool palette** (:attr:`ToolBars.tools`): a vertical bar left of the image with one
  button per drawing tool, an icon over a short name (:mod:`.tool_icons`). A column holds many
  more tools than a row: eleven fit into the height of a 1280 × 800 screen; below that the
  bar's » button lists the rest.
* **The action bar** (:attr:`ToolBars.actions`) above the image: certainty, delete, undo and
  redo, the brush radius (in image pixels), the overlay, a *Display* menu with the fill
  opacity and outline-only switches, and the *Assist* menu (:mod:`.assist_settings`). Its
  minimum width is small (a » button lists what does
  not fit), so the page never makes the window wider.

The page lays them out with :func:`lay_out` (``tests/gui/annotate/test_toolbar.py`` checks
that everything is shown whole at 1280 × 800 and 1920 × 1080).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMenu,
    QScrollArea,
    QSpinBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.annotate.draw_tool import DrawTool
from slicereview.gui.annotate.tool_icons import tool_icon
from slicereview.gui.common.history_actions import HistoryActions
from slicereview.gui.common.shortcuts import (
    ANNOTATE_ACTIONS,
    ANNOTATE_REDO,
    ANNOTATE_UNDO,
    sequences,
)

#: The drawing tools: checkable, one at a time, each a mode of the drawing tool.
TOOLS = ("polygon", "freehand", "edit", "brush", "eraser", "points", "scribble", "box",
         "trace", "wand", "refine")
#: Display switches (checkable, independent).
SWITCHES = ("overlay", "outline")
#: The brush radius box's range, image pixels.
RADIUS_RANGE = (1, 500)


def make_actions(parent: QWidget) -> tuple[dict[str, QAction], HistoryActions]:
    """The page's actions with their shortcuts (active while the page is shown), and its Undo
    and Redo (they follow the undo history of the annotation shown)."""
    actions: dict[str, QAction] = {}
    modes = QActionGroup(parent)
    for name, text, keys, tip in ANNOTATE_ACTIONS:
        action = QAction(text, parent)
        shortcuts = sequences(keys)
        action.setShortcuts(shortcuts)
        action.setToolTip(f"{tip} ({shortcuts[0].toString()})")
        action.setObjectName(f"annotate_{name}")
        if name in TOOLS or name in SWITCHES:
            action.setCheckable(True)
        if name in TOOLS:
            action.setIcon(tool_icon(name))
            modes.addAction(action)
        parent.addAction(action)
        actions[name] = action
    actions["polygon"].setChecked(True)
    actions["overlay"].setChecked(True)
    history = HistoryActions(parent, ANNOTATE_UNDO, ANNOTATE_REDO)
    for action in (history.undo, history.redo):
        action.setObjectName(f"annotate_{action.iconText().lower()}")
        parent.addAction(action)
    actions["undo"], actions["redo"] = history.undo, history.redo
    return actions, history


def connect_tool_actions(a: dict[str, QAction], tool: DrawTool) -> None:
    """Connect the drawing keys to the tool (the mode actions are the page's)."""
    a["toggle_certainty"].triggered.connect(tool.toggle_certainty)
    a["delete"].triggered.connect(tool.delete_selected)
    a["finish"].triggered.connect(tool.finish)
    a["remove_last"].triggered.connect(tool.remove_last_vertex)
    a["cancel"].triggered.connect(tool.cancel)
    a["less_fill"].triggered.connect(lambda: tool.set_fill_alpha(tool.fill_alpha - 0.1))
    a["more_fill"].triggered.connect(lambda: tool.set_fill_alpha(tool.fill_alpha + 0.1))
    a["overlay"].toggled.connect(tool.set_overlay_visible)
    a["outline"].toggled.connect(tool.set_outline_only)
    a["smaller_brush"].triggered.connect(lambda: tool.brush.step_radius(-1))
    a["larger_brush"].triggered.connect(lambda: tool.brush.step_radius(+1))


@dataclass
class ToolBars:
    """The page's two bars and the brush radius box (see the module docstring)."""

    tools: QToolBar
    actions: QToolBar
    radius: QSpinBox
    display: QToolButton


def make_tool_bars(actions: dict[str, QAction], tool: DrawTool, *extra: QWidget) -> ToolBars:
    """Both bars over ``actions``; the radius box follows and sets ``tool``'s brush;
    ``extra`` widgets (the assisted tools' *Assist* button) end the action bar."""
    tools = QToolBar("Tools")
    tools.setObjectName("annotate_tools")
    tools.setOrientation(Qt.Orientation.Vertical)
    tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
    tools.setIconSize(QSize(20, 20))
    for name in TOOLS:
        tools.addAction(actions[name])
    buttons = [b for name in TOOLS if (b := tools.widgetForAction(actions[name])) is not None]
    for button in buttons:
        button.ensurePolished()  # (the stylesheet's padding counts)
    widest = max(button.sizeHint().width() for button in buttons)
    for button in buttons:
        button.setMinimumWidth(widest)  # one column of equal buttons
    bar = QToolBar("Annotate")
    bar.setObjectName("annotate_actions")
    for item in ("toggle_certainty", "delete", None, "undo", "redo", None):
        if item is None:
            bar.addSeparator()
        else:
            bar.addAction(actions[item])
    radius = QSpinBox()
    radius.setObjectName("brush_radius")
    radius.setRange(*RADIUS_RANGE)
    radius.setPrefix("Brush ")
    radius.setSuffix(" px")
    radius.setToolTip("Brush and eraser radius in image pixels (, and . or Ctrl+wheel over "
                      "the image)")
    radius.setValue(round(tool.brush.radius))
    radius.valueChanged.connect(lambda value: tool.brush.set_radius(float(value)))
    tool.brush.radius_changed.connect(lambda r: _show_radius(radius, r))
    bar.addWidget(radius)
    bar.addSeparator()
    bar.addAction(actions["overlay"])
    menu = QMenu("Display", bar)
    for name in ("outline", "less_fill", "more_fill"):
        menu.addAction(actions[name])
    display = QToolButton()
    display.setObjectName("annotate_display")
    display.setText("Display")
    display.setToolTip("Outline only (Shift+O), less and more fill ([ and ])")
    display.setMenu(menu)
    display.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    bar.addWidget(display)
    for widget in extra:
        bar.addWidget(widget)
    return ToolBars(tools, bar, radius, display)


def _show_radius(box: QSpinBox, radius: float) -> None:
    if box.value() != round(radius):
        box.blockSignals(True)
        box.setValue(round(radius))
        box.blockSignals(False)


def lay_out(widget: QWidget, bars: ToolBars, view: QWidget, panel: QWidget) -> QScrollArea:
    """Lay the page ``widget`` out: the action bar over the tool palette and the image, the
    side panel (in a scroll area, returned) on the right."""
    middle = QHBoxLayout()
    middle.setContentsMargins(0, 0, 0, 0)
    middle.setSpacing(0)
    middle.addWidget(bars.tools)
    middle.addWidget(view, 1)
    left = QVBoxLayout()
    left.setContentsMargins(0, 0, 0, 0)
    left.setSpacing(0)
    left.addWidget(bars.actions)
    left.addLayout(middle, 1)
    scroll = QScrollArea()
    scroll.setWidget(panel)
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setMinimumWidth(300)
    scroll.setMaximumWidth(380)
    layout = QHBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addLayout(left, 1)
    layout.addWidget(scroll)
    return scroll
