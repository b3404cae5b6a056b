"""An image file that is copied to this machine when it is first read: :class:`FetchedFile`.

The bytes of an image may live elsewhere than on a disk of this machine: in a server
project's database (the app layer's file cache). The imaging engine does not know where;
it knows only this protocol: a path-like object whose :meth:`FetchedFile.local` returns a
local file with the image's bytes (fetching them first when needed, in the calling thread).
The readers (:func:`~.loader.load_display`, the decoding child's calls in :mod:`.isolated`)
call it before they open anything, so such an image is decoded exactly as a file on disk is:
the same decoding child, the same limits, the same refusals.

Example
-------
>>> import tempfile
>>> class Here(FetchedFile):
...     def __init__(self, path): self.path = Path(path)
...     def local(self): return self.path
>>> f = Here(tempfile.gettempdir())
>>> localise(f) == Path(tempfile.gettempdir()), localise("a.png")
(True, 'a.png')
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TypeVar


class FetchedFile(os.PathLike, ABC):
    """A path-like image file fetched on first read (see the module docstring).

    ``os.fspath()`` of it is where its local copy is (present or not); ``name`` the file's
    original name (shown to people); :meth:`is_file` is True (it is never a *missing* file:
    its bytes are fetched again when needed)."""

    path: Path

    @abstractmethod
    def local(self) -> Path:
        """A local file holding the image's bytes (fetched now when needed)."""

    def __fspath__(self) -> str:
        return str(self.path)

    @property
    def name(self) -> str:
        return self.path.name

    def is_file(self) -> bool:
        return True


_P = TypeVar("_P")


def localise(path: _P | FetchedFile) -> _P | Path:
    """``path.local()`` for a :class:`FetchedFile`, anything else as it is."""
    return path.local() if isinstance(path, FetchedFile) else path
