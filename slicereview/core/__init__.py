"""Qt-free core of slicereview: data model, project store, imaging, statistics, ranking.

Nothing in this package may import PySide6, shiboken6, pyqtgraph or :mod:`slicereview.gui`
(an import-linter contract in ``pyproject.toml`` enforces it).
"""
