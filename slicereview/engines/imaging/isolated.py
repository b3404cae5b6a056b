"""Decode in a child process, so that a decoder that aborts cannot take the program with it.

Native decoders (gdcm, openjpeg, CharLS, ITK) may ``abort()`` on a file whose header lies;
a thumbnail decoded when a project opens would then crash the GUI on every open. The header
checks (:mod:`.dicom_checks`, :mod:`.file_checks`) refuse the known cases; this module is the
second line: the work runs in one long-lived child process started with ``spawn`` (no forked
copy of a GUI's threads), under an address-space limit (``RLIMIT_AS`` =
:attr:`Limits.child_address_space`, where the platform has it) and a timeout
(:attr:`Limits.decode_timeout_s`). A child that dies, runs out of its memory or time becomes a
:class:`~.errors.DecoderCrashedError` with a plain message; the next call starts a new child.

Calls to one child are serialised by its lock; a process has at most :data:`MAX_CHILDREN`
children (slot 0 for the viewer and single calls, slot 1 also for large imports, see
:mod:`.parallel`); a child exits when its parent does (its pipe closes).

What native decoders print (gdcm's "terminate called after throwing...", libjpeg and
openjpeg warnings, a Rust panic) never reaches the user's terminal: the child's standard
output and error go to ``decoder.log`` (:func:`~.decoder_child.decoder_log_path`), each
file named before it is read; the user gets the one plain sentence of the error.

A file that crashed the child (or ran out of its time) is remembered for the rest of the
process; in a group of files it is the one the child was reading (the child keeps its
position in a shared integer), so it is never read a second time when the rest of the
group is read again. It is keyed by its path, size and modification time: every later call
-- here or in-process through :func:`~.loader.load_display` -- raises the same
:class:`~.errors.DecoderCrashedError` at once instead of crashing the child again, or the
program itself (:func:`known_crash`).

Spawning re-imports the parent's ``__main__`` module in the child, so a script that uses this
module must start under ``if __name__ == "__main__":`` (``python -m slicereview``, the
``slicereview`` console script and pytest do); a child that cannot start is reported as such,
not as a damaged file. Frozen programs (PyInstaller) call ``multiprocessing.freeze_support()``
first (:func:`slicereview.launcher.main` does).

Test hook: a child started while the environment variable ``SLICEREVIEW_TEST_CRASH_FILE`` names
a file (its base name) calls ``os.abort()`` when asked to read that file, standing in for a
native decoder that aborts on a header the checks pass.

Example
-------
>>> from pydicom.data import get_testdata_file
>>> from slicereview.model import Image
>>> image = Image(0, 0, "", "", "dicom")
>>> thumbnail(get_testdata_file("CT_small.dcm"), image, 32).shape
(32, 32)
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import threading
from pathlib import Path
from typing import Any

from slicereview.engines.dicomweb.cache import RemoteInstance
from slicereview.engines.dicomweb.errors import AuthenticationError, DicomwebError
from slicereview.engines.imaging import errors
from slicereview.engines.imaging.decoder_child import decoder_log_path, serve
from slicereview.engines.imaging.fetched import FetchedFile, localise
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits

_ERRORS = {cls.__name__: cls for cls in (
    errors.ImagingError, errors.UnreadableImageError, errors.MissingCodecError,
    errors.LimitExceededError, errors.DecoderCrashedError, DicomwebError, AuthenticationError)}


# -- the parent --------------------------------------------------------------------------------
class _Child:
    """One child process and the parent's end of its pipe."""

    def __init__(self, limits: Limits) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child_conn = ctx.Pipe()
        #: The position in its group of the file the child reads (see decoder_child._run).
        self.current = ctx.Value("i", 0, lock=False)
        self.process = ctx.Process(
            target=serve, args=(child_conn, limits.child_address_space, self.current,
                                str(decoder_log_path())),
            daemon=True, name="slicereview-decoder")
        self.process.start()
        child_conn.close()
        self.address_space = limits.child_address_space
        try:  # a child that cannot start is not a damaged file: say so apart
            ready = self.conn.poll(_START_TIMEOUT_S) and self.conn.recv() == ("ready",)
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.stop()
            raise errors.ImagingError(
                f"The decoding process could not start (exit code {self.process.exitcode}); "
                "a script that uses slicereview must run its code under "
                "`if __name__ == \"__main__\":`.")

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


