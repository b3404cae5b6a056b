"""The inference process: onnxruntime runs the model here, never in the caller's process.

A hostile or broken model can make onnxruntime allocate without bound (a ``ConstantOfShape``
or ``Expand`` to a huge shape, an output far larger than its tile) or crash it natively. So
:mod:`.session` starts this process (``spawn``) for each opened model and it runs under an
address-space limit (``RLIMIT_AS``, where the platform has it): an allocation past the limit
fails inside onnxruntime, which reports it as an error; a native crash ends only this process.

The protocol, over one pipe: the child sends ``("ready",)``; then for each request it answers
``("ok", value)`` or ``("error", class name, message)``:

* ``("load", path or bytes, spec)`` → ``("ok", {"inputs": [...], "outputs": [...]})``, each an
  ``(name, shape, type)`` with ``shape`` a list of ints or names (symbolic dimensions);
* ``("run", [float32 (1, C, h, w), ...])`` → ``("ok", [float32 (h, w), ...])``: a few tiles
  at a time (fewer round trips), each tile's probability of the region already checked here
  (shape, NaN, range) and reduced to one channel, so a huge output never crosses the pipe.

``spec`` is ``{"kind", "class", "activation", "threads", "max_bytes"}`` (see
:class:`~.card.OutputSpec`). The child exits when its pipe closes.
"""

from __future__ import annotations

import contextlib
import os
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

#: Slack on the [0, 1] range of an output said to hold probabilities (float rounding).
RANGE_SLACK = 1e-3
#: The most classes an output may have.
MAX_CLASSES = 4096
#: Words of onnxruntime's messages when an allocation failed.
_MEMORY_WORDS = ("Failed to allocate", "bad_alloc", "bad allocation", "out of memory",
                 "MemoryError")


def serve(conn: Connection, address_space: int | None) -> None:
    """The child's main loop (the target of the process)."""
    if address_space:
        with contextlib.suppress(ImportError, ValueError, OSError):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    try:
        import numpy  # noqa: F401
        import onnxruntime
    except ImportError as exc:
        conn.send(("error", "ModelError", f"onnxruntime cannot be imported ({exc}): install "
                   "slicereview's dependencies again (pip install slicereview)."))
        return
    onnxruntime.set_default_logger_severity(4)  # its own log lines never reach the terminal
    conn.send(("ready",))
    state: dict[str, Any] = {}
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[Any, ...] = ("ok", _handle(request, state))
        except _Refusal as exc:
            reply = ("error", exc.kind, str(exc))
        except MemoryError:
            reply = ("error", "ModelMemoryError", _memory_message())
        except Exception as exc:  # onnxruntime's own errors: one sentence from their text
            reply = _from_onnxruntime(request[0], exc)
        del request
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


