"""An opened ONNX model: its card, its inference process and what was checked before a run.

What is checked, and when (docs/models.md, "An ONNX model"):

* **Before reading the file**: its size, against :attr:`RunLimits.max_model_bytes` (1 GiB by
  default): a file of several GB is refused unread. A model is read whole (external-data files
  beside it are not used).
* **Loading**, in the inference process (:mod:`.child`, under its address-space limit): that
  onnxruntime parses the bytes as ONNX (random bytes, a truncated file and other formats are
  refused with one sentence) and builds a session on the CPU execution provider only.
* **The declared inputs and outputs**, before any tile: one input, of rank 4 ``(1, channels,
  rows, cols)`` and floating-point type; fixed dimensions must equal the card's channels and
  the tile the model will be given (``input.size``, else ``tile.size`` square); the first
  output of rank 4 ``(1, C, rows, cols)`` (rank 3 for a probability), ``C`` = 1 for a
  probability and more than ``output.class`` for classes, its fixed spatial dimensions the
  input's.
* **Every tile's run**: the output's real shape is checked in the inference process before it
  is sent back (an output far larger than the tile never crosses), its values for NaN and
  infinity and, with ``activation: "none"``, for the range [0, 1]. Memory is bounded by the
  process's limit (:attr:`RunLimits.address_space`, 4 GiB plus four times the file's size by
  default, Linux and other platforms with ``RLIMIT_AS``): a graph that allocates past it —
  a ``ConstantOfShape`` or ``Expand`` to a huge shape — fails inside onnxruntime and is
  reported as :class:`~.errors.ModelMemoryError`; one that crashes the process, or runs longer
  than :attr:`RunLimits.timeout_s`, as :class:`~.errors.ModelCrashedError`. Cancel stops the
  process at once, even inside a tile.

Example
-------
>>> from slicereview.engines.inference.card import parse_card
>>> card = parse_card({"name": "m", "version": "1", "licence": "x",
...     "input": {"channels": 1, "scale": "none"}, "output": {"kind": "probability"},
...     "tile": {"size": 64, "overlap": 8}, "thresholds": {"certain": 0.5, "uncertain": 0.5}})
>>> open_model(b"not a model", card)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
slicereview.engines.inference.errors.NotOnnxError: The file is not an ONNX model ...
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

import numpy as np

from slicereview.engines.inference import errors
from slicereview.engines.inference.card import ModelCard
from slicereview.engines.inference.child import serve
from slicereview.engines.prediction import CancelCheck, Cancelled

_ERRORS: dict[str, type[errors.ModelError]] = {cls.__name__: cls for cls in (
    errors.ModelError, errors.NotOnnxError, errors.ModelTooLargeError, errors.ModelInputError,
    errors.ModelOutputError, errors.ModelMemoryError, errors.ModelCrashedError)}
_FLOAT_TYPES = ("tensor(float)", "tensor(float16)", "tensor(double)")
#: How often a wait on the inference process looks at ``cancelled()``, in seconds.
POLL_S = 0.05


@dataclass(frozen=True)
class RunLimits:
    """What a model may take.

    Attributes
    ----------
    max_model_bytes : int
        The largest model file read (1 GiB).
    address_space : int or None
        The inference process's address-space limit in bytes; ``None``: 4 GiB plus four times
        the model's size; 0: no limit.
    timeout_s : float
        The longest wait for loading the model or for one tile, in seconds.
    threads : int
        onnxruntime's threads; 0: the CPUs this process may use, at most 4.
    """

    max_model_bytes: int = 1 << 30
    address_space: int | None = None
    timeout_s: float = 600.0
    threads: int = 0

    def address_space_for(self, model_bytes: int) -> int:
        if self.address_space is not None:
            return self.address_space
        return (4 << 30) + 4 * model_bytes


DEFAULT_RUN_LIMITS = RunLimits()


def _threads(limits: RunLimits) -> int:
    if limits.threads > 0:
        return limits.threads
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, cpus or 1))


class OnnxModel:
    """An ONNX model opened with :func:`open_model`, running in its own process.

    Attributes
    ----------
    card : ModelCard
    input_name, output_name : str
    tile_shape : (int, int)
        ``(rows, cols)`` of what the model is given (``input.size``, else the tile).
    """

    def __init__(self, card: ModelCard, child: _Child, described: dict[str, Any]) -> None:
        self.card = card
        self._child: _Child | None = child
        size = card.input.size or (card.tile.size, card.tile.size)
        self.tile_shape: tuple[int, int] = (int(size[0]), int(size[1]))
        self.input_name, self.output_name = _check_declared(card, self.tile_shape, described)

    def run_tiles(self, tiles: list[np.ndarray], cancelled: CancelCheck | None = None
                  ) -> list[np.ndarray]:
        """The probabilities ``float32 (rows, cols)`` of scaled tiles ``float32 (1, C, rows,
        cols)`` (``(rows, cols)`` = :attr:`tile_shape`), sent to the process together. After
        an error other than a refused tile the process is gone and the model closed."""
        if self._child is None or not self._child.running:
            raise errors.ModelError("The model is closed (after an error or by close()): "
                                    "open it again.")
        batch = [np.ascontiguousarray(t, dtype=np.float32) for t in tiles]
        return list(self._child.call(("run", batch), cancelled))

    def run_tile(self, tile: np.ndarray, cancelled: CancelCheck | None = None) -> np.ndarray:
        """:meth:`run_tiles` of one tile."""
        return self.run_tiles([tile], cancelled)[0]

    def close(self) -> None:
        """Stop the inference process (safe to call twice)."""
        if self._child is not None:
            self._child.stop()
            self._child = None

    def __enter__(self) -> OnnxModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_model(model: str | Path | bytes, card: ModelCard, *,
               limits: RunLimits = DEFAULT_RUN_LIMITS,
               cancelled: CancelCheck | None = None) -> OnnxModel:
    """Check a model file (a path, or its bytes), start its inference process and load it.

    Raises a :class:`~.errors.ModelError` subclass with one sentence for a file that is too
    large, not ONNX, or whose declared inputs or outputs do not fit the card; ``Cancelled``
    when ``cancelled()`` became True while loading. Close the model (or use it as a context
    manager) when done.
    """
    payload: str | bytes
    if isinstance(model, bytes):
        size, payload = len(model), model
    else:
        path = Path(model)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise errors.ModelError(f"The model file {path.name} cannot be read: "
                                    f"{exc.strerror}.") from None
        payload = str(path.resolve())
    if size > limits.max_model_bytes:
        raise errors.ModelTooLargeError(
            f"The model file is {size / 2**30:.1f} GiB, more than the limit of "
            f"{limits.max_model_bytes / 2**30:.1f} GiB: slicereview runs models of up to that "
            "size on the CPU.")
    if size == 0:
        raise errors.NotOnnxError("The model file is empty: give the .onnx file the model's "
                                  "card describes.")
    spec = {"kind": card.output.kind, "class": card.output.class_index,
            "activation": card.output.activation, "threads": _threads(limits),
            "max_bytes": limits.max_model_bytes}
    child = _Child(limits.address_space_for(size) or None, limits.timeout_s, cancelled)
    try:
        described = child.call(("load", payload, spec), cancelled)
        return OnnxModel(card, child, described)
    except BaseException:
        child.stop()
        raise


class _Child:
    """The inference process and the parent's end of its pipe."""

    def __init__(self, address_space: int | None, timeout_s: float,
                 cancelled: CancelCheck | None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child_conn = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child_conn, address_space), daemon=True,
                                   name="slicereview-model")
        self.process.start()
        child_conn.close()
        self.timeout_s = timeout_s
        self.running = True
        try:
            reply = self._receive(cancelled)
        except BaseException:
            self.stop()
            raise
        if reply != ("ready",):
            self.stop()
            _raise(reply)

    def call(self, request: tuple[Any, ...], cancelled: CancelCheck | None) -> Any:
        """Send ``request`` and return the value of its ``("ok", value)`` reply."""
        with contextlib.suppress(OSError, ValueError):  # a dead process: found by the wait
            self.conn.send(request)
        reply = self._receive(cancelled)
        if reply[0] != "ok":
            _raise(reply)
        return reply[1]

    def _receive(self, cancelled: CancelCheck | None) -> Any:
        """The next reply; the process is stopped on cancel, time-out or death."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            if cancelled is not None and cancelled():
                self.stop()
                raise Cancelled("cancelled")
            ready = wait([self.conn, self.process.sentinel], timeout=POLL_S)
            if self.conn in ready:
                try:
                    return self.conn.recv()
                except (EOFError, OSError):
                    pass  # died while answering: below
            if ready:
                self.process.join(5)
                code = self.process.exitcode
                self.stop()
                raise errors.ModelCrashedError(
                    f"The inference process stopped (exit code {code}): the model crashed "
                    "onnxruntime or needed more memory than the process may use.")
            if time.monotonic() > deadline:
                self.stop()
                raise errors.ModelCrashedError(
                    f"The model took longer than {self.timeout_s:.0f} s for one step and was "
                    "stopped: try a smaller tile.size in the card.")

    def stop(self) -> None:
        self.running = False
        with contextlib.suppress(Exception):
            self.conn.close()
        self.process.join(0.5 if self.process.is_alive() else 0)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


def _raise(reply: Any) -> None:
    if isinstance(reply, tuple) and len(reply) == 3 and reply[0] == "error":
        raise _ERRORS.get(str(reply[1]), errors.ModelError)(str(reply[2]))
    raise errors.ModelError(f"The inference process gave an unexpected reply: {reply!r:.80}.")


def _check_declared(card: ModelCard, tile: tuple[int, int], described: dict[str, Any]
                    ) -> tuple[str, str]:
    """The input's and output's names, once their declared types and shapes fit the card."""
    inputs, outputs = described["inputs"], described["outputs"]
    if len(inputs) != 1:
        raise errors.ModelInputError(f"The model has {len(inputs)} inputs; slicereview gives a "
                                     "model one image tile.")
    name, shape, kind = inputs[0]
    if kind not in _FLOAT_TYPES:
        raise errors.ModelInputError(f"The model's input `{name}` is {kind}; slicereview gives "
                                     "floating-point tiles (float, float16 or double).")
    if len(shape) != 4:
        raise errors.ModelInputError(
            f"The model's input `{name}` has rank {len(shape)} ({_dims(shape)}); slicereview "
            "gives a model (1, channels, rows, cols): rank 4.")
    want = (1, card.input.channels, tile[0], tile[1])
    for axis, (dim, w) in enumerate(zip(shape, want, strict=True)):
        if isinstance(dim, int) and dim > 0 and dim != w:
            what = ("batch size", "input.channels", "tile rows", "tile columns")[axis]
            raise errors.ModelInputError(
                f"The model's input `{name}` is {_dims(shape)}, but the card gives {_dims(want)} "
                f"(the {what} differ{'s' if axis else ''}): set input.size or tile.size in "
                "the card to what the model takes.")
    if not outputs:
        raise errors.ModelOutputError("The model has no output.")
    out_name, out_shape, out_kind = outputs[0]
    if out_kind not in _FLOAT_TYPES:
        raise errors.ModelOutputError(f"The model's output `{out_name}` is {out_kind}, not "
                                      "floating-point probabilities or logits.")
    probability = card.output.kind == "probability"
    if out_shape and not (len(out_shape) == 4 or (probability and len(out_shape) == 3)):
        raise errors.ModelOutputError(
            f"The model's output `{out_name}` has rank {len(out_shape)} ({_dims(out_shape)}); "
            "slicereview reads (1, channels, rows, cols).")
    if len(out_shape) == 4:
        channels = out_shape[1]
        index = card.output.class_index or 0
        if isinstance(channels, int) and channels > 0 and (
                (probability and channels != 1) or (not probability and channels <= index)):
            need = "1 channel" if probability else f"more than {index} channels"
            raise errors.ModelOutputError(
                f"The model's output `{out_name}` has {channels} channel(s), the card's "
                f"output.kind needs {need}.")
    for dim, w in zip(out_shape[-2:], tile, strict=False):
        if isinstance(dim, int) and dim > 0 and dim != w:
            raise errors.ModelOutputError(
                f"The model's output `{out_name}` is {_dims(out_shape)}: its rows and columns "
                f"must be the input's ({tile[0]} × {tile[1]}).")
    return str(name), str(out_name)


def _dims(shape: Any) -> str:
    return "(" + ", ".join(str(d) if d not in (None, "") else "?" for d in shape) + ")"
