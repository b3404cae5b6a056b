"""Find moved image files again: :func:`relink` (``slicereview relink PROJECT NEW_ROOT``)
changes the stored paths, for everyone; :func:`relink_here` (``... --this-machine``, a server
project) keeps them and makes this machine's roots instead (:mod:`slicereview.store.
local_roots`).

Also importable from :mod:`slicereview.app.images.importing`, where it lived first.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from slicereview.engines.imaging.hashing import sha256_file
from slicereview.model import RelinkReport
from slicereview.store import Project
from slicereview.store.file_names import from_text, shown


def relink(project: Project, new_root: str | Path, *, verify: bool = True) -> RelinkReport:
    """Find each missing file below ``new_root`` and store its new location.

    A missing file is looked up by the longest tail of its stored path that exists below
    ``new_root`` (so both ``/old/study/a/b.dcm`` → ``/new/study/a/b.dcm`` and a flattened copy
    are found). Failing that, files of the same name anywhere below ``new_root`` are tried
    (a renamed folder, or ``new_root`` a parent of the moved folder): with ``verify`` the
    one whose SHA-256 matches is taken, without it only a name that occurs once. With
    ``verify`` the SHA-256 must match; mismatches are reported, not relinked. All updates
    are one transaction.
    """
    updates, missing, mismatch = _find(project, Path(new_root), verify)
    relinked = project.images.set_source_paths(updates)
    return RelinkReport(relinked, missing, mismatch)


def relink_here(project: Project, new_root: str | Path, *, verify: bool = True
                ) -> tuple[RelinkReport, list[tuple[str, str]]]:
    """:func:`relink` for this machine only, on a server project: the missing files are found
    below ``new_root`` the same way, but instead of their stored paths this machine's roots
    change -- each found file gives the pair (stored folder, folder here) that differ by the
    path's common tail, e.g. ``/data/study`` → ``/mnt/nas/study`` -- kept in the user's
    config; every other machine keeps seeing the stored paths. Returns the report (files
    found here now) and all of this machine's roots of the project.

    Example
    -------
    >>> _root_pair("/data/study/mg/a.dcm", "/mnt/nas/study/mg/a.dcm")
    ('/data', '/mnt/nas')
    """
    if not project.is_server:
        raise ValueError("A project file's image paths start at its folder and are the same "
                         "on every machine: relink without --this-machine (it changes them "
                         "in the file).")
    before = {s.id for s in project.images.missing_sources()}
    updates, _missing, mismatch = _find(project, Path(new_root), verify)
    stored = {s.id: s.path for s in project.images.sources()}
    roots = project.images.set_local_roots(
        [_root_pair(from_text(stored[i]), Path(found).absolute().as_posix())
         for i, found in updates])
    still = project.images.missing_sources()
    found_now = len(before - {s.id for s in still})
    return RelinkReport(found_now, [s.path for s in still], mismatch), roots


def _root_pair(stored: str, here: str) -> tuple[str, str]:
    """The folders of two paths of one file without their common tail (at least the file
    name stays apart when the names differ)."""
    a, b = PurePosixPath(stored).parts, PurePosixPath(here).parts
    n = 0
    while n < min(len(a), len(b)) - 1 and a[-1 - n] == b[-1 - n]:
        n += 1
    return PurePosixPath(*a[:len(a) - n]).as_posix(), PurePosixPath(*b[:len(b) - n]).as_posix()


def _find(project: Project, new_root: Path, verify: bool
          ) -> tuple[list[tuple[int, Path]], list[str], list[str]]:
    """``(source id, file found)`` of the missing files found below ``new_root``, the stored
    paths still missing and the files whose content differs (see :func:`relink`)."""
    missing: list[str] = []
    mismatch: list[str] = []
    updates: list[tuple[int, Path]] = []
    by_name: dict[str, list[Path]] | None = None  # built once, only when a tail fails
    hashes: dict[Path, str] = {}
    for source in project.images.missing_sources():
        parts = PurePosixPath(from_text(source.path)).parts
        found = None
        for start in range(len(parts)):
            tail = parts[start:]
            if tail and tail[0] == "/":
                continue
            candidate = new_root.joinpath(*tail)
            if candidate.is_file():
                found = candidate
                break
        if found is None:
            if by_name is None:
                by_name = _files_by_name(new_root)
            candidates = by_name.get(parts[-1], []) if parts else []
            if verify:
                for candidate in candidates:
                    if candidate not in hashes:
                        hashes[candidate] = sha256_file(candidate)
                    if hashes[candidate] == source.sha256:
                        updates.append((source.id, candidate))
                        break
                else:
                    missing.append(source.path)
            elif len(candidates) == 1:
                updates.append((source.id, candidates[0]))
            else:
                missing.append(source.path)
            continue
        if verify and sha256_file(found) != source.sha256:
            mismatch.append(shown(found))
            continue
        updates.append((source.id, found))
    return updates, missing, mismatch


def _files_by_name(root: Path) -> dict[str, list[Path]]:
    """Every file below ``root`` by file name (sorted paths, so the choice is reproducible)."""
    found: dict[str, list[Path]] = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            found.setdefault(name, []).append(Path(folder) / name)
    return {name: sorted(paths) for name, paths in found.items()}