class _Slot:
    """One child (None: not started, or stopped) and the order of its requests.

    Requests are sent under ``lock``, each with a ticket; the child answers them in order, and
    each caller takes its reply when ``turn`` reaches its ticket. So a second request (the next
    group of an import, a thumbnail) waits in the pipe while the child works on the first, and
    the child never idles between the two. A request sent to a child that was stopped before
    answering it (another request crashed it or ran out of time) is *lost*: it is sent again.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()  # sending, starting and stopping the child
        self.turn_changed = threading.Condition()
        self.child: _Child | None = None
        self.tickets = 0  # handed out
        self.turn = 0  # the ticket whose reply comes next

    def ready_child(self, limits: Limits) -> _Child:
        """The running child with ``limits`` (started if needed); call with the lock held."""
        if self.child is not None and (not self.child.process.is_alive()
                                       or self.child.address_space != limits.child_address_space):
            self.drop()
        if self.child is None:
            self.child = _Child(limits)
        return self.child

    def drop(self, child: _Child | None = None) -> bool:
        """Stop the child (only if it is still ``child``, when given); call with the lock
        held. True when this call stopped it."""
        if self.child is None or (child is not None and self.child is not child):
            return False
        old, self.child = self.child, None
        old.stop()
        return True

    def send(self, request: tuple[Any, Any], limits: Limits
             ) -> tuple[int, _Child | None, BaseException | None]:
        """Send ``request``: ``(ticket, child, None)``, or ``(ticket, None, error)`` when the
        child cannot start (the ticket must still be redeemed with :meth:`receive`)."""
        with self.lock:
            ticket, self.tickets = self.tickets, self.tickets + 1
            try:
                child = self.ready_child(limits)
            except BaseException as exc:  # the ticket is redeemed all the same
                return ticket, None, exc
            try:
                child.conn.send(request)
            except (OSError, ValueError):  # (a dead child's pipe: found at the turn)
                pass
            except BaseException as exc:  # e.g. an argument that cannot be pickled
                return ticket, None, exc
            return ticket, child, None

    def receive(self, ticket: int, child: _Child | None, timeout_s: float
                ) -> tuple[str, Any]:
        """At the ticket's turn: ``("ok", reply)``, ``("lost", None)``, ``("timeout", None)``
        or ``("crashed", None)``."""
        with self.turn_changed:
            self.turn_changed.wait_for(lambda: self.turn == ticket)
        try:
            if child is None or self.child is not child:
                return "lost", None
            try:
                if not child.conn.poll(timeout_s):
                    with self.lock:
                        return ("timeout" if self.drop(child) else "lost"), None
                return "ok", child.conn.recv()
            except (EOFError, OSError):
                with self.lock:
                    return ("crashed" if self.drop(child) else "lost"), None
        finally:
            with self.turn_changed:
                self.turn += 1
                self.turn_changed.notify_all()


_START_TIMEOUT_S = 120.0
#: Decoding children a process may run: slot 0 (the viewer, calls naming no slot) and slot 1
#: (large imports, :mod:`.parallel`), each with its own address-space limit.
MAX_CHILDREN = 2
_slots = [_Slot() for _ in range(MAX_CHILDREN)]
#: Files that crashed the child or ran out of its time: (path, size, mtime) -> (message,
#: the time-out that ran out, infinite for a crash).
_crashed: dict[tuple[str, int, int], tuple[str, float]] = {}
#: Peak resident memory of the current child in kB (Linux ``VmHWM``), after the last call.
last_peak_kb = 0


def _file_key(path: str | Path) -> tuple[str, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.realpath(path), st.st_size, st.st_mtime_ns)


def known_crash(path: str | Path, timeout_s: float | None = None) -> str | None:
    """The message of an earlier crash or time-out of the child on the file at ``path`` in
    this process, or ``None``. With ``timeout_s``, a time-out shorter than it does not count
    (a longer time may be tried); a file changed since (size or modification time) is tried
    again.

    Example
    -------
    >>> known_crash(__file__) is None
    True
    """
    if not _crashed:  # the usual case: no stat() per file
        return None
    key = _file_key(path)
    entry = None if key is None else _crashed.get(key)
    if entry is None or (timeout_s is not None and timeout_s > entry[1]):
        return None
    return entry[0]


def refuse_known_crash(path: str | Path, timeout_s: float | None = None) -> None:
    """Raise the remembered :class:`~.errors.DecoderCrashedError` for a file that crashed
    the child: it is never decoded again, in the child or in-process (which has no time-out,
    so a file that ran out of the child's time is refused there too)."""
    message = known_crash(path, timeout_s)
    if message is not None:
        raise errors.DecoderCrashedError(message)


def forget_crashes() -> None:
    """Forget the files that crashed the child (they are tried again)."""
    _crashed.clear()


def _remember(path: str, exc: errors.DecoderCrashedError,
              timeout_s: float = math.inf) -> errors.DecoderCrashedError:
    key = _file_key(path)
    if key is not None:
        _crashed[key] = (str(exc), timeout_s)
    return exc


def prestart(limits: Limits = DEFAULT_LIMITS) -> threading.Thread:
    """:func:`start` the first child in a background thread now, so that the first decode
    does not wait for it (the GUI calls it when it opens a project of several images: the
    child's start-up then runs on the other core while the first image is shown). A child
    that cannot start is reported by the first real call.

    >>> from slicereview.engines.imaging import isolated
    >>> isolated.prestart().join()
    >>> isolated.running(0)
    True
    """
    def run() -> None:
        with contextlib.suppress(errors.ImagingError):
            start(0, limits)

    thread = threading.Thread(target=run, name="slicereview-decoder-start", daemon=True)
    thread.start()
    return thread


def start(slot: int, limits: Limits = DEFAULT_LIMITS) -> None:
    """Start the child of ``slot`` unless it runs, and load its readers;
    :class:`~.errors.ImagingError` if it cannot start."""
    _call("warm", ("",), limits, slot)


def running(slot: int) -> bool:
    """True when the child of ``slot`` is alive."""
    child = _slots[slot].child
    return child is not None and child.process.is_alive()


def _call(task: str, args: tuple[Any, ...], limits: Limits, slot: int = 0) -> Any:
    global last_peak_kb
    if not isinstance(args[0], list):
        refuse_known_crash(str(args[0]), limits.decode_timeout_s)
    place = _slots[slot]
    for _attempt in range(3):
        ticket, child, error = place.send((task, args), limits)
        if error is not None or child is None:
            place.receive(ticket, child, 0.0)  # (redeem the ticket)
            raise error or errors.ImagingError("The decoding process could not start.")
        status, reply = place.receive(ticket, child, limits.decode_timeout_s)
        if status != "lost":
            break
    if status == "ok":
        last_peak_kb = int(reply[-1])
        return _result(reply[:-1])
    culprit = _culprit(args[0], child)
    name = Path(culprit).name
    if status == "timeout":
        raise _remember(culprit, errors.DecoderCrashedError(
            f"Reading {name} took longer than {limits.decode_timeout_s:g} s "
            "(decode_timeout_s), so it was stopped; the file is probably damaged, "
            "so leave it out."), limits.decode_timeout_s)
    # (crashed, or lost three times: the child keeps dying)
    raise _remember(culprit, errors.DecoderCrashedError(
        f"The decoder stopped abnormally on {name} (the file is probably damaged, or "
        f"needs more than {limits.child_address_space >> 30} GB of memory); the "
        "program is unaffected, so leave the file out or re-export it from its "
        "source."))


def _culprit(subject: Any, child: _Child | None) -> str:
    """The file a crash or time-out is due to: the one file asked for, or in a group the
    one the child was reading (``child.current``)."""
    if not isinstance(subject, list):
        return str(subject)
    k = child.current.value if child is not None else 0
    return str(subject[k][0] if 0 <= k < len(subject) else subject[0][0])


def _result(reply: tuple[Any, ...]) -> Any:
    """The value of an ``("ok", value)`` reply; raise the error another reply stands for."""
    if reply[0] == "ok":
        return reply[1]
    if reply[0] == "missing":
        raise FileNotFoundError(reply[1])
    cls = _ERRORS.get(reply[1], errors.UnreadableImageError)
    if cls is errors.LimitExceededError:
        raise errors.LimitExceededError(reply[2], limit=reply[3])
    raise cls(reply[2])


def _where(path: Any) -> Any:
    """What the child is sent: a file's path as text (a :class:`~.fetched.FetchedFile`'s
    local copy, fetched here), or a PACS image's reference (the child fetches it)."""
    path = localise(path)
    return path if isinstance(path, RemoteInstance) else str(path)


def display(path: str | Path | RemoteInstance | FetchedFile, image: Any,
            limits: Limits = DEFAULT_LIMITS) -> Any:
    """:func:`~.loader.load_display` in the child: the :class:`~.display.DisplayImage`."""
    return _call("display", (_where(path), image, limits), limits)


def pyramid(path: str | Path, image: Any, limits: Limits, folder: str, key: str) -> Any:
    """:func:`display` of a large image as a :class:`~.pyramid.PyramidDisplay` whose levels
    the child writes into ``folder`` (see :mod:`.pyramid`); a small image as it is."""
    return _call("pyramid", (str(path), image, limits, folder, key), limits)


def thumbnail(path: str | Path | RemoteInstance | FetchedFile, image: Any, size: int = 128,
              limits: Limits = DEFAULT_LIMITS) -> Any:
    """The ``uint8`` thumbnail (:func:`~.display.thumbnail`) of ``image``, made in the child:
    only the small picture crosses the pipe."""
    return _call("thumbnail", (_where(path), image, limits, size), limits)


def read_entries(path: str | Path, fmt: str, slices: Any,
                 limits: Limits = DEFAULT_LIMITS, slot: int = 0) -> Any:
    """:func:`~.importer.read_entries_here` in the child (of ``slot``): headers read and one
    image decoded, so a file that cannot be shown is refused at import."""
    return _call("entries", (str(path), fmt, slices, limits), limits, slot)


def read_entries_many(items: list[tuple[Path, str]], slices: Any,
                      limits: Limits = DEFAULT_LIMITS, slot: int = 0) -> list[Any]:
    """:func:`read_entries` of several ``(path, format)`` files in one round trip to the
    child of ``slot``; each result is the entries or the exception that refused that file.
    If the child dies on the group (or runs out of its time), the file it was reading is
    refused and remembered, and the others are read again alone: the culprit is read once."""
    if not items:
        return []
    known = [known_crash(p, limits.decode_timeout_s) for p, _ in items]
    if any(known):  # never send a file that crashed the child again
        fresh = [item for item, message in zip(items, known, strict=True) if message is None]
        done = iter(read_entries_many(fresh, slices, limits, slot))
        return [errors.DecoderCrashedError(message) if message is not None else next(done)
                for message in known]
    try:
        replies = _call("entries_many", ([(str(p), f) for p, f in items], slices, limits),
                        limits, slot)
    except errors.DecoderCrashedError:
        replies = None
    if replies is None:
        out: list[Any] = []
        for path, fmt in items:
            try:
                out.append(read_entries(path, fmt, slices, limits, slot))
            except Exception as exc:
                out.append(exc)
        return out
    results: list[Any] = []
    for reply in replies:
        try:
            results.append(_result(reply))
        except Exception as exc:
            results.append(exc)
    return results


def shutdown() -> None:
    """Stop the child processes (a new one starts on the next call)."""
    for place in _slots:
        with place.lock:
            place.drop()
