"""File names that are not valid UTF-8: stored so that they open again, shown readably.

A POSIX file name is bytes; Python hands a name that is not UTF-8 over as a ``str`` with
*surrogate escapes* (``'caf\\udce9.png'`` for the Latin-1 bytes of ``café.png``). Such a
string cannot be written as SQLite text, printed to a UTF-8 terminal or put in a CSV file.

* :func:`to_text` is how the project stores a path: unchanged when it is valid UTF-8, else
  ``./`` followed by its bytes with every byte that is not UTF-8 written ``\\xNN`` and every
  backslash doubled. A stored path never starts with ``./`` otherwise (relative paths are
  normalised, absolute ones start with ``/`` or a drive), so the form is unambiguous, and it
  is readable as it is: that text is what lists, exports and messages show.
* :func:`from_text` turns a stored path back into the name that opens the file.
* :func:`shown` is the readable form of any text that may carry surrogate escapes (a path
  as the operating system gave it, or a message naming one).

Example
-------
>>> name = b"scans/caf\\xe9.png".decode("utf-8", "surrogateescape")
>>> to_text(name)
'./scans/caf\\\\xe9.png'
>>> from_text(to_text(name)) == name
True
>>> to_text("scans/plain.png"), shown(name)
('scans/plain.png', 'scans/caf\\\\xe9.png')
"""

from __future__ import annotations

import os
import re

#: The start of a stored path that was escaped (see the module docstring).
ESCAPED = "./"
_ESCAPE = re.compile(rb"\\(\\|x[0-9a-f]{2})")


def _raw(text: str) -> bytes:
    try:
        return os.fsencode(text)
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        return text.encode("utf-8", "backslashreplace")


def to_text(path: str) -> str:
    """How a path is stored: itself when valid UTF-8, else the escaped form."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    return ESCAPED + _raw(path).replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def from_text(text: str) -> str:
    """The path a stored text stands for (the inverse of :func:`to_text`)."""
    if not text.startswith(ESCAPED):
        return text

    def byte(match: re.Match[bytes]) -> bytes:
        code = match.group(1)
        return b"\\" if code == b"\\" else bytes([int(code[1:], 16)])

    return os.fsdecode(_ESCAPE.sub(byte, text[len(ESCAPED):].encode("utf-8")))


def shown(text: str | os.PathLike[str]) -> str:
    """``text`` (a path or a message) fit for a terminal, a dialog or a CSV file: bytes
    that are not UTF-8 are written ``\\xNN``; valid text is returned unchanged."""
    text = os.fspath(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _raw(text).decode("utf-8", "backslashreplace")
