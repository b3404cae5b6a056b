"""A de-identified copy of one file, and :func:`deidentify`, which makes it by format.

A copy is ``header`` followed by the original's bytes ``keep = (start, end)`` unchanged (a
DICOM file's pixel data element: it is never decoded or rewritten), or ``header`` alone
(``keep`` ``None``: the whole copy). Keeping the range instead of the bytes lets a caller store
a copy of a 30 MB mammogram as its 2 kB header.

Example
-------
>>> copy = SharedCopy(b"HEAD", (4, 8), {}, ())
>>> copy.bytes_from(b"xxxxPIXELS")
b'HEADPIXE'
>>> copy.size
8
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

#: The version of the rules; a copy made under older rules is made again.
RULES_VERSION = 1


class NotShareableError(ValueError):
    """A file no rule can de-identify (its format or its encoding); the message says why."""


@dataclass(frozen=True)
class SharedCopy:
    """A de-identified copy: ``header`` then the original's bytes ``keep`` (start, end; end
    exclusive) or nothing (``None``); ``uids`` maps each original UID the file held to its
    replacement; ``warnings`` are sentences for the owner (burned-in text: the pixels are not
    cleaned); ``suffix`` the copy's file suffix (``.dcm``, ``.nii.gz``...)."""

    header: bytes
    keep: tuple[int, int] | None
    uids: dict[str, str]
    warnings: tuple[str, ...]
    suffix: str = ""
    sha256: str = field(default="", compare=False)

    @property
    def size(self) -> int:
        """Bytes of the copy."""
        return len(self.header) + (self.keep[1] - self.keep[0] if self.keep else 0)

    def chunks(self, original: bytes | memoryview) -> Iterator[bytes | memoryview]:
        """The copy's bytes in order, without joining them (``original``: the file's bytes)."""
        yield self.header
        if self.keep is not None:
            yield memoryview(original)[self.keep[0]:self.keep[1]]

    def bytes_from(self, original: bytes | memoryview) -> bytes:
        """The copy's bytes, given the original's."""
        return b"".join(bytes(c) for c in self.chunks(original))

    def with_hash(self, original: bytes | memoryview) -> SharedCopy:
        """This copy with its SHA-256 filled in."""
        digest = hashlib.sha256()
        for chunk in self.chunks(original):
            digest.update(chunk)
        return SharedCopy(self.header, self.keep, self.uids, self.warnings, self.suffix,
                          digest.hexdigest())


def deidentify(data: bytes, fmt: str, seed: str, name: str = "") -> SharedCopy:
    """The de-identified copy of a file of format ``fmt`` (the project's format names:
    ``dicom``, ``nifti``, ``png``, ``tiff``, ``jpeg``, ``metaimage``, ``nrrd``) with bytes
    ``data``, its SHA-256 filled in. ``seed`` is the project's secret: the same seed gives the
    same replacement UIDs and pseudonyms (consistent across files and runs), another seed
    others. ``name`` (the original file name) only chooses the suffix (``.nii`` or
    ``.nii.gz``).

    Raises
    ------
    NotShareableError
        The format has no rule, or the file cannot be parsed (a detached MetaImage header, a
        damaged DICOM header).

    Example
    -------
    >>> import io, numpy as np, skimage.io
    >>> buf = io.BytesIO()
    >>> skimage.io.imsave(buf, np.zeros((2, 2), np.uint8), format="png", check_contrast=False)
    >>> copy = deidentify(buf.getvalue(), "png", "seed")
    >>> copy.suffix, len(copy.sha256)
    ('.png', 64)
    """
    from slicereview.engines.deid import headers, text_headers

    if fmt == "dicom":
        from slicereview.engines.deid.dicom import deidentify_dicom

        made = deidentify_dicom(data, seed)
    elif fmt == "nifti":
        made = headers.nifti(data, name)
    elif fmt == "png":
        made = headers.png(data)
    elif fmt == "tiff":
        made = headers.tiff(data)
    elif fmt == "jpeg":
        made = headers.jpeg(data)
    elif fmt in ("metaimage", "nrrd"):
        made = text_headers.text_header(data, fmt, name)
    else:
        raise NotShareableError(f"no de-identification rule for {fmt!r} files")
    return made.with_hash(data)
