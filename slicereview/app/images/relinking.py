"""Find moved image files again: :func:`relink` (``slicereview relink PROJECT NEW_ROOT``).

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
    new_root = Path(new_root)
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
    relinked = project.images.set_source_paths(updates)
    return RelinkReport(relinked, missing, mismatch)


def _files_by_name(root: Path) -> dict[str, list[Path]]:
    """Every file below ``root`` by file name (sorted paths, so the choice is reproducible)."""
    found: dict[str, list[Path]] = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            found.setdefault(name, []).append(Path(folder) / name)
    return {name: sorted(paths) for name, paths in found.items()}
