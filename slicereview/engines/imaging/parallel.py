"""Read groups of files in the decoding children, two at once, results in submission order.

An import hands groups of files to a :class:`GroupReader`; each group goes to whichever
decoding child (:mod:`.isolated`, one slot each) is free, so that on a machine with two cores
both children decode while the importing process hashes the next files and writes the
previous ones. Every file is still decoded only in a child (the hostile-input safety of
:mod:`.isolated` is unchanged); the price is a second child process (its own address-space
limit, about 100 MB resident once its readers are loaded), which stays for later imports.

The second child starts in the background: until it is ready every group goes to the first
one, so a small import never waits for a start-up.

Example
-------
>>> from pydicom.data import get_testdata_file
>>> from slicereview.engines.imaging.importer import SliceSelection, read_entries_many
>>> with GroupReader(read_entries_many, children=1) as reader:
...     future = reader.submit([(get_testdata_file("CT_small.dcm"), "dicom")], SliceSelection())
...     [(info, images)] = future.result()
>>> info["modality"], len(images)
('CT', 1)
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from slicereview.engines.imaging import errors, isolated
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits

#: Groups one child holds at once: the one it reads and the next one, waiting in its pipe.
LANES = 2


def decoding_children(files: int, group: int) -> int:
    """How many decoding children an import of ``files`` files in groups of ``group`` uses:
    two when there are two groups or more and the process may run on two cores or more,
    else one.

    Example
    -------
    >>> decoding_children(3, 8)
    1
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        cores = os.cpu_count() or 1
    if files <= group or cores < 2:
        return 1
    return min(isolated.MAX_CHILDREN, cores)


class GroupReader:
    """Runs ``read(items, *args, slot=slot, **kwargs)`` for each submitted group on a free
    decoding child (slot), at most ``children`` groups at once.

    Parameters
    ----------
    read
        The group reader, e.g. :func:`~.importer.read_entries_many`; it must accept ``slot``.
    children
        Decoding children to use (1 or :data:`.isolated.MAX_CHILDREN`).
    limits
        The limits the children are started with.
    """

    def __init__(self, read: Callable[..., list[Any]], children: int = 1,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self._read = read
        # Each child has LANES places: while it reads one group the next one waits in its
        # pipe (see isolated._Slot), so it never idles between two groups.
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._lanes(0)
        children = max(1, min(children, isolated.MAX_CHILDREN))
        for slot in range(1, children):
            if isolated.running(slot):
                self._lanes(slot)
            else:
                threading.Thread(target=self._start, args=(slot, limits), daemon=True,
                                 name="slicereview-decoder-start").start()
        #: Groups that can be in the children at once: submit about this many plus one.
        self.capacity = LANES * children
        self._pool = ThreadPoolExecutor(max_workers=self.capacity,
                                        thread_name_prefix="slicereview-import")

    def _lanes(self, slot: int) -> None:
        for _ in range(LANES):
            self._free.put(slot)

    def _start(self, slot: int, limits: Limits) -> None:
        try:
            isolated.start(slot, limits)
        except errors.ImagingError:
            return  # the first child reports the same problem, with its message
        self._lanes(slot)

    def submit(self, items: list[Any], *args: Any, **kwargs: Any) -> Future[list[Any]]:
        """Read ``items`` on the next free child; the future's result is ``read``'s."""
        return self._pool.submit(self._run, items, args, kwargs)

    def _run(self, items: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
             ) -> list[Any]:
        slot = self._free.get()
        try:
            return self._read(items, *args, slot=slot, **kwargs)
        finally:
            self._free.put(slot)

    def close(self) -> None:
        """Wait for the submitted groups and stop the threads (the children stay)."""
        self._pool.shutdown(wait=True)

    def __enter__(self) -> GroupReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
