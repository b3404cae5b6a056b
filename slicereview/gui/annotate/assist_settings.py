"""The assisted tools' settings on the Annotate page's action bar: :class:`AssistSettings`, an
*Assist* button whose menu holds the settings an annotator changes while working (each
tool's others keep the engine's documented defaults, docs/annotate.md):

* **Uncertain margin** (on): off, every tool gives one certain outline — points, wand, refine
  and trace with ``margin=0``, scribble certain from ``p >= 0.5`` (``hi = lo = 0.5``), box with
  every object pixel certain;
* **Wand tolerance** (10 %): the wand's grey-value tolerance, in percent of the crop's range;
* **Trace dark vessels** (off): trace follows dark ridges instead of bright ones.

They are remembered in the user settings, and a change runs the tool again on the prompts
shown. The part receives the runner whose :attr:`~.assist_runner.AssistRunner.settings` it
sets, never the page.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QSpinBox,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from slicereview.gui.annotate.assist_runner import AssistRunner
from slicereview.gui.common.settings import settings

#: The wand tolerance box's range and default, percent of the crop's range.
TOLERANCE_RANGE = (1, 60)
DEFAULT_TOLERANCE = 10
_KEY = "assist/"


def engine_settings(margin: bool, tolerance_pct: int, dark: bool) -> dict[str, dict[str, object]]:
    """Per tool, the engine settings of these choices (only those that differ from the
    engine's defaults).

    >>> engine_settings(True, 10, False)
    {'wand': {'tolerance': 0.1}}
    >>> engine_settings(False, 20, True)["scribble"], engine_settings(False, 20, True)["trace"]
    ({'hi': 0.5, 'lo': 0.5}, {'margin': 0.0, 'bright': False})
    """
    out: dict[str, dict[str, object]] = {"wand": {"tolerance": tolerance_pct / 100.0}}
    if not margin:
        for tool in ("points", "wand", "refine", "trace"):
            out.setdefault(tool, {})["margin"] = 0.0
        out["scribble"] = {"hi": 0.5, "lo": 0.5}
        out["box"] = {"hi": 1e-9}
    if dark:
        out.setdefault("trace", {})["bright"] = False
    return out


def _value(name: str, default: object) -> object:
    return settings().value(_KEY + name, default)


def _flag(name: str, default: bool) -> bool:
    value = _value(name, default)
    return value in (True, "true", "1", 1) if not isinstance(value, bool) else value


class AssistSettings(QObject):
    """The *Assist* button and its menu (see the module docstring)."""

    def __init__(self, runner: AssistRunner) -> None:
        super().__init__(runner)
        self.runner = runner
        self.button = QToolButton()
        self.button.setObjectName("annotate_assist_settings")
        self.button.setText("Assist")
        self.button.setToolTip("The assisted tools' settings: uncertain margin, wand "
                               "tolerance, dark vessels")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu("Assist", self.button)
        self.margin = QAction("Uncertain margin", menu)
        self.margin.setCheckable(True)
        self.margin.setChecked(_flag("margin", True))
        self.dark = QAction("Trace dark vessels", menu)
        self.dark.setCheckable(True)
        self.dark.setChecked(_flag("trace_dark", False))
        self.tolerance = QSpinBox()
        self.tolerance.setObjectName("wand_tolerance")
        self.tolerance.setRange(*TOLERANCE_RANGE)
        self.tolerance.setSuffix(" %")
        try:
            self.tolerance.setValue(int(str(_value("wand_tolerance", DEFAULT_TOLERANCE))))
        except ValueError:
            self.tolerance.setValue(DEFAULT_TOLERANCE)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(QLabel("Wand tolerance"))
        layout.addWidget(self.tolerance)
        holder = QWidgetAction(menu)
        holder.setDefaultWidget(row)
        menu.addAction(self.margin)
        menu.addAction(holder)
        menu.addAction(self.dark)
        self.button.setMenu(menu)
        self.margin.toggled.connect(self.apply)
        self.dark.toggled.connect(self.apply)
        self.tolerance.valueChanged.connect(self.apply)
        self.apply(remember=False)

    def apply(self, *_args: object, remember: bool = True) -> None:
        """Give the runner the settings chosen (and run the prompts shown again)."""
        margin, dark, tol = self.margin.isChecked(), self.dark.isChecked(), \
            self.tolerance.value()
        self.runner.settings = engine_settings(margin, tol, dark)
        if remember:
            s = settings()
            s.setValue(_KEY + "margin", margin)
            s.setValue(_KEY + "trace_dark", dark)
            s.setValue(_KEY + "wand_tolerance", tol)
            s.sync()
            self.runner.on_prompts()
