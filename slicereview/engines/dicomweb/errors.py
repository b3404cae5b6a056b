"""Errors of talking to a PACS: one plain sentence each.

They are :class:`~slicereview.engines.imaging.errors.ImagingError` subclasses, so that an
error in the decoding child (fetching a missing cache entry) comes back to the parent with its
message, and the CLI prints it as one line.
"""

from __future__ import annotations

from slicereview.engines.imaging.errors import ImagingError


class DicomwebError(ImagingError):
    """The PACS could not be asked, or its answer was refused."""


class AuthenticationError(DicomwebError):
    """The PACS wants credentials (HTTP 401/403): set them and try again."""
