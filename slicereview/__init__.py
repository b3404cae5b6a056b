"""slicereview: rate, annotate and review medical images in one SQLite project file.

Layers (see docs/design.md; import-linter contracts in ``pyproject.toml`` enforce them):

* :mod:`slicereview.model` — frozen value types and enums named after the glossary;
* :mod:`slicereview.engines` — pure computation (geometry, masks, imaging, agreement, ranking,
  review): values in, values out, no database, no Qt;
* :mod:`slicereview.store` — the project file; knows the model only;
* :mod:`slicereview.app` — the application layer: one module per job, every domain rule once;
* :mod:`slicereview.gui` and :mod:`slicereview.cli` — the front ends;
  :mod:`slicereview.launcher` is the entry point above both.
"""

__version__ = "0.1.0"
