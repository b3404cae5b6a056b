"""The PySide6 + pyqtgraph desktop application.

Import order matters: PySide6 is imported before pyqtgraph so that pyqtgraph picks this binding
(DESIGN.md §9), and pyqtgraph is configured once for row-major ``(H, W)`` arrays.
"""

import PySide6  # noqa: F401, I001  (must precede pyqtgraph; keep this order)
import pyqtgraph as pg

pg.setConfigOptions(imageAxisOrder="row-major", antialias=False, useNumba=False)
