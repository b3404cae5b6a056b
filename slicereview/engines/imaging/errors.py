"""Typed errors of the imaging layer.

Every error a user can meet while importing or showing an image derives from
:class:`ImagingError` (a :class:`ValueError`, so the CLI prints its message as one line).
Each message is one plain sentence that says what is wrong and what to do; raw library text
(``sitk::ERROR: ...``, numpy broadcast errors, pydicom's ``UID is not a transfer syntax``) never
reaches it. :func:`decoder_edge` turns whatever a decoder raises into such an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: Exceptions that mean "stop the program", never "this file is bad".
_EXITS = (KeyboardInterrupt, SystemExit, GeneratorExit)


class ImagingError(ValueError):
    """An image file could not be read or shown; the message says why.

    The message is made one line ending in a full stop (:func:`sentence`).
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(sentence(message) if message else message)


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


class LimitExceededError(ImagingError):
    """The file's header asks for more than a :class:`~.limits.Limits` allows.

    ``limit`` names the field of :class:`~.limits.Limits` that refused the file.
    """

    def __init__(self, message: str, *, limit: str = "") -> None:
        super().__init__(message)
        self.limit = limit


class DecoderCrashedError(UnreadableImageError):
    """A decoder running in a child process (:mod:`.isolated`) crashed, ran out of its memory
    limit or time; the main program was not affected."""


def sentence(text: str) -> str:
    """``text`` as one line ending in a full stop (newlines and repeated blanks collapsed).

    Example
    -------
    >>> sentence("two\\n lines ")
    'two lines.'
    """
    line = " ".join(text.split())
    return line if line.endswith((".", "?", "!")) else f"{line}."


@contextmanager
def decoder_edge(name: str, what: str = "decode the pixel data of") -> Iterator[None]:
    """Run third-party decoding code and turn its failures into :class:`ImagingError`.

    Catches every :class:`BaseException` except exits (``KeyboardInterrupt``, ``SystemExit``,
    ``GeneratorExit``): decoders raise anything from ``ValueError`` to ``RuntimeError`` and
    pylibjpeg-rle's Rust ``PanicException``, which derives from ``BaseException`` directly.
    :class:`ImagingError` passes through unchanged.

    Example
    -------
    >>> try:
    ...     with decoder_edge("a.dcm"):
    ...         raise RuntimeError("sitk::ERROR: deep C++ detail")
    ... except UnreadableImageError as exc:
    ...     print(exc)
    Cannot decode the pixel data of a.dcm: the file is damaged or not what its header says; re-export it from its source or leave it out.
    """  # noqa: E501
    try:
        yield
    except _EXITS:
        raise
    except ImagingError:
        raise
    except MemoryError:
        raise LimitExceededError(
            f"There is not enough memory to {what} {name}; close other programs or leave "
            "the file out.", limit="memory",
        ) from None
    except RecursionError:
        raise UnreadableImageError(
            f"Cannot {what} {name}: its header is nested too deeply to be a real image; "
            "leave the file out."
        ) from None
    except BaseException:  # the point of this function (Rust panics)
        raise UnreadableImageError(
            f"Cannot {what} {name}: the file is damaged or not what its header says; "
            "re-export it from its source or leave it out."
        ) from None
