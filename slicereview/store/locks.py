"""Who holds SQLite's write lock on a project file: a direct test, without taking a lock.

SQLite (rollback-journal mode, unix VFS) takes POSIX advisory byte-range locks on the database
file: a write lock on the RESERVED byte (``0x40000001``) for a write transaction, on the
PENDING byte (``0x40000000``) while it waits to commit, and on the SHARED range
(``0x40000002`` .. ``+510``) while it writes pages (EXCLUSIVE). A ``-journal`` beside the
file while any of these is held belongs to a transaction in progress, not to a crash.
:func:`writer` asks the kernel with ``fcntl(F_GETLK)`` for a *read* lock over the whole range:
a read lock conflicts only with write locks, so readers (and the read lock SQLite takes
briefly on the PENDING byte while it gets a SHARED one) never count as writers.

Two properties of POSIX locks shape this module:

* They are per process: ``F_GETLK`` does not report a lock of the asking process. On Linux
  the open-file-description variant ``F_OFD_GETLK`` does (it reports it with our own pid),
  so :func:`writer` says :data:`HERE` for a transaction of another connection in this
  process (a worker thread opening its own connection while the GUI thread writes). Where
  only ``F_GETLK`` exists (macOS, BSD), such a lock is invisible and the journal is checked
  as a leftover; that check is read-only and SQLite itself does see its own process's locks,
  so nothing is rolled back under a live transaction.
* Closing *any* descriptor of a file drops *every* POSIX lock the process holds on it,
  SQLite's own included (SQLite keeps such descriptors open for that reason). So the probe's
  descriptor is opened once per file and never closed (:data:`_PROBES`): closing it while
  a connection of this process held a lock would let another process write under it. For the
  same reason the store reads the project file's header, and copies the file, through that
  descriptor (:func:`read`, :func:`copy`), never with ``open()`` / ``shutil``: a worker
  thread opening its own connection while the GUI thread's connection was in a transaction
  dropped the GUI's lock that way (on every platform with POSIX locks).

Where ``fcntl`` does not exist (Windows) or the ``struct flock`` layout is not known,
:func:`writer` returns :data:`UNKNOWN` and the caller falls back to waiting.

Example
-------
>>> import sqlite3, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "p.db"
>>> conn = sqlite3.connect(path, isolation_level=None)
>>> _ = conn.execute("CREATE TABLE t (x)")
>>> writer(path) in (NONE, UNKNOWN)
True
>>> _ = conn.execute("BEGIN IMMEDIATE")
>>> writer(path) in (HERE, UNKNOWN)  # our own connection holds RESERVED (Linux: HERE)
True
>>> _ = conn.execute("COMMIT")
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: SQLite's lock bytes (``os_unix.c``): PENDING, then RESERVED, then the SHARED range.
PENDING_BYTE = 0x40000000
#: PENDING + RESERVED + the 510 SHARED bytes.
LOCK_RANGE = 2 + 510

#: No write lock is held: a journal beside the file is not in use.
NONE = "none"
#: Another process holds RESERVED, PENDING or EXCLUSIVE: its transaction is in progress.
ELSEWHERE = "elsewhere"
#: A connection of this process holds it (seen only where ``F_OFD_GETLK`` exists).
HERE = "here"
#: The platform cannot tell (no ``fcntl``, unknown ``struct flock``).
UNKNOWN = "unknown"

# struct flock: Linux puts l_type and l_whence first; macOS and the BSDs put them last.
if sys.platform.startswith("linux"):
    _FORMAT, _FIELDS = "hhqqi", ("type", "whence", "start", "len", "pid")
elif sys.platform == "darwin" or "bsd" in sys.platform:
    _FORMAT, _FIELDS = "qqihh", ("start", "len", "pid", "type", "whence")
else:  # pragma: no cover - other platforms wait instead
    _FORMAT, _FIELDS = "", ()

#: One read-only descriptor per file (device, inode), never closed (see the module doc).
_PROBES: dict[tuple[int, int], int] = {}


def _probe_fd(path: Path) -> int:
    if fcntl is None:  # pragma: no cover - Windows: closing drops no lock of other handles
        raise RuntimeError("no POSIX locks here")
    st = os.stat(path)
    key = (st.st_dev, st.st_ino)
    fd = _PROBES.get(key)
    if fd is None:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        fst = os.fstat(fd)
        # (The file may have been replaced in between: keep the descriptor under its own key.)
        key = (fst.st_dev, fst.st_ino)
        fd = _PROBES.setdefault(key, fd)
    return fd


def read(path: Path, size: int, offset: int = 0) -> bytes:
    """Up to ``size`` bytes of ``path`` from ``offset``, read without closing a descriptor of
    it (see the module doc)."""
    if fcntl is None:  # pragma: no cover - Windows
        with path.open("rb") as fh:
            fh.seek(offset)
            return fh.read(size)
    return os.pread(_probe_fd(path), size, offset)


def copy(path: Path, dest: Path, chunk: int = 1 << 20) -> None:
    """Copy ``path`` to ``dest`` without closing a descriptor of ``path`` (see the module
    doc); ``dest`` is a new file of our own."""
    with dest.open("wb") as out:
        offset = 0
        while data := read(path, chunk, offset):
            out.write(data)
            offset += len(data)


def _pack(**values: int) -> bytes:
    return struct.pack(_FORMAT, *(values[name] for name in _FIELDS))


def writer(path: Path) -> str:
    """Who holds a write lock on SQLite's lock bytes of ``path``: :data:`NONE`,
    :data:`ELSEWHERE`, :data:`HERE` or :data:`UNKNOWN` (see the module doc). Takes no lock."""
    if fcntl is None or not _FORMAT:
        return UNKNOWN
    command = getattr(fcntl, "F_OFD_GETLK", None) or fcntl.F_GETLK
    query = _pack(type=fcntl.F_RDLCK, whence=os.SEEK_SET, start=PENDING_BYTE, len=LOCK_RANGE,
                  pid=0)
    try:
        answer = fcntl.fcntl(_probe_fd(path), command, query)
    except OSError:
        return UNKNOWN
    found = dict(zip(_FIELDS, struct.unpack(_FORMAT, answer), strict=True))
    if found["type"] == fcntl.F_UNLCK:
        return NONE
    return HERE if found["pid"] == os.getpid() else ELSEWHERE
