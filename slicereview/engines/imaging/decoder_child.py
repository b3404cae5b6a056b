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


def _run(task: str, args: tuple[Any, ...]) -> Any:
    """Do one task in the child (imports happen here, after the limits are set)."""
    _crash_hook(args[0], task == "abort")
    if task == "entries":
        from slicereview.engines.imaging.importer import read_entries_here

        return read_entries_here(*args)
    if task == "entries_many":
        return [_one_entry(*item, *args[1:]) for item in args[0]]
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


def serve(conn: Any, address_space: int) -> None:  # pragma: no cover - runs in the child
    """The child's loop: answer each ``(task, args)`` request on ``conn`` in order."""
    import logging
    import warnings

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
            with errors.decoder_edge(name, "read"):
                reply: tuple[Any, ...] = ("ok", _run(task, args))
        except errors.ImagingError as exc:
            reply = ("error", type(exc).__name__, str(exc), getattr(exc, "limit", ""))
        except FileNotFoundError as exc:
            reply = ("missing", str(exc))
        peak = _peak_kb(resource)
        try:
            conn.send((*reply, peak))
        except (OSError, ValueError):
            return
