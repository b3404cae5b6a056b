"""Credentials and server addresses (no HTTP library: the GUI imports this at start-up).

Example
-------
>>> Auth.basic("alice", "secret")
Auth(kind='basic', user='alice')
>>> origin("http://127.0.0.1:8042/dicom-web/studies")
'http://127.0.0.1:8042'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from slicereview.engines.dicomweb.errors import DicomwebError


@dataclass(frozen=True)
class Auth:
    """HTTP basic (``user``, ``secret`` = password) or bearer (``secret`` = token)
    credentials; never written anywhere, and left out of ``repr``."""

    kind: str
    user: str = ""
    secret: str = field(default="", repr=False)

    @classmethod
    def basic(cls, user: str, password: str) -> Auth:
        return cls("basic", user, password)

    @classmethod
    def bearer(cls, token: str) -> Auth:
        return cls("bearer", "", token)

    def apply(self, session: Any) -> None:
        if self.kind == "basic":
            session.auth = (self.user, self.secret)
        elif self.kind == "bearer":
            session.headers["Authorization"] = f"Bearer {self.secret}"
        else:
            raise ValueError(f"authentication must be 'basic' or 'bearer', not {self.kind!r}")


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url`` (what "the same server" means)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def check_url(url: str) -> str:
    """The service URL without a trailing slash; refuses other schemes and credentials in it.

    >>> check_url("http://pacs:8042/dicom-web/")
    'http://pacs:8042/dicom-web'
    >>> check_url("http://bob:pw@pacs/dicom-web")
    Traceback (most recent call last):
    ...
    slicereview.engines.dicomweb.errors.DicomwebError: The PACS address must not contain a user name or password; give them in SLICEREVIEW_DICOMWEB_USER and SLICEREVIEW_DICOMWEB_PASSWORD (or at the prompt) instead.
    """  # noqa: E501
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise DicomwebError(f"{url!r} is not a DICOMweb address; give the service's http:// "
                            "or https:// address, e.g. http://localhost:8042/dicom-web.")
    if "@" in parts.netloc:
        raise DicomwebError("The PACS address must not contain a user name or password; give "
                            "them in SLICEREVIEW_DICOMWEB_USER and SLICEREVIEW_DICOMWEB_PASSWORD "
                            "(or at the prompt) instead.")
    if parts.query or parts.fragment:
        raise DicomwebError(f"{url!r} has a query or fragment; give the service's base address.")
    return url.strip().rstrip("/")


