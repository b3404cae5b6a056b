"""slicereview: rate, annotate and review medical images in one SQLite project file.

Layers (see README, "Architecture"):

* :mod:`slicereview.core` is Qt-free (numpy, scipy, scikit-image, pydicom, SimpleITK, sqlite3)
  and usable from scripts, the CLI and tests without a ``QApplication``.
* :mod:`slicereview.gui` is the PySide6 + pyqtgraph desktop application.
* :mod:`slicereview.cli` is the command line; headless commands never import Qt.
"""

__version__ = "0.1.0"
