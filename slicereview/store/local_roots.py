"""Where *this machine* finds a server project's referenced image files: per-machine roots.

A server project stores absolute paths, the same for everyone (``import --reference``). A
machine that sees the shared storage under another folder keeps its own mapping, made by
``slicereview relink URL NEW_ROOT --this-machine``: pairs ``(stored prefix, this machine's
prefix)``, kept per project (by its ``project_uuid``) in the user's config folder
(platformdirs' ``user_config_dir``, or ``SLICEREVIEW_CONFIG_DIR``), file :data:`FILE_NAME`.
:meth:`~.images.Images.resolve` applies the longest stored prefix that matches whole path
components; a file imported on this machine is stored under the shared prefix again
(:func:`to_stored`). Nothing of it is written into the project: other machines are unchanged.

Example
-------
>>> roots = [("/data/study", "/mnt/nas/study"), ("/data/study/ct", "/scratch/ct")]
>>> to_local(roots, "/data/study/mg/a.dcm"), to_local(roots, "/data/study/ct/b.dcm")
('/mnt/nas/study/mg/a.dcm', '/scratch/ct/b.dcm')
>>> to_local(roots, "/data/study2/c.dcm")          # not below /data/study: unchanged
'/data/study2/c.dcm'
>>> to_stored(roots, "/mnt/nas/study/mg/new.dcm")
'/data/study/mg/new.dcm'
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

#: The file in the config folder: ``{project uuid: [[stored prefix, local prefix], ...]}``.
FILE_NAME = "local-paths.json"

Roots = Sequence[tuple[str, str]]


def config_dir() -> Path:
    """The user's slicereview config folder (``SLICEREVIEW_CONFIG_DIR`` overrides it)."""
    override = os.environ.get("SLICEREVIEW_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("slicereview"))


def _read() -> dict[str, list[list[str]]]:
    try:
        data = json.loads((config_dir() / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet (or unreadable: this machine then sees the stored paths)
    return data if isinstance(data, dict) else {}


def load(project_uuid: str) -> list[tuple[str, str]]:
    """This machine's roots of the project, longest stored prefix first."""
    pairs = _read().get(project_uuid, [])
    roots = [(str(p[0]), str(p[1])) for p in pairs if isinstance(p, list) and len(p) == 2]
    return sorted(roots, key=lambda r: -len(r[0]))


def save(project_uuid: str, roots: Roots) -> list[tuple[str, str]]:
    """Add ``roots`` to the project's (a pair with the same stored prefix is replaced; a
    pair that maps a prefix to itself is dropped), written atomically; all of them now."""
    data = _read()
    kept = {old: new for old, new in load(project_uuid)}
    kept.update(dict(roots))
    data[project_uuid] = [[old, new] for old, new in sorted(kept.items()) if old != new]
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{FILE_NAME}.{os.getpid()}"
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, folder / FILE_NAME)
    return load(project_uuid)


def _swap(pairs: Roots, path: str) -> str:
    for old, new in sorted(pairs, key=lambda r: -len(r[0])):
        if path == old or path.startswith(old.rstrip("/") + "/"):
            return new.rstrip("/") + path[len(old.rstrip("/")):] if path != old else new
    return path


def to_local(roots: Roots, stored: str) -> str:
    """The path on this machine of a stored absolute path (posix form)."""
    return _swap(roots, stored)


def to_stored(roots: Roots, local: str) -> str:
    """The shared (stored) form of a path on this machine: the inverse of :func:`to_local`."""
    return _swap([(new, old) for old, new in roots], local)
