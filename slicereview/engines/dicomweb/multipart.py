"""A streaming ``multipart/related`` reader ([RFC2046]) that writes each part to a file.

Why not the client library's reader: it keeps the whole body in memory and, when the body
stops before the closing delimiter, returns what it got as if it were the last part. Here a
part's body goes to a file as it arrives, under a byte cap, and a body that ends before
``--boundary--`` is refused (:class:`~.errors.DicomwebError`), so a cut-off answer never
becomes a truncated DICOM file in the cache.

Example
-------
>>> import io, tempfile, pathlib
>>> body = b"--b1\\r\\nContent-Type: application/dicom\\r\\n\\r\\nHELLO\\r\\n--b1--\\r\\n"
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> parts = read_parts([body[:9], body[9:]], "b1", lambda k: folder / f"{k}.part", 100, "x")
>>> [p.read_bytes() for p in parts]
[b'HELLO']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from slicereview.engines.dicomweb.errors import DicomwebError

_MAX_HEADERS = 16 * 1024


def boundary_of(content_type: str) -> str | None:
    """The ``boundary`` parameter of a ``multipart/related`` content type, else ``None``.

    >>> boundary_of('multipart/related; type="application/dicom"; boundary="a b"')
    'a b'
    """
    media, *params = (p.strip() for p in content_type.split(";"))
    if media.lower() != "multipart/related":
        return None
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "boundary" and value.strip().strip('"'):
            return value.strip().strip('"')
    return None


def read_parts(chunks: Iterable[bytes], boundary: str, part_path: Callable[[int], Path],
               max_bytes: int, where: str) -> list[Path]:
    """Write each part's body to ``part_path(k)`` (k = 0, 1, ...) and return the paths.

    ``max_bytes`` caps the bytes of all parts together. A missing closing delimiter, headers
    longer than 16 KiB or too many bytes raise :class:`DicomwebError`; the files written so far
    are removed then.
    """
    delimiter = b"\r\n--" + boundary.encode("ascii", "replace")
    buf = bytearray(b"\r\n")  # so that the first delimiter looks like every other one
    state = "preamble"
    written = 0
    paths: list[Path] = []
    out = None
    try:
        for chunk in chunks:
            buf += chunk
            while True:
                if state == "preamble":
                    i = buf.find(delimiter)
                    if i < 0:
                        if len(buf) > _MAX_HEADERS:
                            raise _bad(where, "has no multipart boundary where one was announced")
                        break
                    del buf[:i + len(delimiter)]
                    state = "after"
                elif state == "after":
                    if len(buf) < 2:
                        break
                    if buf[:2] == b"--":
                        state = "done"
                        break
                    end = buf.find(b"\r\n\r\n")
                    if end < 0:
                        if len(buf) > _MAX_HEADERS:
                            raise _bad(where, "has a part whose headers do not end")
                        break
                    del buf[:end + 4]
                    path = part_path(len(paths))
                    paths.append(path)
                    out = open(path, "wb")  # noqa: SIM115 - closed below or in finally
                    state = "body"
                elif state == "body":
                    assert out is not None
                    i = buf.find(delimiter)
                    keep = len(buf) if i >= 0 else max(0, len(buf) - len(delimiter) + 1)
                    piece = buf[:i] if i >= 0 else buf[:keep]
                    written += len(piece)
                    if written > max_bytes:
                        raise DicomwebError(
                            f"The PACS at {where} sent more than {max_bytes >> 20} MB for one "
                            "image (max_decoded_bytes); it was stopped and nothing was kept.")
                    out.write(piece)
                    if i < 0:
                        del buf[:keep]
                        break
                    del buf[:i + len(delimiter)]
                    out.close()
                    out = None
                    state = "after"
                else:  # done: the epilogue is ignored
                    buf.clear()
                    break
        if state != "done":
            raise DicomwebError(f"The PACS at {where} ended its answer early (the multipart "
                                "body has no closing boundary); nothing of it was kept, try "
                                "again.")
        return paths
    except BaseException:
        if out is not None:
            out.close()
        for path in paths:
            path.unlink(missing_ok=True)
        raise
    finally:
        if out is not None and not out.closed:
            out.close()


def _bad(where: str, what: str) -> DicomwebError:
    return DicomwebError(f"The PACS at {where} sent an answer that {what}; nothing of it was "
                         "kept.")
