"""Content hashes of image files, and opening a file only if it is a regular one."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import BinaryIO

_CHUNK = 1 << 20


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open_regular(path) as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for binary reading, refused with :class:`OSError` unless it is a
    regular file (after links). It never blocks: a named pipe is opened non-blocking and
    refused, where a plain ``open()`` would wait for a writer forever.

    Example
    -------
    >>> import tempfile
    >>> fifo = Path(tempfile.mkdtemp()) / "pipe.png"
    >>> os.mkfifo(fifo)
    >>> open_regular(fifo)
    Traceback (most recent call last):
    ...
    OSError: [Errno 22] not a regular file: 'pipe.png'
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(22, "not a regular file", Path(path).name)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
