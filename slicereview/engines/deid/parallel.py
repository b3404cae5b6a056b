"""De-identified copies of many files at once, in ``spawn`` worker processes (as the review
engine's features, ``engines/review/parallel.py``: ``fork`` in a process running Qt threads can
deadlock). Each worker reads its file itself, so only paths go to it and only the copy's header
and UIDs come back. Below :data:`MIN_FILES` files the copies are made in this process: starting
workers (and importing pydicom in them) costs more than it saves.

Example
-------
>>> from pydicom.data import get_testdata_file
>>> [(copy, error)] = copies_of([(get_testdata_file("CT_small.dcm"), "dicom", "CT.dcm")], "s")
>>> copy.suffix, error
('.dcm', None)
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from slicereview.engines.deid.copy import SharedCopy, deidentify

#: Fewer files than this are de-identified in this process.
MIN_FILES = 64


def copy_of_file(path: str | Path, fmt: str, seed: str, name: str
                 ) -> tuple[SharedCopy | None, str | None]:
    """The copy of the file at ``path``, or why there is none (one line; never raises)."""
    try:
        return deidentify(Path(path).read_bytes(), fmt, seed, name=name), None
    except Exception as exc:  # (in a worker: a message, not a pickled exception)
        return None, " ".join(str(exc).split())[:200] or type(exc).__name__


def _one(job: tuple[str, str, str, str]) -> tuple[SharedCopy | None, str | None]:
    return copy_of_file(*job)


def copies_of(files: Sequence[tuple[str | Path, str, str]], seed: str,
              workers: int | None = None) -> Iterator[tuple[SharedCopy | None, str | None]]:
    """``(copy, None)`` or ``(None, why)`` for each ``(path, format, name)`` of ``files``, in
    order; in up to ``workers`` processes (default: the machine's cores, at most 4) when there
    are :data:`MIN_FILES` or more."""
    jobs = [(str(p), fmt, seed, name) for p, fmt, name in files]
    count = workers or min(4, os.cpu_count() or 1)
    if len(jobs) < MIN_FILES or count < 2:
        yield from (_one(job) for job in jobs)
        return
    with ProcessPoolExecutor(max_workers=count,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(_one, jobs, chunksize=16)
