"""Where a bounded on-disk cache lives and how large it may grow, from the environment.

Both of slicereview's file caches (the DICOMweb instances, the files a project holds) are a
folder under the user cache folder (``platformdirs``) that an environment variable may move,
with a size bound in MB that another variable may change; an unreadable bound falls back to
the default.

Example
-------
>>> import os
>>> os.environ["SR_EXAMPLE_MB"] = "1.5"
>>> cache_budget("SR_EXAMPLE_MB", 100)
1572864
>>> os.environ["SR_EXAMPLE_MB"] = "lots"
>>> cache_budget("SR_EXAMPLE_MB", 100) == 100 << 20
True
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(variable: str, name: str) -> Path:
    """``$variable`` if set, else the folder ``name`` in the user cache folder."""
    folder = os.environ.get(variable)
    if folder:
        return Path(folder)
    import platformdirs

    return Path(platformdirs.user_cache_dir("slicereview")) / name


def cache_budget(variable: str, default_mb: int) -> int:
    """The bound in bytes: ``$variable`` in MB (a number), else ``default_mb``."""
    try:
        return int(float(os.environ.get(variable, default_mb)) * (1 << 20))
    except ValueError:
        return default_mb << 20