class _Refusal(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _handle(request: tuple[Any, ...], state: dict[str, Any]) -> Any:
    if request[0] == "load":
        return _load(request[1], request[2], state)
    if request[0] == "run":
        return _run(request[1], state)
    raise _Refusal("ModelError", f"unknown request {request[0]!r}")


def _load(model: str | bytes, spec: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    import onnxruntime as ort

    if isinstance(model, str):
        size = os.stat(model).st_size
        if size > spec["max_bytes"]:  # checked again here: the file may have grown
            raise _Refusal("ModelTooLargeError", f"The model file is {size} bytes, more than "
                           f"the limit of {spec['max_bytes']} bytes.")
        model = Path(model).read_bytes()
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = int(spec["threads"])
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    del model
    state.clear()
    state.update(session=session, spec=spec)

    def describe(args: Any) -> list[tuple[str, list[Any], str]]:
        return [(a.name, list(a.shape) if a.shape is not None else [], str(a.type))
                for a in args]

    return {"inputs": describe(session.get_inputs()), "outputs": describe(session.get_outputs())}


def _run(tiles: list[Any], state: dict[str, Any]) -> list[Any]:
    import numpy as np

    session, spec = state["session"], state["spec"]
    inp, out = session.get_inputs()[0], session.get_outputs()[0]
    answers = []
    for tile in tiles:
        if "float16" in inp.type:
            tile = tile.astype(np.float16)
        elif "double" in inp.type:
            tile = tile.astype(np.float64)
        result = session.run([out.name], {inp.name: tile})[0]
        rows, cols = tile.shape[2], tile.shape[3]
        answers.append(probability_of(np.asarray(result), rows, cols, spec))
        del result
    return answers


def probability_of(output: Any, rows: int, cols: int, spec: dict[str, Any]) -> Any:
    """The ``float32 (rows, cols)`` probability of the region from a model's raw output, or a
    refusal saying what is wrong with it."""
    import numpy as np

    kind = spec["kind"]
    want = f"(1, 1, {rows}, {cols})" if kind == "probability" else f"(1, classes, {rows}, {cols})"
    shape = tuple(int(n) for n in output.shape)
    if output.ndim == 3 and kind == "probability":
        output = output[:, None]
    if (output.ndim != 4 or output.shape[0] != 1 or tuple(output.shape[2:]) != (rows, cols)
            or (kind == "probability" and output.shape[1] != 1)
            or (kind == "classes" and not spec["class"] < output.shape[1] <= MAX_CLASSES)):
        raise _Refusal("ModelOutputError", f"The model's output has shape {shape}, not {want} "
                       "for a tile of that size: check output.kind and output.class in the "
                       "card.")
    if not np.issubdtype(output.dtype, np.floating):
        raise _Refusal("ModelOutputError", f"The model's output holds {output.dtype} values, "
                       "not floating-point probabilities or logits.")
    values = output[0].astype(np.float32, copy=False)
    if not np.isfinite(values).all():
        bad = int(np.count_nonzero(~np.isfinite(values)))
        raise _Refusal("ModelOutputError", f"The model's output has {bad} NaN or infinite "
                       "values in a tile: the model is broken or its input is scaled wrongly "
                       "(check input.scale in the card).")
    activation = spec["activation"]
    if activation == "sigmoid":
        return (0.5 * (1.0 + np.tanh(0.5 * values[0]))).astype(np.float32)
    if activation == "softmax":
        shifted = values - values.max(axis=0, keepdims=True)
        e = np.exp(shifted)
        return (e[spec["class"]] / e.sum(axis=0)).astype(np.float32)
    channel = values[0] if kind == "probability" else values[spec["class"]]
    low, high = float(channel.min()), float(channel.max())
    if low < -RANGE_SLACK or high > 1.0 + RANGE_SLACK:
        hint = '"sigmoid"' if kind == "probability" else '"softmax"'
        raise _Refusal("ModelOutputError", f"The model's output ranges from {low:.3g} to "
                       f"{high:.3g}, not from 0 to 1 as probabilities do: if the model gives "
                       f"logits, set output.activation to {hint} in the card.")
    return np.clip(channel, 0.0, 1.0).astype(np.float32)


def _memory_message() -> str:
    return ("The model needed more memory than the inference process may use: it allocates "
            "too much for a tile (try a smaller tile.size in the card), or the graph is "
            "hostile.")


def _from_onnxruntime(what: str, exc: Exception) -> tuple[str, str, str]:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    if any(word in text for word in _MEMORY_WORDS):
        return ("error", "ModelMemoryError", _memory_message())
    if what == "load" and ("INVALID_PROTOBUF" in text or "Protobuf parsing failed" in text
                           or "No graph was found" in text):
        return ("error", "NotOnnxError", "The file is not an ONNX model (onnxruntime could "
                "not parse it): give the .onnx file the model's card describes.")
    if what == "load":
        return ("error", "ModelError", f"onnxruntime cannot load this ONNX model: "
                f"{_short(first)}")
    if "rank" in text.lower() or "Invalid dimensions" in text or "Got invalid dimensions" in text:
        return ("error", "ModelInputError", f"The model refused a tile of the size and channels "
                f"the card gives: {_short(first)}")
    return ("error", "ModelError", f"The model failed on a tile: {_short(first)}")


def _short(message: str, limit: int = 300) -> str:
    """One line of onnxruntime's text without its ``[ONNXRuntimeError] : 1 : FAIL :`` prefix."""
    for marker in (" : FAIL : ", " : INVALID_ARGUMENT : ", " : INVALID_GRAPH : ",
                   " : NOT_IMPLEMENTED : ", " : RUNTIME_EXCEPTION : ", " : NO_SUCHFILE : "):
        if marker in message:
            message = message.split(marker, 1)[1]
    message = message.strip()
    if len(message) > limit:
        message = message[:limit - 1] + "…"
    return message if message.endswith((".", "…")) else message + "."
