"""The PySide6 + pyqtgraph desktop application.

Import order matters: PySide6 is imported before pyqtgraph so that pyqtgraph picks this binding
(docs/design.md, "Qt and pyqtgraph"), and pyqtgraph is configured once for row-major ``(H, W)``
arrays.
"""

import PySide6  # noqa: F401, I001  (must precede pyqtgraph; keep this order)
import pyqtgraph as pg

pg.setConfigOptions(imageAxisOrder="row-major", antialias=False, useNumba=False)


def _no_matplotlib_leftover_maps() -> list[str]:
    return []


# pyqtgraph's histogram gradient menu lists matplotlib's "other" colour maps when the menu is
# *built*, importing matplotlib.pyplot (~1 s) for each viewer at start-up. slicereview shows grey
# images and never offers those maps; the matplotlib category submenus stay (built on demand).
# Replacing this one lookup keeps a window's start-up free of pyplot.
from pyqtgraph.widgets import ColorMapMenu as _cmap_menu  # noqa: E402

_cmap_menu.find_mpl_leftovers = _no_matplotlib_leftover_maps
