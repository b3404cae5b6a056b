"""The project files found healthy, kept between runs: a file whose stamp has not changed since
its whole-file checks passed is not scanned again (:func:`.checking.check_file`).

A *stamp* says the bytes cannot have changed through the file system since: the file's
resolved path, device and inode numbers, size, modification and status-change times in
nanoseconds (``st_ctime_ns``: every write and every ``utime`` sets it to the present, and no
user tool can set it back) and SQLite's change counter from the header (bytes 24-27, raised by
every committed transaction), plus the slicereview version and project format that checked
it. Only a *settled* file is remembered (no change for :data:`SETTLED_S`, no journal or WAL
beside it), so that a write within the file system's time granularity of the check cannot
share its stamp. What a stamp cannot see is a change that no write made: a disk or memory
fault that flips stored bits; the whole-file checks at every opening would see it only at the
next opening too, and not during a session (docs/reliability.md).

Where: one small text file per project path in ``$SLICEREVIEW_CHECKED_DIR``, else the folder
``checked`` in the user cache folder (``platformdirs``); at most :data:`KEPT` files (the
oldest beyond are removed). A folder that cannot be written only means checking again.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from slicereview import __version__
from slicereview.store import locks

#: A file changed this recently is checked every time and never remembered.
SETTLED_S = 2.0
#: How many project files' verdicts are kept.
KEPT = 256

Stamp = tuple[object, ...]


def stamp(path: Path) -> Stamp | None:
    """The file's stamp (see the module docstring); ``None`` when it is not settled."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    changed = max(st.st_mtime_ns, st.st_ctime_ns)
    if time.time_ns() - changed < SETTLED_S * 1e9 or any(
            os.path.exists(f"{path}{suffix}") for suffix in ("-journal", "-wal")):
        return None
    counter = int.from_bytes(locks.read(path, 28)[24:28], "big")
    return (os.fspath(path.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns, counter, __version__)


def _folder() -> Path:
    given = os.environ.get("SLICEREVIEW_CHECKED_DIR")
    if given:
        return Path(given)
    import platformdirs

    return Path(platformdirs.user_cache_dir("slicereview")) / "checked"


def _entry(key: Stamp) -> Path:
    name = hashlib.sha256(str(key[0]).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return _folder() / f"{name}.txt"


def recall(key: Stamp) -> int | None:
    """The project format of the file last found healthy with this stamp, else ``None``."""
    try:
        line, version = _entry(key).read_text(encoding="utf-8").splitlines()
        return int(version) if line == repr(key) else None
    except (OSError, ValueError):
        return None


def remember(key: Stamp, version: int) -> None:
    """Keep that the file of this stamp passed every check (format ``version``)."""
    entry = _entry(key)
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        scratch = entry.with_name(f"{entry.stem}.{os.getpid()}.tmp")
        scratch.write_text(f"{key!r}\n{version}\n", encoding="utf-8")
        os.replace(scratch, entry)
        kept = sorted(entry.parent.glob("*.txt"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-KEPT]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # not kept: the next opening checks the file again
