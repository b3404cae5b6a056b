"""slicereview: rate, annotate and review medical images in one SQLite project file.

Layers (see docs/design.md; import-linter contracts in ``pyproject.toml`` enforce them):

* :mod:`slicereview.model` — frozen value types and enums named after the glossary;
* :mod:`slicereview.engines` — pure computation (geometry, masks, imaging, agreement, ranking,
  review): values in, values out, no database, no Qt;
* :mod:`slicereview.store` — the project file; knows the model only;
* :mod:`slicereview.app` — the application layer: one sub-package per job (``rating``,
  ``annotating``, ``review``, ``qa``, ``report``, ``images``, ``exporting``), each domain rule
  once;
* :mod:`slicereview.demo` — the demo project and simulated raters and annotators, above the app
  layer (nothing below imports it);
* :mod:`slicereview.gui` and :mod:`slicereview.cli` — the front ends (the GUI in sub-packages
  per page: ``rate``, ``annotate``, ``review``, ``overview``, ``owner``, with ``window``,
  ``gateway`` and ``common``);
  :mod:`slicereview.launcher` is the entry point above both.
"""

__version__ = "0.1.0"
