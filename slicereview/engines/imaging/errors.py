"""Typed errors of the imaging layer.

Every error a user can meet while importing or showing an image derives from
:class:`ImagingError` (a :class:`ValueError`, so the CLI prints its message as one line).
"""

from __future__ import annotations


class ImagingError(ValueError):
    """An image file could not be read or shown; the message says why."""


class UnreadableImageError(ImagingError):
    """The file is not an image we can read, or it is damaged (truncated, corrupt, empty)."""


class MissingCodecError(ImagingError):
    """The file is compressed with a transfer syntax whose decoder is not installed.

    The message names the package(s) to install, e.g.
    ``JPEG 2000: pip install pylibjpeg pylibjpeg-openjpeg, or pip install 'slicereview[codecs]'``.
    """

    def __init__(self, message: str, *, transfer_syntax: str = "") -> None:
        super().__init__(message)
        self.transfer_syntax = transfer_syntax
