"""The decoding child's side of :mod:`.isolated`: limits, the request loop, the tasks.

The child runs :func:`serve` (started with ``spawn``): it sets its address-space limit and
single-threaded maths libraries first, then answers each ``(task, args)`` request in the order
received with ``(status, ..., peak_kb)``, where a status ``"ok"`` carries the value and the
others (``"error"``, ``"missing"``) an error the parent raises again. Nothing is imported at
module level beyond what the limits need, so the readers load after the limits are set.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from slicereview.engines.imaging import errors
from slicereview.engines.imaging.limits import Limits

#: Environment of the child: single-threaded maths libraries and ITK (threads reserve
#: address space, which RLIMIT_AS counts); SLICEREVIEW_DECODING_CHILD tells the readers
#: they run here (dicom.py then skips pydicom's value checks, whose warnings are ignored).
_CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS": "1", "SLICEREVIEW_DECODING_CHILD": "1"}
_CRASH_HOOK = "SLICEREVIEW_TEST_CRASH_FILE"

def _limit_child(address_space: int) -> None:
    os.environ.update(_CHILD_ENV)
    with contextlib.suppress(Exception):  # glibc only: fewer malloc arenas, less address space
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, 2)  # M_ARENA_MAX
    try:
        import resource
    except ImportError:  # Windows: no address-space limit, the child still isolates crashes
        return
    with contextlib.suppress(ValueError, OSError):  # macOS refuses RLIMIT_AS
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = address_space if hard == resource.RLIM_INFINITY else min(address_space, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _run(task: str, args: tuple[Any, ...], current: Any = None) -> Any:
    """Do one task in the child (imports happen here, after the limits are set).

    ``current`` (a shared integer) is set to the position of the file being read in an
    ``entries_many`` group, so that the parent knows which file a crash or time-out is due
    to, and reads it no second time."""
    _crash_hook(args[0], task == "abort")
    if task == "entries":
        from slicereview.engines.imaging.importer import read_entries_here

        return read_entries_here(*args)
    if task == "entries_many":
        replies = []
        for k, item in enumerate(args[0]):
            if current is not None:
                current.value = k
            _note(item[0])
            replies.append(_one_entry(*item, *args[1:]))
        return replies
    if task == "warm":  # load the readers now, not in the middle of an import's first group
        import importlib

        for name in ("dicom", "raster", "volume", "importer", "loader", "display"):
            importlib.import_module(f"slicereview.engines.imaging.{name}")
        return None
    from slicereview.engines.imaging.loader import load_display

    path, image, limits = args[:3]
    if not isinstance(path, str):  # an image on a PACS: fetch a missing cache file here
        from slicereview.engines.dicomweb.cache import fetch

        path = fetch(path, limits.max_decoded_bytes)
    display = load_display(path, image, limits=limits)
    if task == "display":
        return display
    if task == "pyramid":  # a large image: only its screen-sized level crosses the pipe
        from slicereview.engines.imaging import pyramid

        rows, cols = display.data.shape[:2]
        return pyramid.build(display, args[3], args[4]) if pyramid.is_large(
            rows, cols) else display
    from slicereview.engines.imaging.display import thumbnail as make_thumbnail

    return make_thumbnail(display, args[3])


def _crash_hook(path: Any, abort: bool = False) -> None:
    """Tests prove with it that a crashing decoder is contained (module docstring)."""
    crash_name = os.environ.get(_CRASH_HOOK)
    if abort or crash_name and Path(str(path)).name == crash_name:
        os.abort()


def _one_entry(path: str, fmt: str, slices: Any, limits: Limits) -> tuple[Any, ...]:
    """One file of an ``entries_many`` task as a reply tuple (its errors do not stop the rest)."""
    from slicereview.engines.imaging.importer import read_entries_here

    _crash_hook(path)
    try:
        with errors.decoder_edge(Path(path).name, "read"):
            return ("ok", read_entries_here(path, fmt, slices, limits))
    except errors.ImagingError as exc:
        return ("error", type(exc).__name__, str(exc), getattr(exc, "limit", ""))
    except FileNotFoundError as exc:
        return ("missing", str(exc))


def _peak_kb(resource: Any) -> int:
    """The child's own peak resident memory in kB.

    Linux keeps ``ru_maxrss`` across fork and exec, so a child spawned by a large parent would
    report the parent's peak; ``VmHWM`` in ``/proc/self/status`` is this process image's own.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def decoder_log_path() -> Path:
    """Where the decoding children write what native decoders print (their standard output
    and error, :func:`~.decoder_child.divert_output`): ``decoder.log`` in the user's log
    folder (platformdirs), or in ``SLICEREVIEW_LOG_DIR`` when set. A log over
    :data:`LOG_KEEP_BYTES` is moved to ``decoder.log.1`` when a child starts."""
    override = os.environ.get("SLICEREVIEW_LOG_DIR")
    if override:
        folder = Path(override)
    else:
        import platformdirs

        folder = Path(platformdirs.user_log_dir("slicereview"))
    path = folder / "decoder.log"
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_KEEP_BYTES:
            path.replace(path.with_name("decoder.log.1"))
    return path


#: Size of ``decoder.log`` past which it is moved aside (one older log is kept).
LOG_KEEP_BYTES = 4 << 20


def divert_output(log_path: str | None) -> None:
    """Send this process's standard output and error -- file descriptors 1 and 2, where
    native decoders write (gdcm's "terminate called after throwing...", libjpeg and openjpeg
    warnings, ITK, a Rust panic) -- to the end of the file ``log_path`` (the user's
    ``decoder.log``; ``os.devnull`` if it cannot be opened). The user sees the one plain
    sentence of the error instead; the library's own text stays in the log."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    try:
        if not log_path:
            raise OSError
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(log_path, flags, 0o600)
    except OSError:
        fd = os.open(os.devnull, os.O_WRONLY)
    for target in (1, 2):
        os.dup2(fd, target)
    os.close(fd)
    import time

    os.write(2, f"--- decoding process {os.getpid()} started "
                f"{time.strftime('%Y-%m-%d %H:%M:%S')} ---\n".encode())


def _note(path: Any) -> None:
    """Name the file about to be read in the log, so that a library's text can be traced."""
    with contextlib.suppress(OSError):
        os.write(2, f"reading {os.fsencode(str(path))!r}\n".encode())


def serve(conn: Any, address_space: int, current: Any = None,
          log_path: str | None = None) -> None:  # pragma: no cover - runs in the child
    """The child's loop: answer each ``(task, args)`` request on ``conn`` in order; output
    goes to ``log_path`` (:func:`divert_output`), the file being read is kept in
    ``current``."""
    import logging
    import warnings

    divert_output(log_path)
    _limit_child(address_space)
    conn.send(("ready",))
    # Readers log and warn about each damaged tag; the errors returned say what matters.
    logging.getLogger("tifffile").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    import resource

    while True:
        try:
            task, args = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            name = Path(str(args[0])).name
            if current is not None:
                current.value = 0
            if not isinstance(args[0], list) and task != "warm":
                _note(args[0])
            with errors.decoder_edge(name, "read"):
                reply: tuple[Any, ...] = ("ok", _run(task, args, current))
        except errors.ImagingError as exc:
            reply = ("error", type(exc).__name__, str(exc), getattr(exc, "limit", ""))
        except FileNotFoundError as exc:
            reply = ("missing", str(exc))
        peak = _peak_kb(resource)
        try:
            conn.send((*reply, peak))
        except (OSError, ValueError):
            return
