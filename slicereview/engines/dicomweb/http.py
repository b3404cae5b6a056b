"""A ``requests`` session whose every answer is bounded (see the package text).

Example
-------
>>> NetLimits().max_json_bytes >> 20
64
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import requests
from requests.adapters import HTTPAdapter

from slicereview.engines.dicomweb.auth import Auth, check_url, origin
from slicereview.engines.dicomweb.errors import AuthenticationError, DicomwebError

__all__ = ["Auth", "BoundedAdapter", "NetLimits", "check_url", "origin", "session",
           "translate"]

_MIB = 1 << 20


@dataclass(frozen=True)
class NetLimits:
    """How long and how much one answer may take.

    Attributes
    ----------
    connect_timeout_s
        Seconds to open the connection.
    read_timeout_s
        Seconds of silence between two pieces of an answer.
    total_timeout_s
        Seconds for one whole answer (a server that trickles a byte at a time is stopped).
    max_json_bytes
        Bytes of a list (QIDO-RS) or a store answer (STOW-RS).
    max_redirects
        Redirects followed (on the same server only).
    """

    connect_timeout_s: float = 10.0
    read_timeout_s: float = 30.0
    total_timeout_s: float = 600.0
    max_json_bytes: int = 64 * _MIB
    max_redirects: int = 5


def _media(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


def _accepts(accept: str, content_type: str) -> bool:
    wanted = {_media(part) for part in accept.split(",") if part.strip()}
    got = _media(content_type)
    if not wanted or "*/*" in wanted or got in wanted:
        return True
    # application/json for application/dicom+json and the like
    return any(w.endswith("+json") and got == "application/json" for w in wanted)


class BoundedAdapter(HTTPAdapter):
    """Checks redirects, size and content type of each answer and reads a non-streamed body
    under the size cap and the deadline (see :class:`NetLimits`)."""

    def __init__(self, limits: NetLimits) -> None:
        super().__init__(max_retries=0)
        self.limits = limits

    def send(self, request: requests.PreparedRequest, stream: bool = False,
             timeout: Any = None, verify: Any = True, cert: Any = None,
             proxies: Any = None) -> requests.Response:
        limits = self.limits
        response = super().send(request, stream=True,
                                timeout=(limits.connect_timeout_s, limits.read_timeout_s),
                                verify=verify, cert=cert, proxies=proxies)
        where = origin(str(request.url))
        if response.is_redirect:
            target = urljoin(str(request.url), response.headers.get("location", ""))
            if origin(target) != where:
                response.close()
                raise DicomwebError(
                    f"The PACS at {where} redirected to another server ({origin(target)}); "
                    "slicereview does not follow that: give that server's address if you "
                    "trust it.")
            return response
        cap = limits.max_json_bytes
        length = response.headers.get("content-length")
        if not stream and length is not None and length.isdigit() and int(length) > cap:
            response.close()
            raise DicomwebError(
                f"The PACS at {where} announced an answer of {_size(int(length))}, more than "
                f"the {_size(cap)} a list may take; nothing was read.")
        accept = str(request.headers.get("Accept", ""))
        content_type = response.headers.get("content-type", "")
        if response.ok and response.status_code != 204 and length != "0" and not _accepts(
                accept, content_type):
            response.close()
            raise DicomwebError(
                f"The PACS at {where} answered with {_media(content_type) or 'no content type'}"
                f" where {_media(accept.split(',')[0])} was asked for; it is probably not a "
                "DICOMweb service (check the address).")
        if not stream:
            deadline = time.monotonic() + limits.total_timeout_s
            body = bytearray()
            for chunk in read_chunks(response, deadline, where):
                body += chunk
                if len(body) > cap:
                    response.close()
                    raise DicomwebError(
                        f"The PACS at {where} sent more than {_size(cap)} for a list; it was "
                        "stopped and nothing was kept.")
            response._content = bytes(body)
            response._content_consumed = True
        return response


def read_chunks(response: requests.Response, deadline: float, where: str,
                size: int = 1 << 16) -> Iterator[bytes]:
    """The body of a streamed ``response`` in chunks, stopped at ``deadline`` (monotonic)."""
    with translate(where):
        for chunk in response.raw.stream(size, decode_content=True):
            if time.monotonic() > deadline:
                response.close()
                raise DicomwebError(
                    f"The PACS at {where} is sending too slowly (the answer took longer than "
                    "its time limit), so it was stopped; try again later.")
            if chunk:
                yield chunk


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GB" if n >= 1 << 30 else f"{n / _MIB:.0f} MB"


def session(auth: Auth | None, limits: NetLimits) -> requests.Session:
    """A session with :class:`BoundedAdapter` for http and https and the credentials."""
    s = requests.Session()
    s.trust_env = False  # no netrc credentials or proxies from the environment
    s.max_redirects = limits.max_redirects
    adapter = BoundedAdapter(limits)
    s.mount("http://", adapter)
    s.mount("https://", adapter)
    if auth is not None:
        auth.apply(s)
    return s


@contextlib.contextmanager
def translate(where: str) -> Iterator[None]:
    """Turn ``requests``/``urllib3`` failures into one-sentence :class:`DicomwebError`."""
    import urllib3

    try:
        yield
    except DicomwebError:
        raise
    except requests.HTTPError as exc:
        raise http_error(where, exc.response) from None
    except (requests.ConnectTimeout, requests.ConnectionError) as exc:
        if isinstance(exc, requests.ConnectionError) and _truncated(exc):
            raise _truncation(where) from None
        if isinstance(exc, requests.ReadTimeout | requests.ConnectionError) and _is_read_timeout(
                exc):
            raise _slow(where) from None
        raise DicomwebError(f"Cannot reach the PACS at {where} ({_reason(exc)}); check the "
                            "address and that the server runs.") from None
    except (requests.ReadTimeout, urllib3.exceptions.ReadTimeoutError):
        raise _slow(where) from None
    except (requests.exceptions.ChunkedEncodingError, urllib3.exceptions.ProtocolError,
            urllib3.exceptions.IncompleteRead):
        raise _truncation(where) from None
    except requests.TooManyRedirects:
        raise DicomwebError(f"The PACS at {where} redirected too many times; check the "
                            "address.") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise DicomwebError(f"The PACS at {where} sent an answer that is not valid JSON; it is "
                            "probably not a DICOMweb service (check the address).") from None
    except requests.RequestException as exc:
        raise DicomwebError(f"Talking to the PACS at {where} failed ({_reason(exc)}).") from None


def _reason(exc: BaseException) -> str:
    text = str(exc.args[0]) if exc.args else type(exc).__name__
    for marker in ("Connection refused", "Name or service not known", "timed out",
                   "No route to host", "Temporary failure in name resolution"):
        if marker in text:
            return marker.lower()
    return type(exc).__name__


def _is_read_timeout(exc: BaseException) -> bool:
    return "Read timed out" in str(exc)


def _truncated(exc: BaseException) -> bool:
    text = str(exc)
    return "IncompleteRead" in text or "Connection broken" in text


def _slow(where: str) -> DicomwebError:
    return DicomwebError(f"The PACS at {where} stopped answering (no data within its time "
                         "limit); try again later or ask its administrator.")


def _truncation(where: str) -> DicomwebError:
    return DicomwebError(f"The PACS at {where} ended its answer early (it was cut off); nothing "
                         "of it was kept, try again.")


def http_error(where: str, response: requests.Response | None) -> DicomwebError:
    """The sentence for an HTTP error status."""
    code = response.status_code if response is not None else 0
    reason = (response.reason or "") if response is not None else ""
    if code in (401, 403):
        return AuthenticationError(
            f"The PACS at {where} refused access (HTTP {code} {reason}); give a user name and "
            "password (SLICEREVIEW_DICOMWEB_USER and SLICEREVIEW_DICOMWEB_PASSWORD) or a token "
            "(SLICEREVIEW_DICOMWEB_TOKEN), or log in at the prompt.")
    if code == 404:
        return DicomwebError(f"The PACS at {where} does not have what was asked for (HTTP 404); "
                             "check the address and the UIDs.")
    return DicomwebError(f"The PACS at {where} answered with an error (HTTP {code} {reason}); "
                         "try again later or ask its administrator.")
